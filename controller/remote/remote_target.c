/* Parsing of "[user@]host[:port]" targets; see remote_target.h. */
#include "remote/remote_target.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum bf_err remote_target_parse(const char *spec, char **user, char **host,
				int *port, char *detail, size_t detail_len)
{
	const char *at = strrchr(spec, '@');
	const char *h = at ? at + 1 : spec;
	const char *port_str = NULL;
	size_t hlen;

	*user = NULL;
	*host = NULL;
	*port = 0;
	if (at == spec || *h == '\0')
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "host '%s': empty user or host name", spec);
	if (*h == '[') {
		const char *close = strchr(h, ']');

		if (!close || close == h + 1 ||
		    (close[1] != '\0' && close[1] != ':'))
			return bf_fail(detail, detail_len, BF_ERR_USAGE,
				       "host '%s': bad [address]", spec);
		hlen = (size_t)(close - h - 1);
		h++;
		if (close[1] == ':')
			port_str = close + 2;
	} else {
		const char *colon = strchr(h, ':');

		/* More than one colon and no brackets: a bare IPv6 address. */
		if (colon && !strchr(colon + 1, ':')) {
			hlen = (size_t)(colon - h);
			port_str = colon + 1;
		} else {
			hlen = strlen(h);
		}
	}
	if (hlen == 0)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "host '%s': empty host name", spec);
	if (port_str) {
		char *end;
		long p;

		errno = 0;
		p = strtol(port_str, &end, 10);
		if (*port_str == '\0' || *end != '\0' || errno || p < 1 ||
		    p > 65535)
			return bf_fail(detail, detail_len, BF_ERR_USAGE,
				       "host '%s': port must be 1-65535", spec);
		*port = (int)p;
	}
	*host = strndup(h, hlen);
	if (at)
		*user = strndup(spec, (size_t)(at - spec));
	if (!*host || (at && !*user)) {
		free(*host);
		free(*user);
		*host = *user = NULL;
		return bf_fail(detail, detail_len, BF_ERR_NOMEM,
			       "host '%s': out of memory", spec);
	}
	return BF_OK;
}

/* A host name as OpenSSH's ssh(1) takes it from its command line: its
 * valid_hostname() (misc.c, OpenSSH 9.2p1 as Debian 12 ships it, and
 * later): no shell metacharacter, blank or control character, and not
 * starting with '-' (it would read as an option). Anything else goes:
 * labels longer than 63 characters, '_', '+', '%', '*' (ssh resolves the
 * name with getaddrinfo, which decides). libssh refuses more (remote
 * connects such names itself, remote_session.c). */
static int valid_hostname(const char *h)
{
	if (!*h || *h == '-')
		return 0;
	for (; *h; h++)
		if (strchr("'`\"$\\;&<>|(){},", *h) ||
		    isspace((unsigned char)*h) || iscntrl((unsigned char)*h))
			return 0;
	return 1;
}

/* A user name as ssh(1) takes it (its valid_ruser(), misc.c): no control
 * character or quote, none of ";&<>|(){}" and no backquote, not starting
 * with '-', no '-' after a blank, no '\\' at the end. */
static int valid_ruser(const char *u)
{
	if (*u == '-')
		return 0;
	for (; *u; u++) {
		if (iscntrl((unsigned char)*u) || strchr("'`\";&<>|(){}", *u))
			return 0;
		if (isspace((unsigned char)*u) && u[1] == '-')
			return 0;
		if (*u == '\\' && u[1] == '\0')
			return 0;
	}
	return 1;
}

enum bf_err remote_target_check(const char *spec, char *detail,
				size_t detail_len)
{
	char *user, *host;
	int port, ok, ok_user;
	enum bf_err err;

	err = remote_target_parse(spec, &user, &host, &port, detail,
				  detail_len);
	if (err != BF_OK)
		return err;
	ok = valid_hostname(host);
	ok_user = !user || valid_ruser(user);
	free(user);
	free(host);
	if (!ok)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "host '%s': invalid host name (as ssh: no "
			       "blanks, control characters or any of "
			       "'`\"$\\;&<>|(){}, and not starting with '-')",
			       spec);
	if (!ok_user)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "host '%s': invalid user name (as ssh: no "
			       "control characters or any of '`\";&<>|(){}, "
			       "not starting with '-')", spec);
	return BF_OK;
}
