#!/usr/bin/env python3
"""segments.py PERF_DATA HOLDER=PID,PID ...

Splits each keystroke's echo through a two-process holder (a server and the
attached client: wr, floor-relay, dtach) into its hops, from a perf record
of syscall tracepoints (see trace.sh), and prints each hop's median:

  client in     the client's read of the keystroke .. its write to the socket
  ->server      .. the server's read of it (the wake-up of the server)
  server in     .. the server's write of it to the PTY
  program+wake  .. the server's read of the echo (the program, the PTY's
                   kernel worker, the wake-up of the server)
  server out    .. the server's write of it to the client's socket
  ->client      .. the client's read of it (the wake-up of the client)
  client out    .. the client's write of it to its terminal

The file descriptors are found from the traffic: each process has two
(read fd, next written fd) pairs, one per direction, and the pairing that
chains into the most echoes is taken.
"""
import collections, re, statistics, subprocess, sys

HOPS = ["client in", "->server", "server in", "program+wake", "server out", "->client", "client out"]


def events(path):
    out = subprocess.run(["perf", "script", "-i", path, "-F", "pid,tid,time,event,trace"],
                         capture_output=True, text=True).stdout
    ev, entered = [], {}
    for line in out.splitlines():
        m = re.match(r"\s*(\d+)/(\d+)\s+([\d.]+):\s+syscalls:(\w+):\s*(.*)", line)
        if not m:
            continue
        pid, tid, t, name, rest = int(m[1]), int(m[2]), float(m[3]) * 1e6, m[4], m[5]
        if name.startswith("sys_enter_"):
            call = name[len("sys_enter_"):]
            fd = int(re.search(r"fd: (0x[0-9a-f]+)", rest)[1], 16)
            entered[tid] = fd
            kind = "w" if call in ("write", "writev") else call
            ev.append((t, pid, "enter_" + kind, fd, None))
        else:
            call = name[len("sys_exit_"):]
            ret = int(rest.strip(), 16)
            if ret >= 1 << 63:
                ret -= 1 << 64
            fd = entered.get(tid) if call in ("read", "write", "writev") else None
            ev.append((t, pid, "exit_" + call, fd, ret))
    return ev


def pairs(ev, pid):
    """(read fd, next written fd) pairs of pid, most common first."""
    last, c = {}, collections.Counter()
    for t, p, name, fd, ret in ev:
        if p != pid:
            continue
        if name == "exit_read" and ret and ret > 0:
            last[p] = fd
        elif name == "enter_w" and p in last:
            c[(last.pop(p), fd)] += 1
    return [k for k, _ in c.most_common(4)]


def chains(ev, srv, cl, cin, csock, cout, ssock, spty):
    steps = [(cl, "exit_read", cin), (cl, "enter_w", csock), (srv, "exit_read", ssock), (srv, "enter_w", spty),
             (srv, "exit_read", spty), (srv, "enter_w", ssock), (cl, "exit_read", csock), (cl, "enter_w", cout)]
    res, cur = [], []
    for t, pid, name, fd, ret in ev:
        want = steps[len(cur)]
        if pid == want[0] and fd == want[2] and name == want[1] and (ret is None or ret > 0):
            cur.append(t)
            if len(cur) == len(steps):
                res.append(cur)
                cur = []
        elif pid == cl and name == "exit_read" and fd == cin and ret and ret > 0:
            cur = [t]
    return res


def best(ev, srv, cl):
    found = []
    cp, sp = pairs(ev, cl), pairs(ev, srv)
    for a, b in cp:
        for c, d in sp:
            outs = [e for r, e in cp if r == b] or [a]
            for e in outs:
                found.append(chains(ev, srv, cl, a, b, e, c, d))
    return max(found, key=len, default=[])


def main():
    ev = events(sys.argv[1])
    for arg in sys.argv[2:]:
        name, pids = arg.split("=")
        a, b = (int(x) for x in pids.split(","))
        r = max(best(ev, a, b), best(ev, b, a), key=len)  # which is the server
        if not r:
            print(f"{name}: no echoes found")
            continue
        total = statistics.median(x[-1] - x[0] for x in r)
        print(f"{name}: {len(r)} echoes, median {total:.0f} µs from the client's read to its write")
        for k, hop in enumerate(HOPS):
            print(f"  {hop:14s} {statistics.median(x[k + 1] - x[k] for x in r):6.1f} µs")


main()
