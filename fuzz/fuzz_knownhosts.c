/*
 * libFuzzer target: known_hosts files as ctl reads them
 * (controller/remote/remote_knownhosts.c): remote_kh_check,
 * remote_kh_scan and remote_kh_check_cert, each checked against its
 * contract, and remote_kh_add's line found again by remote_kh_check.
 *
 * The input's first line is the query, "NAME KEYTYPE KEYB64 CATYPE
 * CAB64" (words missing: "fuzzhost", "ssh-ed25519", "AAAA", "ssh-rsa",
 * "AAAA"); the rest is a known_hosts file, and after a line "----" a
 * second one. The files are written to a private directory
 * (fuzz_files.h) and read back, as ctl reads UserKnownHostsFile's.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_files.h"
#include "remote/remote_knownhosts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* m as remote_kh_check's contract says: a state of the enum, and where
 * it is not UNKNOWN one of files and a line number. */
static void check_match(const struct remote_kh_match *m,
			const char *const *files, size_t n)
{
	int known = 0;

	if (m->state < REMOTE_KH_UNKNOWN || m->state > REMOTE_KH_REVOKED)
		abort();
	if (m->state == REMOTE_KH_UNKNOWN) {
		if (m->file[0] || m->line)
			abort();
		return;
	}
	for (size_t i = 0; i < n; i++)
		known |= strcmp(m->file, files[i]) == 0;
	if (!known || m->line < 1)
		abort();
}

/* Whether s can be written as one known_hosts word that matches only
 * itself: letters, digits and ".-_:[]" (no pattern characters). */
static int plain_name(const char *s)
{
	if (!*s || strlen(s) > 1000)
		return 0;
	for (; *s; s++)
		if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			    "0123456789.-_:[]", *s))
			return 0;
	return 1;
}

/* Whether s is one non-empty word (no blank, no newline). */
static int one_word(const char *s)
{
	return *s && !strpbrk(s, " \t\r\n");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const dflt[] = { "fuzzhost", "ssh-ed25519",
		"AAAA", "ssh-rsa", "AAAA" };
	char *in = malloc(size + 1), *rest, *second, *q[5], *save = NULL;
	char paths[3][4200], types[256], detail[512];
	const char *files[3];
	struct remote_kh_match m;
	int marks = 0;
	size_t nq = 0;

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	rest = strchr(in, '\n');
	if (rest)
		*rest++ = '\0';
	else
		rest = in + size;
	second = strstr(rest, "\n----\n");
	if (second) {
		*second = '\0';
		second += 6;
	}
	for (char *w = strtok_r(in, " ", &save); w && nq < 5;
	     w = strtok_r(NULL, " ", &save))
		q[nq++] = w;
	for (; nq < 5; nq++)
		q[nq] = (char *)dflt[nq];

	snprintf(paths[0], sizeof paths[0], "%s",
		 fuzz_write("known_hosts", rest, strlen(rest)));
	snprintf(paths[1], sizeof paths[1], "%s",
		 fuzz_write("known_hosts2", second ? second : "",
			    second ? strlen(second) : 0));
	snprintf(paths[2], sizeof paths[2], "%s/missing", fuzz_dir());
	for (int i = 0; i < 3; i++)
		files[i] = paths[i];

	if (remote_kh_check(files, 3, q[0], q[1], q[2], &m, detail,
			    sizeof detail) != BF_OK)
		abort(); /* the files exist and are readable */
	check_match(&m, files, 3);
	if (remote_kh_scan(files, 3, q[0], &marks, types, sizeof types,
			   detail, sizeof detail) != BF_OK)
		abort();
	if (marks & ~(REMOTE_KH_HAS_CA | REMOTE_KH_HAS_REVOKED) ||
	    types[0] != ' ' || strlen(types) >= sizeof types)
		abort();
	if (remote_kh_check_cert(files, 3, q[0], q[3], q[4], q[1], q[2], &m,
				 detail, sizeof detail) != BF_OK)
		abort();
	check_match(&m, files, 3);
	if (m.state != REMOTE_KH_UNKNOWN && m.state != REMOTE_KH_OK &&
	    m.state != REMOTE_KH_REVOKED)
		abort();

	/* What remote_kh_add writes, remote_kh_check finds, plain or
	 * hashed. */
	if (plain_name(q[0]) && one_word(q[1]) && one_word(q[2])) {
		int hashed = size & 1;
		const char *added = fuzz_write("added", "", 0);
		char path[4200];

		snprintf(path, sizeof path, "%s", added);
		files[0] = path;
		if (remote_kh_add(path, q[0], q[1], q[2], hashed, detail,
				  sizeof detail) == BF_OK &&
		    (remote_kh_check(files, 1, q[0], q[1], q[2], &m, detail,
				     sizeof detail) != BF_OK ||
		     m.state != REMOTE_KH_OK || m.line != 1)) {
			fprintf(stderr, "added %s %s %s (hashed %d), then "
				"state %d line %d\n", q[0], q[1], q[2], hashed,
				(int)m.state, m.line);
			abort();
		}
	}
	free(in);
	return 0;
}
