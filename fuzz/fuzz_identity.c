/*
 * libFuzzer target: a host's identity as ctl reads it
 * (controller/run/machine.c): the lines machine_id_command printed on the
 * host, each through machine_id_line, checked against its contract (a
 * value kept is 32 lowercase hex digits, or a UUID), then the identities
 * of the input's hosts (a line "----" starts the next, host keys from
 * the line "key=...") grouped by machine_groups: each group is named by
 * its first host, and hosts in one group are one machine.
 */
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/machine.h"

#define HOSTS 8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int is_hex(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

static void check_id(const struct machine_id *id)
{
	const char *u = id->boot_id;

	if (id->machine_id[0]) {
		if (strlen(id->machine_id) != 32 ||
		    !is_hex(id->machine_id, 32))
			abort();
		for (int i = 0; i < 32; i++)
			if (isupper((unsigned char)id->machine_id[i]))
				abort();
	}
	if (u[0] && (strlen(u) != 36 || !is_hex(u, 8) || u[8] != '-' ||
		     !is_hex(u + 9, 4) || u[13] != '-' || !is_hex(u + 14, 4) ||
		     u[18] != '-' || !is_hex(u + 19, 4) || u[23] != '-' ||
		     !is_hex(u + 24, 12)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct machine_id ids[HOSTS];
	int known[HOSTS], group[HOSTS], n = 1;
	char *in = malloc(size + 1), *p;

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	memset(ids, 0, sizeof ids);
	memset(known, 0, sizeof known);
	for (p = in; p < in + size;) {
		char *nl = memchr(p, '\n', (size_t)(in + size - p));

		if (nl)
			*nl = '\0';
		if (strcmp(p, "----") == 0) {
			if (n == HOSTS)
				break;
			n++;
		} else if (strncmp(p, "key=", 4) == 0) {
			snprintf(ids[n - 1].host_key,
				 sizeof ids[n - 1].host_key, "%s", p + 4);
		} else if (strcmp(p, "unknown") == 0) {
			known[n - 1] = -1;
		} else {
			machine_id_line(&ids[n - 1], p);
			check_id(&ids[n - 1]);
		}
		p = nl ? nl + 1 : in + size;
	}
	for (int i = 0; i < n; i++)
		known[i] = known[i] == 0;
	machine_groups(ids, known, n, group);
	for (int i = 0; i < n; i++) {
		int g = group[i];

		if (g < 0 || g > i || group[g] != g)
			abort(); /* named by its first host */
		if (!known[i] && g != i)
			abort(); /* not identified: a group of its own */
		for (int j = 0; j < n; j++)
			if (i != j && known[i] && known[j] &&
			    machine_id_same(&ids[i], &ids[j]) &&
			    group[j] != g)
				abort(); /* one machine, one group */
	}
	free(in);
	return 0;
}
