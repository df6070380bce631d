/*
 * The records' one schema: docs/schema.json (JSON Schema, draft 2020-12),
 * built into the reader, so that what ctl refuses as malformed is what
 * the JSON Schema refuses (tests/agent/test_schema_json.py mutates real
 * records field by field and holds the two to the same answer). It
 * interprets the keywords that file uses: type, enum, const, pattern,
 * minimum, maximum, exclusiveMinimum, minLength, required, properties,
 * additionalProperties, dependentRequired, items, $ref (to #/$defs/...),
 * allOf, if/then/else, oneOf, and boolean schemas; annotations
 * ($schema, $id, title, description) are ignored, an unknown keyword
 * too (as JSON Schema says).
 *
 * Beyond what JSON Schema can say, the reader holds every number to be
 * finite: "1e400" is JSON no double holds (cJSON reads it as inf), and
 * schema.c adds the rules that join two fields (bf_schema_parse_record).
 */
#ifndef BF_SCHEMA_JSON_H
#define BF_SCHEMA_JSON_H

#include <stddef.h>

struct cJSON;

/*
 * Checks rec, a record object parsed from line (len bytes) whose "type"
 * is the name type, against docs/schema.json: the record's envelope
 * (the root's required keys and properties) and the $defs entry of that
 * name (the root's oneOf picks it by type, each entry's "type" being a
 * const). Returns 0, or -1 with one line in detail naming the record
 * type, the field by its path and the value as the line wrote it:
 *   gemm record: field "n" is 1e300: expected an integer from 1 to 65536
 *   host record: field "options.sizes"[1] is 0: expected an integer ...
 *   gemm record: field "reason" is missing
 *   gemm record: field "dtype" is "fp8": expected one of fp32, fp16, ...
 * Thread-safe: the schema is parsed once, on first use. An embedded
 * schema that does not parse (a broken build) refuses every record,
 * saying so.
 */
int bf_schema_json_check(const struct cJSON *rec, const char *type,
			 const char *line, size_t len, char *detail,
			 size_t detail_len);

/* The schema's text as built in (docs/schema.json), its bytes and a
 * NUL; static. */
extern const unsigned char bf_schema_json_text[];

#endif
