/*
 * Error strings for enum bf_err. The table is indexed by the enum, so a
 * missing entry is a compile-time-visible gap rather than a wrong message.
 */
#include "bf_error.h"
#include "bf_text.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const err_strings[BF_ERR__COUNT] = {
	[BF_OK] = "no error",
	[BF_ERR_USAGE] = "usage error",
	[BF_ERR_NOMEM] = "out of memory",
	[BF_ERR_IO] = "input/output error",
	[BF_ERR_PARSE] = "malformed input",
	[BF_ERR_UNSUPPORTED] = "not supported here",
	[BF_ERR_DEVICE] = "device error",
	[BF_ERR_BLAS] = "BLAS error",
	[BF_ERR_DEVICE_MISMATCH] = "tensors are on different devices",
	[BF_ERR_SHAPE] = "shapes do not match",
	[BF_ERR_TOO_BIG] = "does not fit in free memory",
	[BF_ERR_VERIFY] = "numerical check failed",
	[BF_ERR_CONNECT] = "connection failed",
	[BF_ERR_HOSTKEY_UNKNOWN] = "host key unknown",
	[BF_ERR_HOSTKEY_CHANGED] = "host key changed",
	[BF_ERR_AUTH] = "authentication failed",
	[BF_ERR_TIMEOUT] = "timed out",
	[BF_ERR_REMOTE] = "remote command failed",
	[BF_ERR_BUILD] = "build failed",
	[BF_ERR_SCHEMA] = "record does not follow the schema",
	[BF_ERR_INTERRUPTED] = "interrupted",
	[BF_ERR_NOT_FOUND] = "not found",
};

const char *bf_err_str(enum bf_err err)
{
	if ((int)err < 0 || err >= BF_ERR__COUNT || !err_strings[err])
		return "unknown error";
	return err_strings[err];
}

enum bf_err bf_fail(char *buf, size_t size, enum bf_err err, const char *fmt,
		    ...)
{
	va_list ap;
	int n;

	if (buf && size > 0) {
		va_start(ap, fmt);
		n = vsnprintf(buf, size, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t)n >= size)
			bf_text_mark_cut(buf, size);
	}
	return err;
}
