/*
 * remote_config: what ssh_config says about one target, resolved the way
 * OpenSSH resolves it. Where an OpenSSH client exists, OpenSSH itself is
 * asked: `ssh -G -v [-F FILE] [-l USER] [-p PORT] -- HOST` prints the
 * final options after every Host/Match block, Include and default (it
 * does not touch the network), and remote_config_parse_g reads those
 * "key value" lines; its "Reading configuration data FILE" lines (-v)
 * say which files were read. Only without an ssh client does ctl read the
 * files itself (remote_config_file.c), and the result says so.
 *
 * "~" and the ~/.ssh directory are $HOME's when HOME is set, else the
 * passwd entry's (remote_ssh.h). OpenSSH reads the passwd entry's
 * ~/.ssh/config only; when HOME differs and no file is given, ssh gets
 * as -F a temporary file that includes $HOME/.ssh/config, then
 * /etc/ssh/ssh_config, which is what ssh reads for the user (a bare -F
 * $HOME/.ssh/config would skip the system file: Debian's HashKnownHosts
 * yes and hosts defined system-wide), and default paths ssh reports under
 * the passwd home's .ssh are moved under $HOME's.
 */
#ifndef REMOTE_CONFIG_H
#define REMOTE_CONFIG_H

#include <stdatomic.h>
#include <stddef.h>

#include "bf_error.h"

/* The environment variable naming the ssh client to ask (default "ssh" on
 * PATH); "none": ctl reads the files itself (remote_config_file.c). */
#define REMOTE_SSH_CLIENT_ENV "BF_SSH_CLIENT"

struct remote_strv {
	char **v;
	size_t n;
};

struct remote_config {
	char *alias;            /* the host as given, before HostName */
	char *hostname;         /* where to connect */
	char *user;
	int port;
	struct remote_strv identity_files;   /* expanded, in order */
	/* Non-zero: identity_files are ssh's defaults (~/.ssh/id_rsa, ...),
	 * no IdentityFile was set; a missing one is then no error. */
	int identity_files_default;
	int identities_only;
	char *identity_agent;   /* NULL: $SSH_AUTH_SOCK; "none": no agent */
	struct remote_strv user_known_hosts; /* expanded; first is written */
	struct remote_strv global_known_hosts;
	int hash_known_hosts;
	char *host_key_alias;   /* NULL: none */
	char *proxy_jump;       /* NULL: none */
	char *proxy_command;    /* NULL: none; %-tokens expanded */
	/* RemoteCommand as ssh -G printed it; NULL: none. ctl sends its own
	 * commands, so a host with one is refused (remote_connect), as ssh
	 * refuses one beside a command ("Cannot execute command-line and
	 * remote command."). */
	char *remote_command;
	int connect_timeout_s;  /* 0: none */
	int server_alive_interval_s;  /* 0: off */
	int server_alive_count_max;
	char *strict_host_key_checking;  /* "yes", "no", "ask", "accept-new" */
	int batch_mode;
	char *config_file;      /* the -F file given, NULL: the defaults */
	/* The files read, in order (those that exist, Include'd ones
	 * too): ssh -G -v's "Reading configuration data" lines. */
	struct remote_strv config_files;
	/* What a ProxyJump's ssh gets as -F: config_file, the temporary
	 * file above (removed by remote_config_clear), or NULL. */
	char *ssh_file;
	int ssh_file_is_temp;
	/* "ssh -G (OpenSSH_9.2p1 ...)" or "ctl's ssh_config reader (...)" */
	char *resolver;
};

/*
 * Resolves target (an alias or host, with user and port from
 * "[user@]host[:port]" already split off: user NULL and port 0 when not
 * given; they win over the config as ssh -l / -p do) with ssh_config file
 * ssh_config (NULL: the defaults above). Runs the ssh client for at most
 * timeout_s seconds, stopping early when *cancel is set (cancel may be
 * NULL).
 *
 * On BF_OK *cfg is filled (free with remote_config_clear). Errors:
 * BF_ERR_USAGE (ssh rejects the host name or the config; detail has ssh's
 * words), BF_ERR_NOT_FOUND (ssh_config missing), BF_ERR_PARSE,
 * BF_ERR_TIMEOUT, BF_ERR_INTERRUPTED, BF_ERR_NOMEM.
 */
enum bf_err remote_config_resolve(struct remote_config *cfg,
				  const char *target, const char *user,
				  int port, const char *ssh_config,
				  int timeout_s, const atomic_int *cancel,
				  char *detail, size_t detail_len);

/* Fills cfg from the text `ssh -G` printed (NUL-terminated), expanding
 * "~" and the %-tokens ssh -G leaves in identityfile, userknownhostsfile
 * and proxycommand. alias is the host as given. home is "~". Pure; for
 * tests. BF_ERR_PARSE when hostname, user or port is missing. */
enum bf_err remote_config_parse_g(struct remote_config *cfg,
				  const char *alias, const char *text,
				  const char *home, char *detail,
				  size_t detail_len);

/* Expands OpenSSH's %-tokens (%% %h %p %r %n %d %u %l %L %i %k) and a
 * leading "~" in s for cfg (hostname, port, user, alias must be set).
 * Returns a new string (caller frees) or NULL on out-of-memory. */
char *remote_config_expand(const struct remote_config *cfg, const char *s,
			   const char *home);

/* Prints cfg as "key value" lines (the `ctl resolve` format). */
void remote_config_print(const struct remote_config *cfg, void *file);

/* ctl's own ssh_config reader (remote_config_file.c), for where no ssh
 * client exists: reads ssh_config (NULL: home's .ssh/config, then
 * /etc/ssh/ssh_config) for target as OpenSSH 9.2 would, with user and
 * port winning when given (NULL, 0: not given); home is "~". On BF_OK
 * *text is what `ssh -G` would print for the keywords ctl uses (for
 * remote_config_parse_g; caller frees) and *files the files read, in
 * order (caller frees each and the array). Errors: BF_ERR_PARSE (a line
 * it cannot read, "Match exec"; file and line in detail),
 * BF_ERR_NOT_FOUND (ssh_config missing), BF_ERR_IO, BF_ERR_NOMEM. */
enum bf_err remote_config_read(const char *target, const char *user, int port,
			       const char *ssh_config, const char *home,
			       char **text, struct remote_strv *files,
			       char *detail, size_t detail_len);

/* Frees what cfg holds and zeroes it. */
void remote_config_clear(struct remote_config *cfg);

/* "~" in the sense above into buf: 0, or -1 when there is no home. */
int remote_home_dir(char *buf, size_t size);

#endif
