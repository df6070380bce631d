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

char *device_label(const struct device *d, char *buf, size_t len)
{
	if (d->kind == DEVICE_CPU)
		snprintf(buf, len, "cpu");
	else
		snprintf(buf, len, "cuda:%d", d->index);
	return buf;
}
