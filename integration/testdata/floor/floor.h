// floor.h: what both floor holders do alike, kept in one place so that
// the two differ only in the shape they measure.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <stdio.h>
#include <termios.h>
#include <unistd.h>

static int writeAll(int fd, const char *p, ssize_t n) {
	while (n > 0) {
		ssize_t w = write(fd, p, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= w;
	}
	return 0;
}

// openRaw opens a client's terminal and makes it raw, as any holder's
// client does; it returns -1 after saying why.
static int openRaw(const char *path) {
	int fd = open(path, O_RDWR | O_NOCTTY);
	if (fd < 0) {
		perror(path);
		return -1;
	}
	struct termios t;
	tcgetattr(fd, &t);
	cfmakeraw(&t);
	tcsetattr(fd, TCSANOW, &t);
	return fd;
}

// startScript runs script under sh on a new 80x24 PTY and returns its
// master, or -1 after saying why.
static int startScript(const char *script) {
	struct winsize ws = {.ws_row = 24, .ws_col = 80};
	int master;
	pid_t pid = forkpty(&master, NULL, NULL, &ws);
	if (pid < 0) {
		perror("forkpty");
		return -1;
	}
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		_exit(127);
	}
	return master;
}
