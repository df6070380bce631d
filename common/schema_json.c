/*
 * docs/schema.json as the reader's rules: a small interpreter of the
 * JSON Schema keywords that file uses (see schema_json.h). Semantics
 * follow JSON Schema draft 2020-12 (json-schema.org, "JSON Schema
 * Validation", sections 6.1-6.5; "JSON Schema Core", 10.2 and 10.3),
 * as python3-jsonschema implements them: "integer" is any number with no
 * fraction (1.0 is one), a boolean is no number, "pattern" matches
 * anywhere unless anchored.
 */
#include "schema_json.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "json_text.h"

/* The parsed schema (never freed: it lives as long as the process). */
static cJSON *schema;
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

static void schema_load(void)
{
	schema = cJSON_Parse((const char *)bf_schema_json_text);
}

struct vctx {
	const cJSON *defs;   /* the schema's $defs */
	const char *type;    /* the record's type name, for messages */
	const char *line;    /* the record's text, for numbers as written */
	size_t len;
	const cJSON *rec;    /* the record, root of the numbers' count */
	char *detail;
	size_t detail_len;
	int quiet;           /* inside "if" or "oneOf": no message */
};

static int validate(struct vctx *c, const cJSON *s, const cJSON *v,
		    const char *path, int skip_one_of);

/* Says why v at path fails (unless quiet) and returns -1. */
static int fail(struct vctx *c, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct vctx *c, const char *path, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (c->quiet || !c->detail_len)
		return -1;
	n = snprintf(c->detail, c->detail_len, "%s record: field \"%s\" ",
		     c->type, path);
	if (n >= 0 && (size_t)n < c->detail_len) {
		va_start(ap, fmt);
		vsnprintf(c->detail + n, c->detail_len - (size_t)n, fmt, ap);
		va_end(ap);
	}
	return -1;
}

/* v as the record wrote it: a number's own token, a string quoted (its
 * first 40 bytes), else what it is. */
static const char *describe(const struct vctx *c, const cJSON *v, char *out,
			    size_t len)
{
	if (cJSON_IsNumber(v)) {
		if (bf_json_number_text(c->line, c->len, c->rec, v, out,
					len) != 0)
			snprintf(out, len, "%.17g", v->valuedouble);
	} else if (cJSON_IsString(v)) {
		snprintf(out, len, "\"%.40s%s\"", v->valuestring,
			 strlen(v->valuestring) > 40 ? "..." : "");
	} else if (cJSON_IsNull(v)) {
		snprintf(out, len, "null");
	} else if (cJSON_IsBool(v)) {
		snprintf(out, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
	} else {
		snprintf(out, len, "%s", cJSON_IsArray(v) ? "an array" :
					 "an object");
	}
	return out;
}

static int is_integer(const cJSON *v)
{
	return cJSON_IsNumber(v) && isfinite(v->valuedouble) &&
	       v->valuedouble == floor(v->valuedouble);
}

/* Whether v is of the JSON Schema type named t. */
static int type_is(const cJSON *v, const char *t)
{
	if (strcmp(t, "null") == 0)
		return cJSON_IsNull(v);
	if (strcmp(t, "boolean") == 0)
		return cJSON_IsBool(v);
	if (strcmp(t, "object") == 0)
		return cJSON_IsObject(v);
	if (strcmp(t, "array") == 0)
		return cJSON_IsArray(v);
	if (strcmp(t, "string") == 0)
		return cJSON_IsString(v);
	if (strcmp(t, "number") == 0)
		return cJSON_IsNumber(v);
	if (strcmp(t, "integer") == 0)
		return is_integer(v);
	return 0;
}

/* "a string", "an integer or null", ... for the "type" keyword t. */
static void type_words(const cJSON *t, char *out, size_t len)
{
	const char *names[8];
	const cJSON *e;
	size_t used = 0;
	int n = 0;

	if (cJSON_IsString(t))
		names[n++] = t->valuestring;
	cJSON_ArrayForEach(e, (cJSON_IsArray(t) ? t : NULL))
		if (cJSON_IsString(e) && n < 8)
			names[n++] = e->valuestring;
	out[0] = '\0';
	for (int i = 0; i < n && used < len; i++) {
		static const char *const words[][2] = {
			{ "integer", "an integer" }, { "object", "an object" },
			{ "array", "an array" }, { "boolean", "true or false" },
			{ "string", "a string" }, { "number", "a number" },
		};
		const char *word = names[i], *sep = i == 0 ? "" :
						    i + 1 == n ? " or " : ", ";
		int k;

		for (size_t w = 0; w < sizeof(words) / sizeof(words[0]); w++)
			if (strcmp(names[i], words[w][0]) == 0)
				word = words[w][1];
		k = snprintf(out + used, len - used, "%s%s", sep, word);

		if (k < 0)
			break;
		used += (size_t)k;
	}
}

static const cJSON *get(const cJSON *o, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(o, key);
}

static int type_has(const cJSON *t, const char *name)
{
	const cJSON *e;

	if (cJSON_IsString(t))
		return strcmp(t->valuestring, name) == 0;
	cJSON_ArrayForEach(e, t)
		if (cJSON_IsString(e) && strcmp(e->valuestring, name) == 0)
			return 1;
	return 0;
}

/* The range a number must be in, in words: "an integer from 1 to
 * 65536", "a number above 0", ... */
static void range_words(const cJSON *s, char *out, size_t len)
{
	const cJSON *lo = get(s, "minimum"), *hi = get(s, "maximum");
	const cJSON *xlo = get(s, "exclusiveMinimum");
	const char *what = type_has(get(s, "type"), "integer") &&
				   !type_has(get(s, "type"), "number") ?
			   "an integer" : "a number";
	char a[40] = "", b[40] = "";

	if (cJSON_IsNumber(lo))
		snprintf(a, sizeof(a), "%.17g", lo->valuedouble);
	if (cJSON_IsNumber(xlo))
		snprintf(a, sizeof(a), "%.17g", xlo->valuedouble);
	if (cJSON_IsNumber(hi))
		snprintf(b, sizeof(b), "%.17g", hi->valuedouble);
	if (cJSON_IsNumber(xlo))
		snprintf(out, len, "%s above %s%s%s", what, a,
			 *b ? " and at most " : "", b);
	else if (*a && *b)
		snprintf(out, len, "%s from %s to %s", what, a, b);
	else if (*a)
		snprintf(out, len, "%s of at least %s", what, a);
	else if (*b)
		snprintf(out, len, "%s of at most %s", what, b);
	else
		snprintf(out, len, "%s", what);
}

static int has_range(const cJSON *s)
{
	return get(s, "minimum") || get(s, "maximum") ||
	       get(s, "exclusiveMinimum");
}

/* Whether a and b are the same JSON value (enum, const): numbers by
 * value, strings by bytes, true, false and null by kind. */
static int json_equal(const cJSON *a, const cJSON *b)
{
	if (cJSON_IsNumber(a) && cJSON_IsNumber(b))
		return a->valuedouble == b->valuedouble;
	return cJSON_Compare(a, b, 1);
}

static int check_enum(struct vctx *c, const cJSON *e, const cJSON *v,
		      const char *path)
{
	char got[96], list[256] = "";
	const cJSON *x;
	size_t used = 0;

	cJSON_ArrayForEach(x, e)
		if (json_equal(x, v))
			return 0;
	cJSON_ArrayForEach(x, e) {
		char one[64];
		const char *word = cJSON_IsString(x) ?
					   x->valuestring :
					   describe(c, x, one, sizeof(one));
		int k = snprintf(list + used, sizeof(list) - used, "%s%s",
				 used ? ", " : "", word);

		if (k < 0 || (size_t)k >= sizeof(list) - used)
			break;
		used += (size_t)k;
	}
	return fail(c, path, "is %s: expected one of %s",
		    describe(c, v, got, sizeof(got)), list);
}

static int check_number(struct vctx *c, const cJSON *s, const cJSON *v,
			const char *path)
{
	const cJSON *lo = get(s, "minimum"), *hi = get(s, "maximum");
	const cJSON *xlo = get(s, "exclusiveMinimum");
	double x = v->valuedouble;
	char got[64], range[128];

	if ((cJSON_IsNumber(lo) && !(x >= lo->valuedouble)) ||
	    (cJSON_IsNumber(hi) && !(x <= hi->valuedouble)) ||
	    (cJSON_IsNumber(xlo) && !(x > xlo->valuedouble))) {
		range_words(s, range, sizeof(range));
		return fail(c, path, "is %s: expected %s",
			    describe(c, v, got, sizeof(got)), range);
	}
	return 0;
}

static int check_pattern(struct vctx *c, const cJSON *p, const cJSON *v,
			 const char *path)
{
	regex_t re;
	int rc;
	char got[96];

	/* The schema's patterns are POSIX extended expressions too
	 * (anchors, groups, alternation, bracket classes). */
	if (regcomp(&re, p->valuestring, REG_EXTENDED | REG_NOSUB) != 0)
		return fail(c, path, "cannot be checked: pattern %s does not compile",
			    p->valuestring);
	rc = regexec(&re, v->valuestring, 0, NULL, 0);
	regfree(&re);
	if (rc == 0)
		return 0;
	return fail(c, path, "is %s: expected a match of %s",
		    describe(c, v, got, sizeof(got)), p->valuestring);
}

/* Code points in s (UTF-8; the reader took it from cJSON, which keeps
 * bytes as given). */
static size_t utf8_length(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void child_path(char *out, size_t len, const char *path,
		       const char *key)
{
	snprintf(out, len, "%s%s%s", path, *path ? "." : "", key);
}

static int check_object(struct vctx *c, const cJSON *s, const cJSON *v,
			const char *path)
{
	const cJSON *req = get(s, "required"), *props = get(s, "properties");
	const cJSON *more = get(s, "additionalProperties");
	const cJSON *dep = get(s, "dependentRequired"), *k, *e;
	char sub[256];

	cJSON_ArrayForEach(k, req)
		if (cJSON_IsString(k) && !get(v, k->valuestring)) {
			child_path(sub, sizeof(sub), path, k->valuestring);
			return fail(c, sub, "is missing");
		}
	cJSON_ArrayForEach(e, v) {
		const cJSON *ps =
			cJSON_IsObject(props) ? get(props, e->string) : NULL;

		child_path(sub, sizeof(sub), path, e->string);
		if (ps && validate(c, ps, e, sub, 0) < 0)
			return -1;
		if (!ps && more && validate(c, more, e, sub, 0) < 0)
			return -1;
	}
	cJSON_ArrayForEach(k, dep) {
		if (!get(v, k->string))
			continue;
		cJSON_ArrayForEach(e, k)
			if (cJSON_IsString(e) && !get(v, e->valuestring)) {
				child_path(sub, sizeof(sub), path,
					   e->valuestring);
				return fail(c, sub, "is missing (\"%s\" is given)",
					    k->string);
			}
	}
	return 0;
}

/* Validates v against s; with skip_one_of, s's "oneOf" is left out (the
 * root's, which the caller resolves by the record's type). */
static int validate(struct vctx *c, const cJSON *s, const cJSON *v,
		    const char *path, int skip_one_of)
{
	const cJSON *t, *k;
	char got[96], words[128];

	if (cJSON_IsBool(s))
		return cJSON_IsTrue(s) ? 0 :
			fail(c, path, "is %s: not allowed here",
			     describe(c, v, got, sizeof(got)));
	if (!cJSON_IsObject(s))
		return 0;
	k = get(s, "$ref");
	if (cJSON_IsString(k)) {
		const char *name = strncmp(k->valuestring, "#/$defs/", 8) == 0 ?
					   k->valuestring + 8 : NULL;
		const cJSON *target = name ? get(c->defs, name) : NULL;

		if (!target)
			return fail(c, path, "cannot be checked: no %s in the schema",
				    k->valuestring);
		if (validate(c, target, v, path, 0) < 0)
			return -1;
	}
	t = get(s, "type");
	if (t) {
		int ok = 0;

		if (cJSON_IsString(t))
			ok = type_is(v, t->valuestring);
		cJSON_ArrayForEach(k, (cJSON_IsArray(t) ? t : NULL))
			ok |= cJSON_IsString(k) && type_is(v, k->valuestring);
		if (!ok && cJSON_IsNumber(v) && type_has(t, "integer") &&
		    has_range(s)) {
			range_words(s, words, sizeof(words));
			return fail(c, path, "is %s: expected %s",
				    describe(c, v, got, sizeof(got)), words);
		}
		if (!ok) {
			type_words(t, words, sizeof(words));
			return fail(c, path, "has the wrong type: %s, expected %s",
				    describe(c, v, got, sizeof(got)), words);
		}
	}
	k = get(s, "enum");
	if (cJSON_IsArray(k) && check_enum(c, k, v, path) < 0)
		return -1;
	k = get(s, "const");
	if (k && !json_equal(k, v)) {
		char want[64];

		return fail(c, path, "is %s: expected %s",
			    describe(c, v, got, sizeof(got)),
			    describe(c, k, want, sizeof(want)));
	}
	if (cJSON_IsNumber(v) && check_number(c, s, v, path) < 0)
		return -1;
	if (cJSON_IsString(v)) {
		k = get(s, "pattern");
		if (cJSON_IsString(k) && check_pattern(c, k, v, path) < 0)
			return -1;
		k = get(s, "minLength");
		if (cJSON_IsNumber(k) &&
		    (double)utf8_length(v->valuestring) < k->valuedouble)
			return fail(c, path, "is %s: expected at least %.17g characters",
				    describe(c, v, got, sizeof(got)),
				    k->valuedouble);
	}
	if (cJSON_IsObject(v) && check_object(c, s, v, path) < 0)
		return -1;
	k = get(s, "items");
	if (k && cJSON_IsArray(v)) {
		const cJSON *e;
		int i = 0;

		cJSON_ArrayForEach(e, v) {
			char sub[256];

			snprintf(sub, sizeof(sub), "%s[%d]", path, i++);
			if (validate(c, k, e, sub, 0) < 0)
				return -1;
		}
	}
	cJSON_ArrayForEach(k, get(s, "allOf"))
		if (validate(c, k, v, path, 0) < 0)
			return -1;
	k = get(s, "if");
	if (k) {
		int quiet = c->quiet, holds;

		c->quiet = 1;
		holds = validate(c, k, v, path, 0) == 0;
		c->quiet = quiet;
		k = get(s, holds ? "then" : "else");
		if (k && validate(c, k, v, path, 0) < 0)
			return -1;
	}
	k = get(s, "oneOf");
	if (k && !skip_one_of) {
		const cJSON *alt;
		int quiet = c->quiet, matched = 0;

		c->quiet = 1;
		cJSON_ArrayForEach(alt, k)
			matched += validate(c, alt, v, path, 0) == 0;
		c->quiet = quiet;
		if (matched != 1)
			return fail(c, path, "matches %d of its %d alternatives: expected one",
				    matched, cJSON_GetArraySize(k));
	}
	return 0;
}

/* The first number under v (at path) that no double holds, 1e400 read
 * as inf: -1 with it said, else 0. JSON Schema has no word for it (a
 * Python reader takes inf for a number); this reader refuses it. */
static int check_finite(struct vctx *c, const cJSON *v, const char *path)
{
	const cJSON *e;
	const cJSON *children = cJSON_IsArray(v) || cJSON_IsObject(v) ? v :
									 NULL;
	char got[64];
	int i = 0;

	if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
		return fail(c, path, "is %s: expected a number a double holds",
			    describe(c, v, got, sizeof(got)));
	cJSON_ArrayForEach(e, children) {
		char sub[256];

		if (cJSON_IsArray(v))
			snprintf(sub, sizeof(sub), "%s[%d]", path, i++);
		else
			child_path(sub, sizeof(sub), path, e->string);
		if (check_finite(c, e, sub) < 0)
			return -1;
	}
	return 0;
}

int bf_schema_json_check(const cJSON *rec, const char *type, const char *line,
			 size_t len, char *detail, size_t detail_len)
{
	struct vctx c = { .type = type, .line = line, .len = len, .rec = rec,
			  .detail = detail, .detail_len = detail_len };
	const cJSON *def;

	pthread_once(&schema_once, schema_load);
	c.defs = get(schema, "$defs");
	def = get(c.defs, type);
	if (!cJSON_IsObject(schema) || !def) {
		snprintf(detail, detail_len, "%s record: the schema built into "
			 "this reader (docs/schema.json) %s", type,
			 schema ? "has no entry for it" : "does not parse");
		return -1;
	}
	if (check_finite(&c, rec, "") < 0)
		return -1;
	if (validate(&c, schema, rec, "", 1) < 0)
		return -1;
	return validate(&c, def, rec, "", 0);
}
