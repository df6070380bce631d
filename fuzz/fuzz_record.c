/*
 * libFuzzer target: one line of agent output as ctl reads it
 * (bf_record_parse: bf_schema_parse_record's validation, then
 * bf_record_decode), and a record that parses encoded and printed again
 * as the agent would (bf_record_encode, bf_json_exact_numbers).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), detail[256];
	struct bf_record rec;

	if (!line)
		return 0;
	memcpy(line, data, size);
	line[size] = '\0';
	if (bf_record_parse(line, size, &rec, detail, sizeof(detail)) == BF_OK) {
		cJSON *j = bf_record_encode(&rec);

		if (j) {
			char *text;

			bf_json_exact_numbers(j);
			text = cJSON_PrintUnformatted(j);
			free(text);
			cJSON_Delete(j);
		}
	}
	bf_record_free(&rec);
	free(line);
	return 0;
}
