/*
 * libFuzzer target: an SSH target "[user@]host[:port]" as ctl run reads
 * it from the command line or hosts/ (remote_target_parse,
 * remote_target_check).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "remote/remote_target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = malloc(size + 1), *user, *host, detail[256];
	int port;

	if (!spec)
		return 0;
	memcpy(spec, data, size);
	spec[size] = '\0';
	if (remote_target_parse(spec, &user, &host, &port, detail,
				sizeof(detail)) == BF_OK) {
		if (!host || !*host || port < 0 || port > 65535)
			abort(); /* the contract of remote_target_parse */
		free(user);
		free(host);
	}
	(void)remote_target_check(spec, detail, sizeof(detail));
	free(spec);
	return 0;
}
