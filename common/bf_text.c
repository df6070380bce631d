/* Terminal-safe text; see bf_text.h. */
#include "bf_text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"

/* Length of the well-formed UTF-8 sequence at p (1-4), or 0 when the
 * bytes there are not one (RFC 3629, table 3-7 of Unicode 15). Sets *cp
 * to the code point. */
static size_t utf8_len(const unsigned char *p, uint32_t *cp)
{
	unsigned char c = p[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf && (p[1] & 0xc0) == 0x80) {
		*cp = (uint32_t)(c & 0x1f) << 6 | (p[1] & 0x3f);
		return 2;
	}
	if (c >= 0xe0 && c <= 0xef && (p[1] & 0xc0) == 0x80 &&
	    (p[2] & 0xc0) == 0x80) {
		*cp = (uint32_t)(c & 0x0f) << 12 | (uint32_t)(p[1] & 0x3f) << 6 |
		      (p[2] & 0x3f);
		if (*cp < 0x800 || (*cp >= 0xd800 && *cp <= 0xdfff))
			return 0; /* overlong, or a surrogate */
		return 3;
	}
	if (c >= 0xf0 && c <= 0xf4 && (p[1] & 0xc0) == 0x80 &&
	    (p[2] & 0xc0) == 0x80 && (p[3] & 0xc0) == 0x80) {
		*cp = (uint32_t)(c & 0x07) << 18 | (uint32_t)(p[1] & 0x3f) << 12 |
		      (uint32_t)(p[2] & 0x3f) << 6 | (p[3] & 0x3f);
		if (*cp < 0x10000 || *cp > 0x10ffff)
			return 0;
		return 4;
	}
	return 0;
}

/* Ends dst, which holds out bytes of UTF-8 (whose last sequence may be cut
 * short), with "..." in place of as many whole characters as it needs, so
 * that a cut is never silent (issue 28: reasons cut mid-word read as
 * whole). With under 4 bytes of room the text is only cut. */
static void mark_cut(char *dst, size_t out, size_t dst_len)
{
	if (dst_len < 4) {
		dst[out] = '\0';
		return;
	}
	while (out + 3 > dst_len - 1) {
		do
			out--;
		while (out > 0 && ((unsigned char)dst[out] & 0xc0) == 0x80);
	}
	memcpy(dst + out, "...", 4);
}

void bf_text_mark_cut(char *dst, size_t dst_len)
{
	if (dst && dst_len > 0)
		mark_cut(dst, strnlen(dst, dst_len - 1), dst_len);
}

char *bf_text_sanitize(char *dst, size_t dst_len, const char *src)
{
	const unsigned char *p = (const unsigned char *)(src ? src : "");
	size_t out = 0;

	if (dst_len == 0)
		return dst;
	while (*p) {
		uint32_t cp = 0;
		size_t n = utf8_len(p, &cp);
		const char *put = (const char *)p;
		size_t put_len = n;

		if (n == 0) {
			put = "?";
			put_len = 1;
			n = 1;
		} else if (cp == '\t') {
			put = " ";
			put_len = 1;
		} else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp <= 0x9f)) {
			put = "?";
			put_len = 1;
		}
		if (out + put_len >= dst_len) {
			mark_cut(dst, out, dst_len);
			return dst;
		}
		memcpy(dst + out, put, put_len);
		out += put_len;
		p += n;
	}
	dst[out] = '\0';
	return dst;
}

char *bf_text_sanitize_dup(const char *src)
{
	size_t len = strlen(src ? src : "") + 1;

	/* Never longer: each byte or sequence becomes at most itself. */
	return bf_text_sanitize(bf_xmalloc(len), len, src);
}

char *bf_text_join_lines(char *dst, size_t dst_len, const char *src,
			 const char *sep)
{
	size_t used = 0, seplen = strlen(sep);

	if (dst_len == 0)
		return dst;
	dst[0] = '\0';
	for (const char *p = src ? src : ""; *p;) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		char *line;

		if (n > 0 && p[n - 1] == '\r')
			n--;
		if (n > 0) {
			if (used > 0 && used + seplen + 1 < dst_len) {
				memcpy(dst + used, sep, seplen + 1);
				used += seplen;
			} else if (used > 0) {
				mark_cut(dst, used, dst_len);
				break;
			}
			line = bf_xasprintf("%.*s", (int)(n < 65536 ? n : 65536), p);
			bf_text_sanitize(dst + used, dst_len - used, line);
			free(line);
			used += strlen(dst + used);
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return dst;
}

char *bf_text_sanitize_inplace(char *s)
{
	/* Every replacement is one byte for one or more: writing behind the
	 * reader is safe. */
	const unsigned char *p = (const unsigned char *)s;
	char *w = s;

	if (!s)
		return s;
	while (*p) {
		uint32_t cp = 0;
		size_t n = utf8_len(p, &cp);

		if (n == 0 || cp < 0x20 || cp == 0x7f ||
		    (cp >= 0x80 && cp <= 0x9f)) {
			*w++ = cp == '\t' && n == 1 ? ' ' : '?';
			p += n ? n : 1;
			continue;
		}
		memmove(w, p, n);
		w += n;
		p += n;
	}
	*w = '\0';
	return s;
}

int bf_text_is_clean(const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");

	while (*p) {
		uint32_t cp = 0;
		size_t n = utf8_len(p, &cp);

		if (n == 0 || cp < 0x20 || cp == 0x7f ||
		    (cp >= 0x80 && cp <= 0x9f))
			return 0;
		p += n;
	}
	return 1;
}

/* vsnprintf into dst with the cut marked; 1 when whole. */
static int text_vfmt(char *dst, size_t dst_len, const char *fmt, va_list ap)
{
	int n;

	if (dst_len == 0)
		return 0;
	n = vsnprintf(dst, dst_len, fmt, ap);
	if (n < 0) {
		dst[0] = '\0';
		return 0;
	}
	if ((size_t)n < dst_len)
		return 1;
	bf_text_mark_cut(dst, dst_len);
	return 0;
}

int bf_text_fmt(char *dst, size_t dst_len, const char *fmt, ...)
{
	va_list ap;
	int whole;

	va_start(ap, fmt);
	whole = text_vfmt(dst, dst_len, fmt, ap);
	va_end(ap);
	return whole;
}

int bf_text_appendf(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	va_list ap;
	int whole;

	if (used + 1 >= len) {
		if (len >= 4 && used + 1 == len)
			bf_text_mark_cut(buf, len);
		return 0;
	}
	va_start(ap, fmt);
	whole = text_vfmt(buf + used, len - used, fmt, ap);
	va_end(ap);
	if (!whole)
		bf_text_mark_cut(buf, len);
	return whole;
}
