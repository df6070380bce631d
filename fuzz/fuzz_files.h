/*
 * For the fuzz targets whose parser reads files (ssh_config,
 * known_hosts): a private directory made once per process (mkdtemp under
 * $TMPDIR, else /dev/shm where it is a directory, else /tmp: a file
 * written and read back on tmpfs takes some 25 us, on a VM's disk-backed
 * /tmp 5 ms, a hundred fuzz inputs a second) with an empty ".ssh" in it, both removed at exit
 * with what fuzz_write put there, and a writer of an input into a file
 * there.
 */
#ifndef BF_FUZZ_FILES_H
#define BF_FUZZ_FILES_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char fuzz_dir_path[4000];
static char fuzz_written[8][4200];
static int fuzz_nwritten;

static void fuzz_dir_remove(void)
{
	char ssh[4100];

	for (int i = 0; i < fuzz_nwritten; i++)
		unlink(fuzz_written[i]);
	snprintf(ssh, sizeof ssh, "%s/.ssh", fuzz_dir_path);
	rmdir(ssh);
	rmdir(fuzz_dir_path);
}

/* The directory; aborts when it cannot be made (no fuzzing without). */
static const char *fuzz_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char ssh[4100];
	struct stat st;

	if (fuzz_dir_path[0])
		return fuzz_dir_path;
	if (!tmp || !*tmp)
		tmp = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) ?
		      "/dev/shm" : "/tmp";
	snprintf(fuzz_dir_path, sizeof fuzz_dir_path, "%s/bf-fuzz-XXXXXX",
		 tmp);
	if (!mkdtemp(fuzz_dir_path)) {
		perror("fuzz: mkdtemp");
		abort();
	}
	snprintf(ssh, sizeof ssh, "%s/.ssh", fuzz_dir_path);
	if (mkdir(ssh, 0700) != 0) {
		perror(ssh);
		abort();
	}
	atexit(fuzz_dir_remove);
	return fuzz_dir_path;
}

/* Writes data (size bytes) to the file fuzz_dir()/name (name may be
 * ".ssh/NAME"), replacing it; returns its path (static: valid until the
 * next call). Aborts on failure. */
static const char *fuzz_write(const char *name, const void *data,
			      size_t size)
{
	static char path[4200];
	FILE *f;
	int known = 0;

	snprintf(path, sizeof path, "%s/%s", fuzz_dir(), name);
	for (int i = 0; i < fuzz_nwritten; i++)
		known |= strcmp(fuzz_written[i], path) == 0;
	if (!known && fuzz_nwritten < 8)
		snprintf(fuzz_written[fuzz_nwritten++], sizeof fuzz_written[0],
			 "%s", path);
	f = fopen(path, "w");
	if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f)) {
		perror(path);
		abort();
	}
	return path;
}

#endif
