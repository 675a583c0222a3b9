#!/bin/bash
# trace.sh: where a keystroke's echo spends its time in wr and in
# floor-relay (a C server and client of wr's shape), hop by hop.
#
# Runs BenchmarkKeystrokeEcho for wr and the floor holders with many
# rounds, records the syscalls of wr's server and client and of
# floor-relay's two processes for a few seconds with perf, and prints
# each hop's median (segments.py). Needs perf and root (tracepoints).
#
# usage: contrib/echotrace/trace.sh [seconds]   (from the repository root)
set -e
secs=${1:-4}
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
out=$(mktemp -d)
cd "$root"
WR_BENCH_ONLY=wr WR_BENCH_ECHO_ROUNDS=3000 go test -run '^$' -bench KeystrokeEcho -benchtime=1x -count 1 ./integration >"$out/bench" 2>&1 &
bench=$!
srv=""
for _ in $(seq 1 240); do
	sleep 0.5
	for c in $(pgrep -x cat); do # the session runs `cat`; its parent is wr's server
		p=$(ps -o ppid= -p "$c" | tr -d ' ')
		[ "$(ps -o comm= -p "$p")" = wr ] && srv=$p
	done
	[ -n "$srv" ] && [ -n "$(pgrep -x relay)" ] && break
done
[ -n "$srv" ] || { echo "trace.sh: the benchmark's wr server never appeared" >&2; exit 1; }
test=$(ps -o ppid= -p "$(pgrep -x relay | head -1)" | tr -d ' ')
cl=""
for p in $(pgrep -x wr); do # the client: `wr attach` started by the test binary
	[ "$(ps -o ppid= -p "$p" | tr -d ' ')" = "$test" ] && grep -q attach "/proc/$p/cmdline" && cl=$p
done
relay=$(pgrep -x relay | tr '\n' ',' | sed 's/,$//')
sleep 2
perf record -q -o "$out/perf.data" -p "$srv,$cl,$relay" \
	-e 'syscalls:sys_enter_read,syscalls:sys_exit_read,syscalls:sys_enter_write,syscalls:sys_exit_write' \
	-e 'syscalls:sys_enter_writev,syscalls:sys_exit_writev' -- sleep "$secs"
wait "$bench" || true
grep Benchmark "$out/bench"
python3 "$here/segments.py" "$out/perf.data" "wr=$srv,$cl" "floor-relay=$relay"
rm -rf "$out"
