/*
 * The few CUDA kernels the tensor checks need (strided broadcast add,
 * relu, rounding to fp16/bf16 with the device's own intrinsics), callable
 * from C. Pointers are device memory; every launcher runs on the default
 * stream of the current device, synchronises, and returns the CUDA error
 * code as an int (0 = cudaSuccess) so that callers can name it.
 */
#ifndef BF_KERNELS_CUDA_H
#define BF_KERNELS_CUDA_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = a[i . as] + b[i . bs] over a rank-dim index space (rank <= 8,
 * strides in elements, 0 for broadcast dims); out contiguous. */
int bf_cuda_add_f32(int rank, const int64_t *shape, const float *a,
		    const int64_t *as, const float *b, const int64_t *bs,
		    float *out);

/* p[i] = max(p[i], 0) for count elements. */
int bf_cuda_relu_f32(float *p, size_t count);

/* p[i] = max(p[i], 0) for count fp16 values (bit patterns); NaN stays. */
int bf_cuda_relu_f16(void *p, size_t count);

/* out[i] = bits of __float2half_rn(in[i]) (to_bf16 == 0) or
 * __float2bfloat16_rn(in[i]) (to_bf16 == 1). */
int bf_cuda_round16(int to_bf16, const float *in, uint16_t *out,
		    size_t count);

/* Whether this build holds code the current device can run: the CUDA
 * error of cudaFuncGetAttributes on one of these kernels, which is
 * cudaErrorNoKernelImageForDevice (or cudaErrorInvalidDeviceFunction) when
 * neither SASS for the device nor PTX it can JIT-compile was built in.
 * Launches nothing. */
int bf_cuda_kernel_image(void);

#ifdef __cplusplus
}
#endif

#endif
