/* The text of a JSON number as written; see json_text.h. */
#include "json_text.h"

#include <cjson/cJSON.h>
#include <string.h>

/* The index of number among the number nodes under node in document
 * order (node first, then its children in order), counting into *k; 1
 * when found. cJSON keeps an object's members, duplicates included, and
 * an array's elements in the order of the text. */
static int number_index(const cJSON *node, const cJSON *number, long *k)
{
	if (node == number)
		return cJSON_IsNumber(node);
	if (cJSON_IsNumber(node))
		(*k)++;
	for (const cJSON *c = node->child; c; c = c->next)
		if (number_index(c, number, k))
			return 1;
	return 0;
}

/* A number token's characters as cJSON's parse_number takes them. */
static int number_char(char c)
{
	return (c >= '0' && c <= '9') || c == '+' || c == '-' || c == '.' ||
	       c == 'e' || c == 'E';
}

int bf_json_number_text(const char *json, size_t len, const cJSON *root,
			const cJSON *number, char *out, size_t out_len)
{
	long k = 0, seen = 0;
	size_t i = 0;

	out[0] = '\0';
	if (!root || !number || !number_index(root, number, &k))
		return -1;
	while (i < len && json[i]) {
		char c = json[i];

		if (c == '"') { /* a string or a key: skipped, escapes too */
			for (i++; i < len && json[i] && json[i] != '"'; i++)
				if (json[i] == '\\' && i + 1 < len)
					i++;
			i++;
		} else if (c == '-' || (c >= '0' && c <= '9')) {
			size_t start = i;

			while (i < len && number_char(json[i]))
				i++;
			if (seen++ == k) {
				if (i - start + 1 > out_len)
					return -1;
				memcpy(out, json + start, i - start);
				out[i - start] = '\0';
				return 0;
			}
		} else {
			i++; /* structure, whitespace, true, false, null */
		}
	}
	return -1;
}
