/*
 * Fault injection for the agent's oneDNN GEMM (issue 33), as
 * lying_sgemm.c is for cblas_sgemm: an LD_PRELOAD shim around
 * dnnl_primitive_execute, chosen by BF_FAULT:
 *
 *   once    executes on the first call only, then returns at once
 *   scale   executes, waits for the stream, then scales the destination
 *           (f32) by 1 + 1e-3: a result wrong by far more than bf16
 *           inputs with fp32 accumulation allow
 *   drop_k  executes, then subtracts from C(i, j) one product term,
 *           A(i, k-1) B(k-1, j) (bf16 inputs): a dot product missing
 *           its last term
 *
 * Anything else, or no BF_FAULT, calls the real function unchanged. The
 * destination is found as the DNNL_ARG_DST argument; its size from its
 * memory descriptor (oneDNN 2.x and 3.x).
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <oneapi/dnnl/dnnl.h>

typedef dnnl_status_t (*exec_fn)(const_dnnl_primitive_t, dnnl_stream_t, int,
				 const dnnl_exec_arg_t *);

static int calls;

static void *arg_data(int nargs, const dnnl_exec_arg_t *args, int which,
		      size_t *bytes)
{
	void *p = NULL;

	for (int i = 0; i < nargs; i++) {
		if (args[i].arg != which)
			continue;
#if DNNL_VERSION_MAJOR >= 3
		const_dnnl_memory_desc_t md;

		if (dnnl_memory_get_memory_desc(args[i].memory, &md) != dnnl_success)
			return NULL;
#else
		const dnnl_memory_desc_t *md;

		if (dnnl_memory_get_memory_desc(args[i].memory, &md) != dnnl_success)
			return NULL;
#endif
		*bytes = dnnl_memory_desc_get_size(md);
		if (dnnl_memory_get_data_handle(args[i].memory, &p) != dnnl_success)
			return NULL;
	}
	return p;
}

static float bf16_value(uint16_t v)
{
	uint32_t u = (uint32_t)v << 16;
	float f;

	memcpy(&f, &u, sizeof(f));
	return f;
}

dnnl_status_t dnnl_primitive_execute(const_dnnl_primitive_t prim,
				     dnnl_stream_t stream, int nargs,
				     const dnnl_exec_arg_t *args)
{
	exec_fn real = (exec_fn)dlsym(RTLD_NEXT, "dnnl_primitive_execute");
	const char *mode = getenv("BF_FAULT");
	size_t cb = 0, ab = 0, bb = 0;
	float *c;
	dnnl_status_t st;

	calls++;
	if (!mode)
		mode = "";
	if (strcmp(mode, "once") == 0 && calls > 1)
		return dnnl_success;
	st = real(prim, stream, nargs, args);
	if (st != dnnl_success || (strcmp(mode, "scale") != 0 &&
				   strcmp(mode, "drop_k") != 0))
		return st;
	st = dnnl_stream_wait(stream);
	c = arg_data(nargs, args, DNNL_ARG_DST, &cb);
	if (st != dnnl_success || !c)
		return st;
	if (strcmp(mode, "scale") == 0) {
		for (size_t i = 0; i < cb / sizeof(float); i++)
			c[i] *= 1.001f;
	} else {
		/* Square n x n, row-major, bf16 A and B (the agent's job). */
		const uint16_t *a = arg_data(nargs, args, DNNL_ARG_SRC, &ab);
		const uint16_t *b = arg_data(nargs, args, DNNL_ARG_WEIGHTS, &bb);
		size_t n = 1;

		while (n * n < cb / sizeof(float))
			n++;
		if (!a || !b || ab != n * n * 2 || bb != n * n * 2)
			return st;
		for (size_t i = 0; i < n; i++)
			for (size_t j = 0; j < n; j++)
				c[i * n + j] -= bf16_value(a[i * n + n - 1]) *
						bf16_value(b[(n - 1) * n + j]);
	}
	return st;
}
