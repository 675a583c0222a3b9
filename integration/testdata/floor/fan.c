// fan: the floor of a one-process holder (the shape of tmux and screen).
// It runs SCRIPT under its own PTY and writes every byte the PTY gives to
// each TTY named after it, in turn, from one buffer; what the first TTY
// types goes to the PTY. No screen model, no queues, no framing: the least
// any holder that owns its clients' terminals can do.
//
// usage: fan SCRIPT TTY...
#include "floor.h"

int main(int argc, char **argv) {
	enum { maxTTYs = 16 };
	int n = argc - 2, ttys[maxTTYs];
	if (n < 1 || n > maxTTYs) {
		fprintf(stderr, "usage: fan SCRIPT TTY...\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		if ((ttys[i] = openRaw(argv[i + 2])) < 0)
			return 1;
	int master = startScript(argv[1]);
	if (master < 0)
		return 1;
	static char buf[1 << 16];
	struct pollfd pf[2] = {{.fd = master, .events = POLLIN}, {.fd = ttys[0], .events = POLLIN}};
	for (;;) {
		if (poll(pf, 2, -1) < 0)
			continue;
		if (pf[1].revents & POLLIN) {
			ssize_t k = read(ttys[0], buf, sizeof buf);
			if (k > 0 && writeAll(master, buf, k) < 0)
				return 1;
		}
		if (pf[0].revents & (POLLIN | POLLHUP)) {
			ssize_t k = read(master, buf, sizeof buf);
			if (k <= 0)
				return 0;
			for (int i = 0; i < n; i++)
				if (writeAll(ttys[i], buf, k) < 0)
					return 1;
		}
	}
}
