// relay: the floor of a two-process holder (the shape of dtach and wr). A
// server process holds SCRIPT's PTY; each TTY named after it has a client
// process of its own, joined to the server by a Unix socket pair. The
// server writes every PTY read to each client's socket in turn, from one
// buffer; a client copies its socket to its TTY, and the first client's
// TTY input goes back to the PTY. No screen model, no queues, no framing:
// the least a holder whose clients relay bytes over a socket can do.
//
// usage: relay SCRIPT TTY...
#include "floor.h"
#include <sys/socket.h>

static char buf[1 << 16];

// pump copies a to b and b to a until either ends: a client's whole life.
static int pump(int a, int b) {
	struct pollfd pf[2] = {{.fd = a, .events = POLLIN}, {.fd = b, .events = POLLIN}};
	for (;;) {
		if (poll(pf, 2, -1) < 0)
			continue;
		for (int i = 0; i < 2; i++) {
			if (!(pf[i].revents & (POLLIN | POLLHUP)))
				continue;
			ssize_t k = read(pf[i].fd, buf, sizeof buf);
			if (k <= 0 || writeAll(pf[1 - i].fd, buf, k) < 0)
				return 0;
		}
	}
}

int main(int argc, char **argv) {
	enum { maxTTYs = 16 };
	int n = argc - 2, socks[maxTTYs];
	if (n < 1 || n > maxTTYs) {
		fprintf(stderr, "usage: relay SCRIPT TTY...\n");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		int tty = openRaw(argv[i + 2]);
		if (tty < 0)
			return 1;
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0) {
			perror("socketpair");
			return 1;
		}
		if (fork() == 0) {
			close(sv[0]);
			return pump(tty, sv[1]);
		}
		close(sv[1]);
		close(tty);
		socks[i] = sv[0];
	}
	int master = startScript(argv[1]);
	if (master < 0)
		return 1;
	struct pollfd pf[2] = {{.fd = master, .events = POLLIN}, {.fd = socks[0], .events = POLLIN}};
	for (;;) {
		if (poll(pf, 2, -1) < 0)
			continue;
		if (pf[1].revents & (POLLIN | POLLHUP)) {
			ssize_t k = read(socks[0], buf, sizeof buf);
			if (k <= 0 || writeAll(master, buf, k) < 0)
				return 0;
		}
		if (pf[0].revents & (POLLIN | POLLHUP)) {
			ssize_t k = read(master, buf, sizeof buf);
			if (k <= 0)
				return 0;
			for (int i = 0; i < n; i++)
				if (writeAll(socks[i], buf, k) < 0)
					return 1;
		}
	}
}
