/*
 * libFuzzer target: one hosts/ JSON document as the inventory loader
 * reads it (inventory_parse: JSON, key and type checks, each host's
 * defaults through the agent option table), then resolving a command line
 * of its hosts and groups.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "run/inventory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *json = malloc(size + 1), detail[512];
	struct inventory inv;

	if (!json)
		return 0;
	memcpy(json, data, size);
	json[size] = '\0';
	memset(&inv, 0, sizeof(inv));
	if (inventory_parse(json, "fuzz.json", &inv, detail, sizeof(detail)) ==
	    BF_OK) {
		char *args[64];
		const char *names[64];
		int nargs = 0, count;

		for (int i = 0; i < inv.ngroups && nargs < 32; i++)
			args[nargs++] = inv.groups[i].name;
		for (int i = 0; i < inv.nhosts && nargs < 64; i++)
			args[nargs++] = inv.hosts[i].name;
		inventory_resolve(&inv, nargs, args, names, 64, &count, detail,
				  sizeof(detail));
	}
	inventory_free(&inv);
	free(json);
	return 0;
}
