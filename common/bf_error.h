/*
 * One error enum for all of benchfleet, with stable numbers (curl's CURLcode
 * is the model). Library codes (libssh, CUDA, cuBLAS, cJSON, OpenBLAS) are
 * translated into these at the file that wraps the library and never leak
 * past it; detail text travels in a caller-supplied buffer.
 *
 * Numbers are part of the archive format and the agent's exit status: never
 * renumber, only append.
 */
#ifndef BF_ERROR_H
#define BF_ERROR_H

#include <stddef.h>

enum bf_err {
	BF_OK = 0,
	BF_ERR_USAGE = 1,          /* bad command-line argument */
	BF_ERR_NOMEM = 2,          /* allocation failed */
	BF_ERR_IO = 3,             /* read/write/open failed (errno in detail) */
	BF_ERR_PARSE = 4,          /* malformed input (JSON, config, number) */
	BF_ERR_UNSUPPORTED = 5,    /* feature absent here (no GPU, no sbgemm) */
	BF_ERR_DEVICE = 6,         /* CUDA runtime error */
	BF_ERR_BLAS = 7,           /* cuBLAS / OpenBLAS error */
	BF_ERR_DEVICE_MISMATCH = 8,/* operands live on different devices */
	BF_ERR_SHAPE = 9,          /* shapes do not broadcast / multiply */
	BF_ERR_TOO_BIG = 10,       /* operands do not fit free memory */
	BF_ERR_VERIFY = 11,        /* numerical check failed */
	BF_ERR_CONNECT = 12,       /* TCP/SSH connection failed */
	BF_ERR_HOSTKEY_UNKNOWN = 13, /* host key not in known_hosts */
	BF_ERR_HOSTKEY_CHANGED = 14, /* host key differs from known_hosts */
	BF_ERR_AUTH = 15,          /* no accepted authentication method */
	BF_ERR_TIMEOUT = 16,       /* no answer within the timeout */
	BF_ERR_REMOTE = 17,        /* remote command failed (exit status) */
	BF_ERR_BUILD = 18,         /* remote agent build failed */
	BF_ERR_SCHEMA = 19,        /* record has wrong schema version or type */
	BF_ERR_INTERRUPTED = 20,   /* stopped by the user (Ctrl-C, q) */
	BF_ERR_NOT_FOUND = 21,     /* named host, run or file does not exist */
	BF_ERR__COUNT
};

/* Short lowercase description of an error code ("host key changed").
 * Returns a static string; never NULL, also for out-of-range codes. */
const char *bf_err_str(enum bf_err err);

/* Formats "what: why" into buf (size bytes, always NUL-terminated when
 * size > 0) with printf semantics and returns err, so that a failing path
 * can say `return bf_fail(detail, len, BF_ERR_IO, "open %s: %s", p, e);`.
 * A text that does not fit ends with "..." (bf_text_mark_cut), so a reason
 * cut short never reads as the whole one. */
enum bf_err bf_fail(char *buf, size_t size, enum bf_err err, const char *fmt,
		    ...) __attribute__((format(printf, 4, 5)));

#endif
