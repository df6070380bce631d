/*
 * remote_negotiate: what a failed algorithm negotiation means to the
 * user. libssh 0.10 words it as "kex error : no match for method kex
 * algos: server [LIST], client [LIST]" (src/kex.c,
 * ssh_kex_select_methods); that names neither the remedy nor, once cut to
 * fit a host's reason, the lists. The usual case is a server that allows
 * only key exchanges libssh 0.10 lacks: OpenSSH 9.x offers
 * sntrup761x25519-sha512@openssh.com first, and a hardened sshd_config
 * may allow nothing else; libssh has it from 0.12 (src/kex.c of
 * libssh-0.12.0, with mlkem768x25519-sha256).
 *
 * A ProxyJump or ProxyCommand does not help: it only carries the bytes,
 * and the key exchange is still between libssh and this server. So the
 * remedy named is the server's sshd_config (or another libssh).
 */
#include "remote/remote_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* libssh's names for the methods (kex.c ssh_kex_descriptions) and the
 * sshd_config keyword that sets each on the server (sshd_config(5)). */
static const struct {
	const char *libssh, *what, *keyword;
} methods[] = {
	{ "kex algos", "key exchange", "KexAlgorithms" },
	{ "server host key algo", "host key algorithm",
	  "HostKeyAlgorithms" },
	{ "encryption client->server", "cipher", "Ciphers" },
	{ "encryption server->client", "cipher", "Ciphers" },
	{ "mac algo client->server", "MAC", "MACs" },
	{ "mac algo server->client", "MAC", "MACs" },
};

/* Names in a KEXINIT list that are signals, not algorithms (RFC 8308
 * ext-info, OpenSSH's PROTOCOL "strict kex"). */
static int is_marker(const char *name, size_t len)
{
	static const char *const markers[] = { "ext-info-c", "ext-info-s",
		"kex-strict-c-v00@openssh.com",
		"kex-strict-s-v00@openssh.com", NULL };

	for (int i = 0; markers[i]; i++)
		if (strlen(markers[i]) == len &&
		    strncmp(markers[i], name, len) == 0)
			return 1;
	return 0;
}

/* The list between "[" at p and its "]", markers left out, names joined
 * by ", ", whole, into *out (a new string; caller frees; NULL when there
 * is no list). Returns the character after "]", or NULL. */
static const char *copy_list(const char *p, char **out)
{
	const char *end = strchr(p, ']');
	size_t len = 0, size;

	*out = NULL;
	if (*p != '[' || !end)
		return NULL;
	/* Each name gains at most ", " for its one-byte ',': twice the
	 * list is room for all. */
	size = 2 * (size_t)(end - p) + 1;
	*out = bf_xmalloc(size);
	(*out)[0] = '\0';
	for (p++; p < end;) {
		size_t n = strcspn(p, ",]");

		if (n && !is_marker(p, n)) {
			memcpy(*out + len, ", ", len ? 2 : 0);
			len += len ? 2 : 0;
			memcpy(*out + len, p, n);
			len += n;
			(*out)[len] = '\0';
		}
		p += n;
		if (*p == ',')
			p++;
	}
	return end + 1;
}

int remote_negotiation_explain(const char *msg, const char *name,
			       const char *addr, char *out, size_t size)
{
	static const char head[] = "no match for method ";
	const char *p = strstr(msg, head), *what = NULL, *keyword = NULL;
	char *server = NULL, *client = NULL, first[128], newer[160] = "";
	char version[32];
	size_t k;
	int explained = 0;

	if (!p)
		return 0;
	p += sizeof head - 1;
	for (k = 0; k < sizeof methods / sizeof methods[0]; k++) {
		size_t n = strlen(methods[k].libssh);

		if (strncmp(p, methods[k].libssh, n) == 0 && p[n] == ':') {
			what = methods[k].what;
			keyword = methods[k].keyword;
			p += n + 1;
			break;
		}
	}
	if (!what || !(p = strstr(p, "server ")) ||
	    !(p = copy_list(p + 7, &server)) ||
	    !(p = strstr(p, "client ")) || !copy_list(p + 7, &client))
		goto out;
	/* "0.10.6/openssl/zlib": the version is what the user needs. */
	/* fits: libssh's version number ("0.10.6"), version 32 */
	snprintf(version, sizeof version, "%.*s",
		 (int)strcspn(ssh_version(0), "/"), ssh_version(0));
	/* The first of libssh's own algorithms, as a sshd_config word:
	 * a cut one would name another, so none then. */
	if (snprintf(first, sizeof first, "%.*s", (int)strcspn(client, ","),
		     client) >= (int)sizeof first)
		first[0] = '\0';
	if (strstr(server, "sntrup761x25519-sha512") ||
	    strstr(server, "mlkem768x25519-sha256"))
		snprintf(newer, sizeof newer, ", or run ctl with libssh 0.12 "
			 "or later, which has the server's");
	/* The reason itself: cut only by out's size, ending in "...". */
	(void)bf_fail(out, size, BF_ERR_CONNECT,
		      "connect %s (%s): no %s in common with the server: it "
		      "offers only %s; allow one that libssh %s has on the "
		      "host (sshd_config: %s +%s)%s (a ProxyJump or "
		      "ProxyCommand does not help: the %s is with this "
		      "server); libssh %s has: %s", name, addr, what,
		      server[0] ? server : "nothing", version, keyword, first,
		      newer, what, version, client);
	explained = 1;
out:
	free(server);
	free(client);
	return explained;
}
