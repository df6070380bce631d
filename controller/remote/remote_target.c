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

/* A host name OpenSSH and libssh would take: letters, digits and ".-_:%"
 * (an IPv6 address, a zone), not starting with '-' (it would read as an
 * option); a name (no ':') in dot-separated labels of 1 to 63 characters,
 * as DNS has them (RFC 1035 2.3.4) and libssh's ssh_options_set checks
 * (it refuses a longer one without a message). */
static int valid_hostname(const char *h)
{
	int ipv6 = strchr(h, ':') != NULL;
	size_t label = 0;

	if (!*h || *h == '-')
		return 0;
	for (; *h; h++) {
		if (!isalnum((unsigned char)*h) && !strchr(".-_:%", *h))
			return 0;
		label = *h == '.' ? 0 : label + 1;
		if (!ipv6 && (label > 63 || (*h == '.' && h[1] == '.')))
			return 0;
	}
	return 1;
}

enum bf_err remote_target_check(const char *spec, char *detail,
				size_t detail_len)
{
	char *user, *host;
	int port, ok;
	enum bf_err err;

	err = remote_target_parse(spec, &user, &host, &port, detail,
				  detail_len);
	if (err != BF_OK)
		return err;
	ok = valid_hostname(host);
	free(user);
	free(host);
	if (!ok)
		return bf_fail(detail, detail_len, BF_ERR_USAGE,
			       "host '%s': invalid host name (letters, digits, "
			       "'.', '-', '_' and ':' only, not starting with "
			       "'-', at most 63 between dots)", spec);
	return BF_OK;
}
