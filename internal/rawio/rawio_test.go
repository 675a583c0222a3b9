package rawio

import (
	"syscall"
	"testing"
	"unsafe"
)

func nonblockingPipe(t *testing.T) (r, w uintptr) {
	t.Helper()
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(p[0]); syscall.Close(p[1]) })
	for _, fd := range p {
		if err := syscall.SetNonblock(fd, true); err != nil {
			t.Fatal(err)
		}
	}
	return uintptr(p[0]), uintptr(p[1])
}

func TestReadWrite(t *testing.T) {
	r, w := nonblockingPipe(t)
	buf := make([]byte, 16)
	if Readable(r) {
		t.Fatal("an empty pipe is readable")
	}
	if n, e := Read(r, buf); n != 0 || e != syscall.EAGAIN {
		t.Fatalf("Read of an empty pipe = %d, %v; want EAGAIN", n, e)
	}
	if n, e := Write(w, []byte("ab")); n != 2 || e != 0 {
		t.Fatalf("Write = %d, %v", n, e)
	}
	iov := func(s string) syscall.Iovec {
		v := syscall.Iovec{Base: unsafe.StringData(s)}
		v.SetLen(len(s))
		return v
	}
	if n, e := Writev(w, []syscall.Iovec{iov("cd"), iov("e")}); n != 3 || e != 0 {
		t.Fatalf("Writev = %d, %v", n, e)
	}
	if !Readable(r) {
		t.Fatal("a pipe holding bytes is not readable")
	}
	if n, e := Read(r, buf); e != 0 || string(buf[:n]) != "abcde" {
		t.Fatalf("Read = %q, %v; want abcde", buf[:n], e)
	}
	if n, e := Read(^uintptr(0), buf); n != 0 || e != syscall.EBADF {
		t.Fatalf("Read of a bad descriptor = %d, %v; want EBADF", n, e)
	}
}
