/*
 * ctl resolve: prints what ctl resolved from ssh_config for each host, the
 * settings `ctl run` connects with (remote_config.h): user, hostname, port,
 * identity files, known_hosts files, jump/proxy, timeouts, the config
 * files read, and which resolver answered (OpenSSH's `ssh -G`, or ctl's
 * own reader of the files as a fallback).
 * Nothing is contacted.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/ctl.h"
#include "remote/remote_config.h"
#include "remote/remote_target.h"
#include "schema.h"

static const char resolve_usage[] =
	"usage: ctl resolve [-F FILE] HOST...\n"
	"\n"
	"Prints, for each HOST (an ssh_config alias or [user@]host[:port]),\n"
	"what ctl run connects with: user, hostname, port, identity files,\n"
	"known_hosts files, ProxyJump/ProxyCommand, ConnectTimeout,\n"
	"ServerAlive*, the config files read (configfiles, in order), and\n"
	"the resolver: OpenSSH's own (`ssh -G`, as `ssh HOST` would use) or,\n"
	"only where no ssh client exists, ctl's own reader of the files (the\n"
	"line says so). Contacts no host.\n"
	"\n"
	"  -F FILE   ssh_config file to read instead of ~/.ssh/config and\n"
	"            /etc/ssh/ssh_config (as ssh -F)\n"
	"  --help    this text\n"
	"\n"
	"~ is $HOME. When HOME is not your passwd entry's home, ssh is given\n"
	"$HOME/.ssh/config and then /etc/ssh/ssh_config, which is what ssh\n"
	"reads for you. BF_SSH_CLIENT names the ssh client to ask (default:\n"
	"ssh on PATH; \"none\": ctl's own reader).\n"
	"\n"
	"Example:\n"
	"  ctl resolve spark me@box.lan:2222\n"
	"\n"
	"Exit status: 0 every host resolved, 2 bad arguments or a host that\n"
	"does not resolve, 4 could not write the answer (one line on stderr\n"
	"says why), 130 interrupted.\n";

/* Of the host options, -F only. */
static const struct ctl_opt resolve_opts[] = {
	[CTL_HOPT_F] = { NULL, 'F', CTL_OPT_VALUE },
};

static int resolve_exec(const struct ctl_args *a)
{
	struct ctl_host_opts ho = { 0 };
	const char *file;
	int status = BF_EXIT_OK;

	if (ctl_args_host(a, &ho))
		return BF_EXIT_USAGE;
	file = ho.ssh_config;
	if (!a->npos) {
		ctl_error("resolve: no host given");
		return BF_EXIT_USAGE;
	}
	for (int i = 0; i < a->npos; i++) {
		struct remote_config cfg;
		char *user = NULL, *host = NULL;
		char detail[1024];
		int port = 0;
		enum bf_err err;

		/* The names ctl run takes, which are ssh's (also where no
		 * ssh client is there to refuse the others). */
		err = remote_target_check(a->pos[i], detail, sizeof detail);
		if (err == BF_OK)
			err = remote_target_parse(a->pos[i], &user, &host,
						  &port, detail,
						  sizeof detail);
		if (err == BF_OK)
			err = remote_config_resolve(&cfg, host, user, port,
						    file, 30, &ctl_interrupted,
						    detail, sizeof detail);
		if (err != BF_OK) {
			ctl_error("%s", detail);
			status = err == BF_ERR_INTERRUPTED ?
				 BF_EXIT_INTERRUPTED : BF_EXIT_USAGE;
		} else {
			if (i > 0)
				putchar('\n');
			remote_config_print(&cfg, stdout);
			remote_config_clear(&cfg);
		}
		free(user);
		free(host);
		if (status == BF_EXIT_INTERRUPTED)
			break;
	}
	return status;
}

const struct ctl_command cmd_resolve_entry = {
	.name = "resolve",
	.summary = "print what ssh_config resolves hosts to (user, hostname, port, keys, known_hosts, proxy)",
	.args = { CTL_OPTS(resolve_opts), .usage = resolve_usage },
	.exec = resolve_exec,
};
