/*
 * measure: runs a command and writes its wall time, CPU time and peak
 * RSS to a file.
 *
 *   measure OUTFILE COMMAND [ARG...]
 *
 * OUTFILE gets one JSON object: wall_s (fork to reap), user_s, sys_s
 * (the command and every descendant it reaped), maxrss_kib (the largest
 * of those processes' peak RSS), status (exit status, or 128 + signal).
 * measure exits with the command's status.
 *
 * Why not Python's own wait4: Linux keeps a process's RSS high-water mark
 * across exec, so a child forked from a 15 MiB Python reports at least
 * 15 MiB whatever it runs; forked from this small program, the floor is
 * about 1 MiB.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	double t0, wall;
	int status, code;
	pid_t pid;
	FILE *out;

	if (argc < 3) {
		fprintf(stderr, "usage: measure OUTFILE COMMAND [ARG...]\n");
		return 2;
	}
	t0 = now_s();
	pid = fork();
	if (pid < 0) {
		perror("measure: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		fprintf(stderr, "measure: %s: %s\n", argv[2], strerror(errno));
		_exit(127);
	}
	while (wait4(pid, &status, 0, &ru) < 0)
		if (errno != EINTR) {
			perror("measure: wait4");
			return 2;
		}
	wall = now_s() - t0;
	code = WIFEXITED(status) ? WEXITSTATUS(status) :
	       128 + WTERMSIG(status);
	out = fopen(argv[1], "w");
	if (!out) {
		perror("measure: OUTFILE");
		return 2;
	}
	fprintf(out, "{\"wall_s\": %.6f, \"user_s\": %.6f, \"sys_s\": %.6f, "
		"\"maxrss_kib\": %ld, \"status\": %d}\n", wall,
		(double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6,
		(double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6,
		ru.ru_maxrss, code);
	fclose(out);
	return code;
}
