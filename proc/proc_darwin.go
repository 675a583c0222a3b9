//go:build darwin

package proc

import (
	"errors"
	"fmt"
	"syscall"

	"golang.org/x/sys/unix"
)

var osTable table = sysctlTable{}

// sysctlTable reads the process table from the kern.proc sysctl.
type sysctlTable struct{}

func startMicros(k *unix.KinfoProc) uint64 {
	t := k.Proc.P_starttime
	return uint64(t.Sec)*1e6 + uint64(t.Usec)
}

func (sysctlTable) entries() ([]entry, error) {
	ks, err := unix.SysctlKinfoProcSlice("kern.proc.all")
	if err != nil {
		return nil, fmt.Errorf("proc: kern.proc.all: %w", err)
	}
	out := make([]entry, 0, len(ks))
	for i := range ks {
		k := &ks[i]
		out = append(out, entry{pid: int(k.Proc.P_pid), ppid: int(k.Eproc.Ppid), start: startMicros(k), zombie: k.Proc.P_stat == sZOMB})
	}
	return out, nil
}

// sZOMB is the p_stat of an exited, unreaped process.
const sZOMB = 5

func (sysctlTable) lookup(pid int) (entry, bool) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if err != nil {
		if errors.Is(err, syscall.ESRCH) {
			return entry{}, false
		}
		kerr := syscall.Kill(pid, 0)
		return entry{pid: pid}, kerr == nil || errors.Is(kerr, syscall.EPERM)
	}
	if k.Proc.P_pid != int32(pid) { // the sysctl answers an empty record for a missing pid
		return entry{}, false
	}
	return entry{pid: pid, ppid: int(k.Eproc.Ppid), start: startMicros(k), zombie: k.Proc.P_stat == sZOMB}, true
}

// environ is not read on macOS (it would take KERN_PROCARGS2 parsing): there
// the sweep finds descendants by parent links alone.
func (sysctlTable) environ(int) []byte { return nil }
