/*
 * validate_records: reads agent output on stdin and runs every line
 * through bf_schema_parse_record(), the reader ctl uses. Prints one line per
 * rejected record ("line N: <error>: <detail>") and a final count; exits 0
 * when every line was accepted and there was at least one, 1 otherwise.
 * Used by tests/agent to check that what the agent writes is what the
 * reader accepts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "schema.h"

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long n = 0, bad = 0;

	while ((len = getline(&line, &cap, stdin)) >= 0) {
		enum bf_record_type type;
		char detail[256] = "";
		cJSON *rec = NULL;
		enum bf_err err;

		n++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		err = bf_schema_parse_record(line, (size_t)len, &rec, &type,
					  detail, sizeof(detail));
		if (err != BF_OK) {
			printf("line %ld: %s: %s\n", n, bf_err_str(err), detail);
			bad++;
		}
		cJSON_Delete(rec);
	}
	free(line);
	printf("%ld records, %ld rejected\n", n, bad);
	return (n > 0 && bad == 0) ? 0 : 1;
}
