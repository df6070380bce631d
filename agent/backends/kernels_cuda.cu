// CUDA kernels behind kernels_cuda.h. Kept minimal: the GEMMs run in
// cuBLAS; these exist so that element-wise and broadcast checks execute on
// the GPU rather than being copied back to the host.
#include "backends/kernels_cuda.h"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

namespace {

constexpr int kMaxRank = 8;

struct strided_args {
	int rank;
	long long shape[kMaxRank];
	long long as[kMaxRank];
	long long bs[kMaxRank];
};

__global__ void add_f32_kernel(strided_args args, const float *a,
			       const float *b, float *out, long long total)
{
	for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
	     i < total; i += (long long)gridDim.x * blockDim.x) {
		long long rem = i, ao = 0, bo = 0;
		// Decompose the linear row-major index, last dim fastest.
		for (int d = args.rank - 1; d >= 0; d--) {
			long long idx = rem % args.shape[d];
			rem /= args.shape[d];
			ao += idx * args.as[d];
			bo += idx * args.bs[d];
		}
		out[i] = a[ao] + b[bo];
	}
}

__global__ void relu_f32_kernel(float *p, size_t count)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	     i < count; i += (size_t)gridDim.x * blockDim.x)
		p[i] = p[i] < 0.0f ? 0.0f : p[i]; /* NaN stays NaN */
}

__global__ void relu_f16_kernel(__half *p, size_t count)
{
	const __half zero = __float2half(0.0f);
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	     i < count; i += (size_t)gridDim.x * blockDim.x)
		if (__hlt(p[i], zero)) /* false for NaN: NaN stays NaN */
			p[i] = zero;
}

__global__ void round16_kernel(int to_bf16, const float *in, uint16_t *out,
			       size_t count)
{
	for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
	     i < count; i += (size_t)gridDim.x * blockDim.x) {
		if (to_bf16)
			out[i] = __bfloat16_as_ushort(__float2bfloat16_rn(in[i]));
		else
			out[i] = __half_as_ushort(__float2half_rn(in[i]));
	}
}

int blocks_for(long long total)
{
	long long b = (total + 255) / 256;
	return (int)(b < 1 ? 1 : (b > 4096 ? 4096 : b));
}

} // namespace

extern "C" int bf_cuda_add_f32(int rank, const int64_t *shape, const float *a,
			       const int64_t *as, const float *b,
			       const int64_t *bs, float *out)
{
	strided_args args = {};
	long long total = 1;

	if (rank > kMaxRank)
		return (int)cudaErrorInvalidValue;
	args.rank = rank;
	for (int d = 0; d < rank; d++) {
		args.shape[d] = shape[d];
		args.as[d] = as[d];
		args.bs[d] = bs[d];
		total *= shape[d];
	}
	if (total == 0)
		return 0;
	add_f32_kernel<<<blocks_for(total), 256>>>(args, a, b, out, total);
	cudaError_t err = cudaGetLastError();
	if (err == cudaSuccess)
		err = cudaDeviceSynchronize();
	return (int)err;
}

extern "C" int bf_cuda_relu_f32(float *p, size_t count)
{
	if (count == 0)
		return 0;
	relu_f32_kernel<<<blocks_for((long long)count), 256>>>(p, count);
	cudaError_t err = cudaGetLastError();
	if (err == cudaSuccess)
		err = cudaDeviceSynchronize();
	return (int)err;
}

extern "C" int bf_cuda_relu_f16(void *p, size_t count)
{
	if (count == 0)
		return 0;
	relu_f16_kernel<<<blocks_for((long long)count), 256>>>(
		static_cast<__half *>(p), count);
	cudaError_t err = cudaGetLastError();
	if (err == cudaSuccess)
		err = cudaDeviceSynchronize();
	return (int)err;
}

extern "C" int bf_cuda_round16(int to_bf16, const float *in, uint16_t *out,
			       size_t count)
{
	if (count == 0)
		return 0;
	round16_kernel<<<blocks_for((long long)count), 256>>>(to_bf16, in, out,
								count);
	cudaError_t err = cudaGetLastError();
	if (err == cudaSuccess)
		err = cudaDeviceSynchronize();
	return (int)err;
}

extern "C" int bf_cuda_kernel_image(void)
{
	cudaFuncAttributes attr;

	return (int)cudaFuncGetAttributes(&attr, relu_f32_kernel);
}
