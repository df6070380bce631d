/*
 * The text of a JSON number as it was written. cJSON keeps only the
 * double it read, so a number beyond what a double holds exactly
 * (9007199254740993, above 2^53) or at all (1e400) would be shown as the
 * value it was rounded to (9007199254740992, inf): an error message then
 * names a value nobody wrote. This finds the number's token in the text
 * cJSON parsed, so the message can quote it.
 */
#ifndef BF_JSON_TEXT_H
#define BF_JSON_TEXT_H

#include <stddef.h>

struct cJSON;

/*
 * Copies the source token of number, a number node of the tree root that
 * cJSON parsed from json (len bytes; NUL-terminated or not), into out
 * (out_len > 0 bytes, always NUL-terminated): "9007199254740993" for the
 * node that reads 9007199254740992. Numbers are matched by position, the
 * k-th number node of root in document order being the k-th number token
 * of json (outside strings). Returns 0, or -1 with out "" when number is
 * not a number node of root, json holds fewer number tokens (it is not
 * the text root came from), or the token does not fit in out.
 */
int bf_json_number_text(const char *json, size_t len, const struct cJSON *root,
			const struct cJSON *number, char *out, size_t out_len);

#endif
