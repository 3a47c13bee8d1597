// GPU probe on the CUDA runtime and cuBLAS. Every call is checked; on a machine without a GPU or
// driver the probe reports none rather than failing.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

#include "probes/probes.hpp"

namespace hetlu::probes {
namespace {

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess) throw Error(std::string("CUDA: ") + what + ": " + cudaGetErrorString(status));
}
void check(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw Error(std::string("cuBLAS: ") + what + ": " + cublasGetStatusString(status));
}

// Fills x with a deterministic pattern so the timed GEMM works on finite, non-trivial data.
__global__ void fill(double* x, size_t count) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x)
    x[i] = double((i * 2654435761u) % 1000) / 1000.0 - 0.5;
}

double measure_cublas_dgemm(int device, int n) {
  check(cudaSetDevice(device), "cudaSetDevice");
  const size_t count = size_t(n) * n;
  double *A = nullptr, *B = nullptr, *C = nullptr;
  cublasHandle_t handle = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  float best_ms = 0;
  auto release = [&] {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
    if (handle) cublasDestroy(handle);
    cudaFree(A);
    cudaFree(B);
    cudaFree(C);
  };
  try {
    check(cudaMalloc(&A, count * sizeof(double)), "cudaMalloc A");
    check(cudaMalloc(&B, count * sizeof(double)), "cudaMalloc B");
    check(cudaMalloc(&C, count * sizeof(double)), "cudaMalloc C");
    fill<<<256, 256>>>(A, count);
    check(cudaGetLastError(), "fill kernel launch");
    fill<<<256, 256>>>(B, count);
    check(cudaGetLastError(), "fill kernel launch");
    check(cublasCreate(&handle), "cublasCreate");
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    const double one = 1, zero = 0;
    for (int r = 0; r < 6; ++r) {  // the first run warms up
      check(cudaEventRecord(start), "cudaEventRecord");
      check(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, C, n), "cublasDgemm");
      check(cudaEventRecord(stop), "cudaEventRecord");
      check(cudaEventSynchronize(stop), "cudaEventSynchronize");
      float ms = 0;
      check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
      if (r > 0) best_ms = best_ms == 0 ? ms : std::min(best_ms, ms);
    }
  } catch (...) {
    release();
    throw;
  }
  release();
  return 2.0 * n * double(n) * n / (best_ms * 1e-3) / 1e9;
}

}  // namespace

bool built_with_cuda() {
  return true;
}

GpuProbe gpus(bool measure_rates) {
  GpuProbe probe;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) {
    probe.note = std::string("no GPU: ") + cudaGetErrorString(status);
    return probe;
  }
  try {
    check(status, "cudaGetDeviceCount");
    for (int d = 0; d < count; ++d) {
      cudaDeviceProp prop{};
      check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
      GpuInfo info;
      info.name = prop.name;
      info.compute_capability_major = prop.major;
      info.compute_capability_minor = prop.minor;
      info.multiprocessors = prop.multiProcessorCount;
      info.memory_bytes = static_cast<long long>(prop.totalGlobalMem);
      if (measure_rates) info.dgemm_gflops = measure_cublas_dgemm(d, 4096);
      probe.gpus.push_back(info);
    }
  } catch (const Error& e) {
    probe.note = e.what();
  }
  return probe;
}

}  // namespace hetlu::probes
