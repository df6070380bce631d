/* Which hosts of a run are one machine; see machine.h. */
#include "run/machine.h"

#include <stdio.h>
#include <string.h>

const char *machine_id_command(void)
{
	return "printf 'machine_id=%s\\n' \"$(cat /etc/machine-id 2>/dev/null)\"; "
	       "printf 'boot_id=%s\\n' \"$(cat /proc/sys/kernel/random/boot_id "
	       "2>/dev/null)\"";
}

static int is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
}

/* 32 lowercase hex digits (machine-id(5)). */
static int machine_id_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++)
		if (!is_hex(s[i]))
			return 0;
	return i == 32;
}

/* A UUID as the kernel prints it: 8-4-4-4-12 lowercase hex digits. */
static int uuid_ok(const char *s)
{
	size_t i;

	for (i = 0; s[i]; i++) {
		int dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' : !is_hex(s[i]))
			return 0;
	}
	return i == 36;
}

void machine_id_line(struct machine_id *id, const char *line)
{
	/* fits: 32 hex digits (machine_id_ok), a UUID's 36 (uuid_ok): 40. */
	if (strncmp(line, "machine_id=", 11) == 0 && machine_id_ok(line + 11))
		snprintf(id->machine_id, sizeof(id->machine_id), "%s", line + 11);
	else if (strncmp(line, "boot_id=", 8) == 0 && uuid_ok(line + 8))
		/* fits: as above. */
		snprintf(id->boot_id, sizeof(id->boot_id), "%s", line + 8);
}

/* The first line of path, without its newline, into buf; "" when it
 * cannot be read. */
static void first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

void machine_id_local(struct machine_id *id)
{
	char v[64], line[96];

	memset(id, 0, sizeof(*id));
	first_line("/etc/machine-id", v, sizeof(v));
	/* fits: v is under 64 bytes, the names 11 and 8: 75 < 96. */
	snprintf(line, sizeof(line), "machine_id=%s", v);
	machine_id_line(id, line);
	first_line("/proc/sys/kernel/random/boot_id", v, sizeof(v));
	/* fits: as above. */
	snprintf(line, sizeof(line), "boot_id=%s", v);
	machine_id_line(id, line);
}

int machine_id_same(const struct machine_id *a, const struct machine_id *b)
{
	if (a->boot_id[0] && strcmp(a->boot_id, b->boot_id) == 0)
		return 1;
	return a->host_key[0] && strcmp(a->host_key, b->host_key) == 0;
}

void machine_groups(const struct machine_id *ids, const int *known, int n,
		    int *group)
{
	for (int i = 0; i < n; i++)
		group[i] = i;
	/* Until nothing changes: each host takes the lowest group of the
	 * hosts it is one machine with (n is small: a run's hosts). */
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = 0; i < n; i++)
			for (int j = 0; j < n; j++)
				if (i != j && known[i] && known[j] &&
				    group[j] < group[i] &&
				    machine_id_same(&ids[i], &ids[j])) {
					group[i] = group[j];
					changed = 1;
				}
	}
}
