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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_error.h"
#include "json_text.h"
#include "xmalloc.h"

/* The parsed schema and the keywords of each of its objects (never
 * freed: they live as long as the process). */
static cJSON *schema;
static pthread_once_t schema_once = PTHREAD_ONCE_INIT;

static void index_keywords(const cJSON *s);

static void schema_load(void)
{
	schema = cJSON_Parse((const char *)bf_schema_json_text);
	index_keywords(schema);
}

/*
 * Where a value is in the record: a chain from the value up to the root
 * (NULL), each link an object key or an array index. Formatted only when
 * a check fails ("options.sizes[1]"), so that a record that passes costs
 * no text.
 */
struct vpath {
	const struct vpath *up;
	const char *key;     /* NULL: index */
	int index;
};

/* path as the messages write it: keys joined by ".", indexes as [i];
 * whole, however deep and long its keys (a record's own words). A new
 * string; caller frees. */
static char *path_text(const struct vpath *p)
{
	char *out = bf_xstrdup(""), *more;
	int tail_key = 0;   /* out starts with a key: a "." goes before */

	/* From the value up: each link goes in front of what is there. */
	for (; p; p = p->up) {
		if (p->key)
			more = bf_xasprintf("%s%s%s", p->key,
					    tail_key ? "." : "", out);
		else
			more = bf_xasprintf("[%d]%s%s", p->index,
					    tail_key ? "." : "", out);
		tail_key = p->key != NULL;
		free(out);
		out = more;
	}
	return out;
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
		    const struct vpath *path, int skip_one_of);

/* Says why v at path fails (unless quiet) and returns -1. */
static int fail(struct vctx *c, const struct vpath *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct vctx *c, const struct vpath *path, const char *fmt, ...)
{
	va_list ap;
	char *where, *why;

	if (c->quiet || !c->detail_len)
		return -1;
	va_start(ap, fmt);
	if (vasprintf(&why, fmt, ap) < 0)
		bf_xmalloc_fatal("schema: a message");
	va_end(ap);
	where = path_text(path);
	/* Whole but for detail's own size, where a cut ends in "...". */
	(void)bf_fail(c->detail, c->detail_len, BF_ERR_SCHEMA,
		      "%s record: field \"%s\" %s", c->type, where, why);
	free(where);
	free(why);
	return -1;
}

/* v as the record wrote it: a number's own token (or %.17g when it does
 * not fit), a string quoted (its first 40 bytes, and "..." after a cut),
 * else what it is; into out (len >= 64 bytes). */
static const char *describe(const struct vctx *c, const cJSON *v, char *out,
			    size_t len)
{
	if (cJSON_IsNumber(v)) {
		if (bf_json_number_text(c->line, c->len, c->rec, v, out,
					len) != 0)
			snprintf(out, len, "%.17g", v->valuedouble);
	} else if (cJSON_IsString(v)) {
		/* fits: 40 bytes and "...", quoted; out 64 at least */
		snprintf(out, len, "\"%.40s%s\"", v->valuestring,
			 strlen(v->valuestring) > 40 ? "..." : "");
	} else if (cJSON_IsNull(v)) {
		snprintf(out, len, "null");
	} else if (cJSON_IsBool(v)) {
		/* fits: one of two words; out 64 at least */
		snprintf(out, len, "%s", cJSON_IsTrue(v) ? "true" : "false");
	} else {
		/* fits: one of two words; out 64 at least */
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

/* A schema object's keywords that this reader interprets, found in one
 * pass over its members (a lookup per keyword would compare each of
 * them with every member, for every value of every record). */
struct kw {
	const cJSON *ref, *type, *enum_, *const_, *minimum, *maximum,
		*exclusive_minimum, *pattern, *min_length, *required,
		*properties, *additional, *dependent, *items, *all_of, *if_,
		*then_, *else_, *one_of;
	/* "pattern" compiled once (regcomp costs more than the rest of a
	 * record's check) as the POSIX extended expression it is (anchors,
	 * groups, alternation, bracket classes); regexec on it is
	 * thread-safe (POSIX; glibc marks it MT-Safe). */
	regex_t re;
	int re_ok;
};

static void keywords(const cJSON *s, struct kw *k)
{
	static const struct {
		const char *name;
		size_t at;
	} names[] = {
		{ "$ref", offsetof(struct kw, ref) },
		{ "type", offsetof(struct kw, type) },
		{ "enum", offsetof(struct kw, enum_) },
		{ "const", offsetof(struct kw, const_) },
		{ "minimum", offsetof(struct kw, minimum) },
		{ "maximum", offsetof(struct kw, maximum) },
		{ "exclusiveMinimum", offsetof(struct kw, exclusive_minimum) },
		{ "pattern", offsetof(struct kw, pattern) },
		{ "minLength", offsetof(struct kw, min_length) },
		{ "required", offsetof(struct kw, required) },
		{ "properties", offsetof(struct kw, properties) },
		{ "additionalProperties", offsetof(struct kw, additional) },
		{ "dependentRequired", offsetof(struct kw, dependent) },
		{ "items", offsetof(struct kw, items) },
		{ "allOf", offsetof(struct kw, all_of) },
		{ "if", offsetof(struct kw, if_) },
		{ "then", offsetof(struct kw, then_) },
		{ "else", offsetof(struct kw, else_) },
		{ "oneOf", offsetof(struct kw, one_of) },
	};
	const cJSON *e;

	memset(k, 0, sizeof(*k));
	cJSON_ArrayForEach(e, s) {
		if (!e->string)
			continue;
		/* The first byte rules most names out before strcmp. */
		for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
			const cJSON **slot =
				(const cJSON **)((char *)k + names[i].at);

			/* The first of a repeated key, as
			 * cJSON_GetObjectItemCaseSensitive finds it. */
			if (e->string[0] == names[i].name[0] &&
			    strcmp(e->string, names[i].name) == 0) {
				if (!*slot)
					*slot = e;
				break;
			}
		}
	}
	k->re_ok = cJSON_IsString(k->pattern) &&
		   regcomp(&k->re, k->pattern->valuestring,
			   REG_EXTENDED | REG_NOSUB) == 0;
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

/* Every schema object's keywords, found once when the schema is loaded
 * (docs/schema.json has some 300 objects): open addressing by the
 * object's address, at most half full. Read-only after schema_load, so
 * shared by threads. */
static struct kw_entry {
	const cJSON *node;
	struct kw kw;
} *kw_table;
static size_t kw_slots;  /* 2^kw_bits */
static unsigned kw_bits;

static size_t kw_slot(const cJSON *node)
{
	/* Fibonacci hashing of the address: the product's top kw_bits
	 * (Knuth, TAOCP vol. 3, 6.4). */
	return (size_t)(((uint64_t)(uintptr_t)node * 11400714819323198485ull) >>
			(64 - kw_bits));
}

static size_t count_objects(const cJSON *s)
{
	const cJSON *e;
	size_t n = cJSON_IsObject(s);

	cJSON_ArrayForEach(e, s)
		n += count_objects(e);
	return n;
}

static void add_keywords(const cJSON *s)
{
	const cJSON *e;

	if (cJSON_IsObject(s)) {
		size_t i = kw_slot(s);

		while (kw_table[i].node)
			i = (i + 1) & (kw_slots - 1);
		kw_table[i].node = s;
		keywords(s, &kw_table[i].kw);
	}
	cJSON_ArrayForEach(e, s)
		add_keywords(e);
}

static void index_keywords(const cJSON *s)
{
	size_t n = count_objects(s);

	for (kw_bits = 4, kw_slots = 16; kw_slots < 2 * n; kw_bits++)
		kw_slots *= 2;
	kw_table = bf_xcalloc(kw_slots, sizeof(*kw_table));
	add_keywords(s);
}

/* s's keywords. Every object of the schema is in the table, and only
 * the schema's objects are validated against; an object that is not
 * (none) would get no keywords. */
static const struct kw *kw_of(const cJSON *s)
{
	static const struct kw none;
	size_t i = kw_slot(s);

	while (kw_table[i].node && kw_table[i].node != s)
		i = (i + 1) & (kw_slots - 1);
	return kw_table[i].node ? &kw_table[i].kw : &none;
}

/* The range a number must be in, in words: "an integer from 1 to
 * 65536", "a number above 0", ... */
static void range_words(const struct kw *s, char *out, size_t len)
{
	const cJSON *lo = s->minimum, *hi = s->maximum;
	const cJSON *xlo = s->exclusive_minimum;
	const char *what = type_has(s->type, "integer") &&
				   !type_has(s->type, "number") ?
			   "an integer" : "a number";
	char a[40] = "", b[40] = "";

	if (cJSON_IsNumber(lo))
		snprintf(a, sizeof(a), "%.17g", lo->valuedouble);
	if (cJSON_IsNumber(xlo))
		snprintf(a, sizeof(a), "%.17g", xlo->valuedouble);
	if (cJSON_IsNumber(hi))
		snprintf(b, sizeof(b), "%.17g", hi->valuedouble);
	/* fits: what is one of two words, a and b %.17g numbers (24
	 * bytes at most), the words 20; out 128 (its callers) */
	if (cJSON_IsNumber(xlo))
		snprintf(out, len, "%s above %s%s%s", what, a,
			 *b ? " and at most " : "", b);
	else if (*a && *b)
		/* fits: as above */
		snprintf(out, len, "%s from %s to %s", what, a, b);
	else if (*a)
		/* fits: as above */
		snprintf(out, len, "%s of at least %s", what, a);
	else if (*b)
		/* fits: as above */
		snprintf(out, len, "%s of at most %s", what, b);
	else
		/* fits: as above */
		snprintf(out, len, "%s", what);
}

static int has_range(const struct kw *s)
{
	return s->minimum || s->maximum || s->exclusive_minimum;
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
		      const struct vpath *path)
{
	char got[96], *list;
	const cJSON *x;
	int r;

	cJSON_ArrayForEach(x, e)
		if (json_equal(x, v))
			return 0;
	/* Every value the schema allows, whole. */
	list = bf_xstrdup("");
	cJSON_ArrayForEach(x, e) {
		char one[64], *more;
		const char *word = cJSON_IsString(x) ?
					   x->valuestring :
					   describe(c, x, one, sizeof(one));

		more = bf_xasprintf("%s%s%s", list, *list ? ", " : "", word);
		free(list);
		list = more;
	}
	r = fail(c, path, "is %s: expected one of %s",
		 describe(c, v, got, sizeof(got)), list);
	free(list);
	return r;
}

static int check_number(struct vctx *c, const struct kw *s, const cJSON *v,
			const struct vpath *path)
{
	const cJSON *lo = s->minimum, *hi = s->maximum;
	const cJSON *xlo = s->exclusive_minimum;
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

static int check_pattern(struct vctx *c, const struct kw *s, const cJSON *v,
			 const struct vpath *path)
{
	char got[96];

	if (!s->re_ok)
		return fail(c, path, "cannot be checked: pattern %s does not compile",
			    s->pattern->valuestring);
	if (regexec(&s->re, v->valuestring, 0, NULL, 0) == 0)
		return 0;
	return fail(c, path, "is %s: expected a match of %s",
		    describe(c, v, got, sizeof(got)), s->pattern->valuestring);
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

/* o's member named key, the search starting after *near (the member
 * found last, or NULL) and wrapping round: a record's fields come in the
 * schema's order, so each lookup takes a step instead of a scan. Keys
 * are unique in the schema; in a record only whether one is there is
 * asked this way. *near becomes the member found. */
static const cJSON *get_near(const cJSON *o, const char *key,
			     const cJSON **near)
{
	const cJSON *start;

	if (!o)
		return NULL;
	start = *near && (*near)->next ? (*near)->next : o->child;
	for (int pass = 0; pass < 2; pass++)
		for (const cJSON *e = pass ? o->child : start;
		     e && (pass == 0 || e != start); e = e->next)
			if (e->string && strcmp(e->string, key) == 0) {
				*near = e;
				return e;
			}
	return NULL;
}

static int check_object(struct vctx *c, const struct kw *s, const cJSON *v,
			const struct vpath *path)
{
	const cJSON *req = s->required, *props = s->properties;
	const cJSON *more = s->additional;
	const cJSON *dep = s->dependent, *k, *e;
	const cJSON *near = NULL;

	cJSON_ArrayForEach(k, req)
		if (cJSON_IsString(k) && !get_near(v, k->valuestring, &near)) {
			struct vpath sub = { path, k->valuestring, 0 };

			return fail(c, &sub, "is missing");
		}
	near = NULL;
	cJSON_ArrayForEach(e, v) {
		const cJSON *ps = cJSON_IsObject(props) && e->string ?
					  get_near(props, e->string, &near) :
					  NULL;
		struct vpath sub = { path, e->string ? e->string : "", 0 };

		if (ps && validate(c, ps, e, &sub, 0) < 0)
			return -1;
		if (!ps && more && validate(c, more, e, &sub, 0) < 0)
			return -1;
	}
	cJSON_ArrayForEach(k, dep) {
		if (!get(v, k->string))
			continue;
		cJSON_ArrayForEach(e, k)
			if (cJSON_IsString(e) && !get(v, e->valuestring)) {
				struct vpath sub = { path, e->valuestring, 0 };

				return fail(c, &sub, "is missing (\"%s\" is given)",
					    k->string);
			}
	}
	return 0;
}

/* Validates v against s; with skip_one_of, s's "oneOf" is left out (the
 * root's, which the caller resolves by the record's type). */
static int validate(struct vctx *c, const cJSON *s, const cJSON *v,
		    const struct vpath *path, int skip_one_of)
{
	const cJSON *t, *k;
	const struct kw *kw;
	char got[96], words[128];

	if (cJSON_IsBool(s))
		return cJSON_IsTrue(s) ? 0 :
			fail(c, path, "is %s: not allowed here",
			     describe(c, v, got, sizeof(got)));
	if (!cJSON_IsObject(s))
		return 0;
	kw = kw_of(s);
	k = kw->ref;
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
	t = kw->type;
	if (t) {
		int ok = 0;

		if (cJSON_IsString(t))
			ok = type_is(v, t->valuestring);
		cJSON_ArrayForEach(k, (cJSON_IsArray(t) ? t : NULL))
			ok |= cJSON_IsString(k) && type_is(v, k->valuestring);
		if (!ok && cJSON_IsNumber(v) && type_has(t, "integer") &&
		    has_range(kw)) {
			range_words(kw, words, sizeof(words));
			return fail(c, path, "is %s: expected %s",
				    describe(c, v, got, sizeof(got)), words);
		}
		if (!ok) {
			type_words(t, words, sizeof(words));
			return fail(c, path, "has the wrong type: %s, expected %s",
				    describe(c, v, got, sizeof(got)), words);
		}
	}
	k = kw->enum_;
	if (cJSON_IsArray(k) && check_enum(c, k, v, path) < 0)
		return -1;
	k = kw->const_;
	if (k && !json_equal(k, v)) {
		char want[64];

		return fail(c, path, "is %s: expected %s",
			    describe(c, v, got, sizeof(got)),
			    describe(c, k, want, sizeof(want)));
	}
	if (cJSON_IsNumber(v) && check_number(c, kw, v, path) < 0)
		return -1;
	if (cJSON_IsString(v)) {
		k = kw->pattern;
		if (cJSON_IsString(k) && check_pattern(c, kw, v, path) < 0)
			return -1;
		k = kw->min_length;
		if (cJSON_IsNumber(k) &&
		    (double)utf8_length(v->valuestring) < k->valuedouble)
			return fail(c, path, "is %s: expected at least %.17g characters",
				    describe(c, v, got, sizeof(got)),
				    k->valuedouble);
	}
	if (cJSON_IsObject(v) && check_object(c, kw, v, path) < 0)
		return -1;
	k = kw->items;
	if (k && cJSON_IsArray(v)) {
		const cJSON *e;
		int i = 0;

		cJSON_ArrayForEach(e, v) {
			struct vpath sub = { path, NULL, i++ };

			if (validate(c, k, e, &sub, 0) < 0)
				return -1;
		}
	}
	cJSON_ArrayForEach(k, kw->all_of)
		if (validate(c, k, v, path, 0) < 0)
			return -1;
	k = kw->if_;
	if (k) {
		int quiet = c->quiet, holds;

		c->quiet = 1;
		holds = validate(c, k, v, path, 0) == 0;
		c->quiet = quiet;
		k = holds ? kw->then_ : kw->else_;
		if (k && validate(c, k, v, path, 0) < 0)
			return -1;
	}
	k = kw->one_of;
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
static int check_finite(struct vctx *c, const cJSON *v, const struct vpath *path)
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
		struct vpath sub = { path, NULL, i++ };

		if (!cJSON_IsArray(v))
			sub.key = e->string ? e->string : "";
		if (check_finite(c, e, &sub) < 0)
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
		(void)bf_fail(detail, detail_len, BF_ERR_SCHEMA, "%s record: "
			      "the schema built into this reader "
			      "(docs/schema.json) %s", type, schema ?
			      "has no entry for it" : "does not parse");
		return -1;
	}
	if (check_finite(&c, rec, NULL) < 0)
		return -1;
	if (validate(&c, schema, rec, NULL, 1) < 0)
		return -1;
	return validate(&c, def, rec, NULL, 0);
}
