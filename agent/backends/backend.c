/* The explicit backend table (tmux's cmd_table[] is the model). */
#include "backends/backend.h"

#include <stdio.h>

const struct backend *const backend_table[] = {
	&backend_openblas,
#ifdef BF_WITH_CUDA
	&backend_cublas,
#endif
	NULL,
};

const struct backend *backend_for(enum device_kind kind)
{
	for (int i = 0; backend_table[i]; i++)
		if (backend_table[i]->kind == kind)
			return backend_table[i];
	return NULL;
}

const struct backend *backend_gemm_for(enum device_kind kind, int dev,
				       enum bf_dtype dtype, char *detail,
				       size_t detail_len)
{
	const struct backend *be = backend_for(kind);
	char own[256] = "";

	if (!be) {
		snprintf(detail, detail_len, "no backend for this device in this build");
		return NULL;
	}
	if (be->gemm_supports(dev, dtype, own, sizeof(own)) == BF_OK)
		return be;
	if (kind != DEVICE_CPU ||
	    (dtype != BF_DTYPE_BF16 && dtype != BF_DTYPE_FP16)) {
		snprintf(detail, detail_len, "%s", own);
		return NULL;
	}
#ifdef BF_WITH_ONEDNN
	{
		char alt[256] = "";

		if (backend_onednn.gemm_supports(dev, dtype, alt,
						 sizeof(alt)) == BF_OK)
			return &backend_onednn;
		snprintf(detail, detail_len, "%s; %s", own, alt);
	}
#else
	snprintf(detail, detail_len,
		 "%s; oneDNN: not in this build (libdnnl-dev was not found "
		 "when the agent was built)",
		 own);
#endif
	return NULL;
}

char *device_label(const struct device *d, char *buf, size_t len)
{
	if (d->kind == DEVICE_CPU)
		snprintf(buf, len, "cpu");
	else
		snprintf(buf, len, "cuda:%d", d->index);
	return buf;
}
