/*
 * remote_target: the host argument of remote_connect split into user, host
 * and port, as ssh(1) reads "[user@]host[:port]". Pure string work, no
 * libssh: unit-tested on its own (tests/unit/test_remote_target.c). An alias
 * from ssh_config is a host without user or port here; remote_session.c
 * resolves it.
 */
#ifndef REMOTE_TARGET_H
#define REMOTE_TARGET_H

#include <stddef.h>

#include "bf_error.h"

/*
 * Splits spec, "[user@]host[:port]", into its parts. The user is all before
 * the last '@'. An IPv6 address takes a port only in brackets
 * ("[::1]:2222", "[fe80::1]"); a host with two or more colons and no
 * brackets is a bare IPv6 address without a port ("::1").
 *
 * On BF_OK, *host is the host name or address without brackets and *user
 * the user or NULL when spec names none (both caller frees), *port 1..65535,
 * or 0 when spec has no port. On error all three are NULL/0 and detail says
 * why ("host '<spec>': ..."):
 *   BF_ERR_USAGE  empty user or host, a bad [address], a port that is not
 *                 a decimal number in 1..65535
 *   BF_ERR_NOMEM
 */
enum bf_err remote_target_parse(const char *spec, char **user, char **host,
				int *port, char *detail, size_t detail_len);

/*
 * Whether spec is a target ctl can connect to, before anything is
 * contacted: remote_target_parse takes it, and its host and user are what
 * OpenSSH's ssh(1) takes on its command line (its valid_hostname and
 * valid_ruser, misc.c): a host name without blanks, control characters or
 * any of '`"$\;&<>|(){}, not starting with '-' (a 69-character alias,
 * "plus+1" and "my_host" are names); a user without control characters or
 * any of '`";&<>|(){}, not starting with '-'. An alias is checked as a
 * host name; what it resolves to is not. BF_OK, or remote_target_parse's
 * errors and BF_ERR_USAGE ("host '<spec>': invalid host name (...)" or
 * "invalid user name") with one line in detail.
 */
enum bf_err remote_target_check(const char *spec, char *detail,
				size_t detail_len);

#endif
