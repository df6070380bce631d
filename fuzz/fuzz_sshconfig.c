/*
 * libFuzzer target: an ssh_config file as ctl's own reader reads it
 * where no ssh client exists (remote_config_read,
 * controller/remote/remote_config_file.c), its result through
 * remote_config_parse_g (controller/remote/remote_config.c) as ctl then
 * reads it, and the input itself as `ssh -G` output (remote_config_parse_g,
 * which reads what OpenSSH's ssh -G printed).
 *
 * The input is the -F file; after a line "----" comes the file "inc" in
 * the private ~/.ssh (fuzz_files.h), which "Include inc" (or a pattern
 * matching it) reads. An input with both "include" (any case) and a '/'
 * is skipped: an Include of an absolute path could read any file of this
 * machine (a FIFO, /dev/zero), which is the user's own choice in a real
 * ssh_config and no fault of the reader.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "fuzz_files.h"
#include "remote/remote_config.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Whether s (NUL-terminated) has "include" in any case. */
static int has_include(const char *s)
{
	for (; *s; s++)
		if (strncasecmp(s, "include", 7) == 0)
			return 1;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	char *in = malloc(size + 1), *sep, *text = NULL, detail[512];
	char conf[4200];
	struct remote_strv files = { 0 };
	struct remote_config cfg;
	size_t main_len = size;
	enum bf_err e;

	if (!in)
		return 0;
	memcpy(in, data, size);
	in[size] = '\0';
	if (strchr(in, '/') && has_include(in)) {
		free(in);
		return 0;
	}
	if (!devnull && !(devnull = fopen("/dev/null", "w")))
		abort();

	/* As ssh -G output. */
	if (remote_config_parse_g(&cfg, "fuzzhost", in, fuzz_dir(), detail,
				  sizeof detail) == BF_OK)
		remote_config_print(&cfg, devnull);
	remote_config_clear(&cfg);

	/* As an ssh_config file, with its Include file. */
	sep = strncmp(in, "----\n", 5) == 0 ? in : strstr(in, "\n----\n");
	if (sep)
		main_len = (size_t)(sep - in) + (sep == in ? 0 : 1);
	fuzz_write(".ssh/inc", sep ? sep + (sep == in ? 5 : 6) : "",
		   sep ? strlen(sep + (sep == in ? 5 : 6)) : 0);
	snprintf(conf, sizeof conf, "%s", fuzz_write("config", in, main_len));
	e = remote_config_read("fuzzhost", NULL, 0, conf, fuzz_dir(), &text,
			       &files, detail, sizeof detail);
	if (e == BF_OK) {
		/* The reader's text is ssh -G's form: it always names a
		 * hostname, a user and a valid port. */
		e = remote_config_parse_g(&cfg, "fuzzhost", text, fuzz_dir(),
					  detail, sizeof detail);
		if (e != BF_OK && e != BF_ERR_NOMEM) {
			fprintf(stderr, "parse_g refused the reader's text: "
				"%s\n%s", detail, text);
			abort();
		}
		if (e == BF_OK)
			remote_config_print(&cfg, devnull);
		remote_config_clear(&cfg);
		for (size_t i = 0; i < files.n; i++)
			free(files.v[i]);
		free(files.v);
	}
	free(text);
	free(in);
	return 0;
}
