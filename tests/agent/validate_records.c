/*
 * validate_records: reads agent output on stdin and runs every line
 * through bf_record_parse(), the reader ctl uses (its validation against
 * docs/schema.json and the rules that join fields, then the decoder).
 * Prints one line per
 * rejected record ("line N: <error>: <detail>") and a final count; exits 0
 * when every line was accepted and there was at least one, 1 otherwise.
 * Used by tests/agent to check that what the agent writes is what the
 * reader accepts.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "record.h"
#include "schema.h"

int main(void)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	long n = 0, bad = 0;

	while ((len = getline(&line, &cap, stdin)) >= 0) {
		char detail[256] = "";
		struct bf_record rec;
		enum bf_err err;

		n++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		err = bf_record_parse(line, (size_t)len, &rec, detail,
				      sizeof(detail));
		if (err != BF_OK) {
			printf("line %ld: %s: %s\n", n, bf_err_str(err), detail);
			bad++;
		}
		bf_record_free(&rec);
	}
	free(line);
	printf("%ld records, %ld rejected\n", n, bad);
	return (n > 0 && bad == 0) ? 0 : 1;
}
