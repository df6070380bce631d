/*
 * Text from outside (an agent's reasons and stderr, a remote build log, a
 * hostname, an archived run.json, an inventory tag) made safe to print on a
 * terminal: nothing it contains may move the cursor, change colours, set
 * the window title or leave the terminal in another mode. Valid UTF-8
 * (accents, CJK) passes through; control characters (C0 but tab, DEL, C1,
 * so ESC and CSI sequences lose their introducer) and malformed UTF-8 do
 * not.
 */
#ifndef BF_TEXT_H
#define BF_TEXT_H

#include <stddef.h>

/*
 * Copies src (NUL-terminated; NULL reads as "") into dst (dst_len > 0
 * bytes, always NUL-terminated) for a terminal: each control character
 * (U+0000-U+001F but tab, U+007F, U+0080-U+009F) becomes '?', a tab a
 * space, a byte that does not start or continue a well-formed UTF-8
 * sequence (RFC 3629: no overlongs, no surrogates, nothing above
 * U+10FFFF) becomes '?'. Output that does not fit is cut at a character
 * boundary and ends with "..." (dst_len >= 4), so a cut is never read as
 * the whole text. Returns dst.
 */
char *bf_text_sanitize(char *dst, size_t dst_len, const char *src);

/* Marks dst (dst_len bytes, holding a NUL-terminated UTF-8 text that
 * filled it: snprintf's output cut at dst_len - 1 bytes, say) as cut: its
 * last characters, whole ones (a sequence cut short included), give way
 * to "..." (dst_len >= 4; under that it is left as it is). */
void bf_text_mark_cut(char *dst, size_t dst_len);

/* As bf_text_sanitize, whole, into a new string (never cut: the result is
 * never longer than src; NULL reads as ""). Caller frees. */
char *bf_text_sanitize_dup(const char *src);

/*
 * As bf_text_sanitize, line by line: src's lines (split at '\n', a '\r'
 * before it dropped) sanitized and joined with sep (written as given),
 * empty lines skipped. With "; " a multi-line reason (a remote command's
 * stderr) becomes one line: "Unknown host\nsrun: error: x" -> "Unknown
 * host; srun: error: x"; with "\n    " its lines are indented under the
 * first. Output that does not fit is cut as bf_text_sanitize cuts it,
 * never after a separator, and ends with "..." (dst_len >= 4). Returns
 * dst.
 */
char *bf_text_join_lines(char *dst, size_t dst_len, const char *src,
			 const char *sep);

/* Sanitizes s in place (the result is never longer). Returns s. */
char *bf_text_sanitize_inplace(char *s);

/* 1 when s (NUL-terminated) would print unchanged by bf_text_sanitize. */
int bf_text_is_clean(const char *s);

/*
 * snprintf that never cuts in silence: formats into dst (dst_len bytes,
 * always NUL-terminated) and, when the text does not fit, marks the cut
 * with bf_text_mark_cut (its end gives way to "...", dst_len >= 4).
 * Returns 1 when the whole text fits, 0 when it was cut (or dst_len is
 * 0, or the format fails). Nothing is sanitised: for text ctl writes
 * itself, or text already sanitised. Use it where a cut is acceptable
 * when shown (a table cell, a key); where the whole text must reach the
 * user (a reason, a note), use bf_xasprintf (common/xmalloc.h) instead.
 */
int bf_text_fmt(char *dst, size_t dst_len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* As bf_text_fmt, appended to the NUL-terminated text already in buf (len
 * bytes): a cut is marked with "...". Returns 1 when the whole text fits,
 * 0 when it was cut (or buf was already full). Nothing is sanitised: for
 * text ctl or the agent writes itself. */
int bf_text_appendf(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
