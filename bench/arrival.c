/*
 * arrival: when each record lands in a file, by inotify.
 *
 *   arrival [--subdir] DIR SUFFIX [TIMEOUT_S]
 *
 * Watches DIR (with --subdir: the first directory created in DIR, as ctl
 * creates its run directory under --results) for writes to a file whose
 * name ends in SUFFIX, reads what was appended as soon as the kernel
 * reports the write, and prints one line per complete record that
 * carries "bench_sent_ns":
 *
 *   SENT_NS ARRIVED_NS
 *
 * SENT_NS is the record's own CLOCK_REALTIME stamp (set by the writer
 * just before it wrote the line), ARRIVED_NS this program's
 * CLOCK_REALTIME just after the read() that returned the line. Exits 0
 * after a line containing "type":"summary", 1 on TIMEOUT_S (default 300)
 * of silence or an error. Lines are read up to 1 MiB.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <time.h>
#include <unistd.h>

#define BUF_MAX (1 << 20)

static const char *suffix;
static int file_fd = -1;
static char buf[BUF_MAX];
static size_t have;

static long long realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int matches(const char *name)
{
	size_t n = strlen(name), s = strlen(suffix);

	return n >= s && strcmp(name + n - s, suffix) == 0;
}

/* Reads what was appended; 1 after the summary line, -1 on error. */
static int drain(void)
{
	for (;;) {
		ssize_t r = read(file_fd, buf + have, sizeof(buf) - 1 - have);
		long long now;
		char *p, *nl;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -1;
		if (r == 0)
			return 0;
		now = realtime_ns();
		have += (size_t)r;
		buf[have] = '\0';
		p = buf;
		while ((nl = strchr(p, '\n')) != NULL) {
			const char *t;

			*nl = '\0';
			t = strstr(p, "\"bench_sent_ns\":");
			if (t)
				printf("%lld %lld\n",
				       strtoll(t + 16, NULL, 10), now);
			if (strstr(p, "\"type\":\"summary\"")) {
				fflush(stdout);
				return 1;
			}
			p = nl + 1;
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
		if (have >= sizeof(buf) - 1)
			return -1;
	}
}

static int open_in(const char *dir, const char *name)
{
	char path[PATH_MAX];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path))
		return -1;
	file_fd = open(path, O_RDONLY | O_CLOEXEC);
	return file_fd;
}

/* A file already in dir whose name matches (created before the watch). */
static void scan(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	if (!d)
		return;
	while (file_fd < 0 && (e = readdir(d)) != NULL)
		if (e->d_type != DT_DIR && matches(e->d_name))
			open_in(dir, e->d_name);
	closedir(d);
}

static int first_subdir(const char *dir, char *out, size_t len)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d)) != NULL)
		if (e->d_type == DT_DIR && strcmp(e->d_name, ".") &&
		    strcmp(e->d_name, "..") &&
		    (size_t)snprintf(out, len, "%s/%s", dir, e->d_name) < len)
			found = 1;
	closedir(d);
	return found;
}

int main(int argc, char **argv)
{
	char dir[PATH_MAX], evbuf[8192]
		__attribute__((aligned(__alignof__(struct inotify_event))));
	int subdir = 0, ifd, wd = -1, timeout_s = 300, arg = 1, rc;
	struct pollfd p;

	if (argc > 1 && strcmp(argv[1], "--subdir") == 0) {
		subdir = 1;
		arg++;
	}
	if (argc - arg < 2) {
		fprintf(stderr, "usage: arrival [--subdir] DIR SUFFIX [TIMEOUT_S]\n");
		return 2;
	}
	suffix = argv[arg + 1];
	if (argc - arg > 2)
		timeout_s = (int)strtol(argv[arg + 2], NULL, 10);
	ifd = inotify_init1(IN_CLOEXEC);
	if (ifd < 0) {
		perror("arrival: inotify_init1");
		return 1;
	}
	snprintf(dir, sizeof(dir), "%s", argv[arg]);
	if (subdir) {
		/* Wait for the run directory, then watch it instead. */
		int top = inotify_add_watch(ifd, dir, IN_CREATE | IN_ONLYDIR);
		char sub[PATH_MAX];

		if (top < 0) {
			perror("arrival: watch");
			return 1;
		}
		while (!first_subdir(dir, sub, sizeof(sub))) {
			p = (struct pollfd){ ifd, POLLIN, 0 };
			if (poll(&p, 1, timeout_s * 1000) <= 0)
				return 1;
			if (read(ifd, evbuf, sizeof(evbuf)) < 0 && errno != EINTR)
				return 1;
		}
		inotify_rm_watch(ifd, top);
		snprintf(dir, sizeof(dir), "%s", sub);
	}
	wd = inotify_add_watch(ifd, dir, IN_CREATE | IN_MODIFY | IN_ONLYDIR);
	if (wd < 0) {
		perror("arrival: watch");
		return 1;
	}
	scan(dir);
	if (file_fd >= 0 && (rc = drain()) != 0)
		return rc > 0 ? 0 : 1;
	for (;;) {
		ssize_t n;

		p = (struct pollfd){ ifd, POLLIN, 0 };
		rc = poll(&p, 1, timeout_s * 1000);
		if (rc < 0 && errno == EINTR)
			continue;
		if (rc <= 0) {
			fprintf(stderr, "arrival: nothing for %d s\n", timeout_s);
			return 1;
		}
		n = read(ifd, evbuf, sizeof(evbuf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return 1;
		for (char *q = evbuf; q < evbuf + n;) {
			struct inotify_event *ev = (struct inotify_event *)q;

			if (file_fd < 0 && ev->len && !(ev->mask & IN_ISDIR) &&
			    matches(ev->name))
				open_in(dir, ev->name);
			q += sizeof(*ev) + ev->len;
		}
		if (file_fd >= 0 && (rc = drain()) != 0) {
			fflush(stdout);
			return rc > 0 ? 0 : 1;
		}
	}
}
