/*
 * Which hosts of a run are one machine. Two names can reach the same
 * box (an alias and its address, two sshd ports on one host, `local`
 * and this machine's own name), and agents run at once on one machine
 * share its cores, memory bandwidth and GPUs: every figure would be cut
 * and none would say so. Before the sweep the session asks each host
 * for its identity (a runner's identify hook): systemd's /etc/machine-id
 * (machine-id(5): unique per installation, 32 hex digits) together with
 * the kernel's boot id (/proc/sys/kernel/random/boot_id, random(4): a
 * UUID new at every boot, so a cloned image booted twice is two
 * machines), and the SSH host key. Hosts with the same boot id, or the
 * same host key, are one machine: the boot id is the running kernel's
 * (random(4): 128 random bits, so two machines never share one), and
 * every container, chroot and namespace on that kernel reads the same
 * one, whatever its own /etc/machine-id says: they share the cores.
 * Virtual machines on one hypervisor run kernels of their own and are
 * not found (nothing inside a guest names its host reliably). The
 * machine id is kept for the log.
 */
#ifndef BF_MACHINE_H
#define BF_MACHINE_H

#include <stddef.h>

#include "bf_error.h"

struct machine_id {
	char machine_id[40]; /* 32 lowercase hex digits; "" unknown */
	char boot_id[40];    /* a UUID, 36 characters; "" unknown */
	char host_key[128];  /* "SHA256:..." of the SSH host key; "" none */
};

/* The shell command (POSIX sh) that prints a host's identity as two
 * lines, "machine_id=..." and "boot_id=..." (empty values where the
 * files are missing); static. */
const char *machine_id_command(void);

/* Takes one line of machine_id_command's output into id: a value that
 * is not of its form (32 hex digits; 8-4-4-4-12 hex digits) is left
 * unknown. Other lines are ignored. */
void machine_id_line(struct machine_id *id, const char *line);

/* This machine's identity (no host key), from the files. */
void machine_id_local(struct machine_id *id);

/* Whether a and b are one machine: both boot ids known and equal, or
 * both host keys known and equal (the machine ids do not decide). */
int machine_id_same(const struct machine_id *a, const struct machine_id *b);

/* Groups n identities (known[i] 0: not identified, a group of its own):
 * group[i] is the lowest index of the hosts that are one machine with
 * host i, directly or through another (so each group is named by its
 * first host in the command line's order). */
void machine_groups(const struct machine_id *ids, const int *known, int n,
		    int *group);

#endif
