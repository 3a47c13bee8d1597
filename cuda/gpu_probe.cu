// GPU probe on the CUDA runtime and cuBLAS. Every call is checked; on a machine without a GPU or
// driver the probe reports none rather than failing.
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/cuda_parts.hpp"
#include "cuda/cusolver_getrf.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/statistics.hpp"
#include "probes/probes.hpp"

namespace hetlu::probes {
namespace {

using cuda::check;

cublasStatus_t gemm(cublasHandle_t h, int n, const double* A, const double* B, double* C) {
  const double one = 1, zero = 0;
  return cublasDgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, C, n);
}
cublasStatus_t gemm(cublasHandle_t h, int n, const float* A, const float* B, float* C) {
  const float one = 1, zero = 0;
  return cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, n, B, n, &zero, C, n);
}

// Uniform in [-0.5, 0.5) from each entry's index through splitmix64: full rank with probability
// one, as the solvers' matrices are (a short-period pattern gave columns that repeated every 125,
// a rank-125 matrix whose LU does less work than a real one). GPUs also run GEMM slower on random
// data than on constant data (power): the probe sees what the solvers see.
template <class T>
__global__ void fill_typed(T* x, size_t count, unsigned long long seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < count; i += size_t(gridDim.x) * blockDim.x) {
    unsigned long long z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    x[i] = T(double(z >> 11) * 0x1.0p-53 - 0.5);
  }
}

// Releases whatever was acquired, also when a check throws half-way.
struct DeviceScratch {
  std::vector<void*> device;
  void* pinned = nullptr;
  cublasHandle_t handle = nullptr;
  std::unique_ptr<cuda::EventTimer> timer;
  ~DeviceScratch() {
    if (handle) cublasDestroy(handle);
    for (void* p : device) cudaFree(p);
    if (pinned) cudaFreeHost(pinned);
  }
  template <class T>
  T* alloc(size_t count) {
    void* p = nullptr;
    check(cudaMalloc(&p, count * sizeof(T)), "cudaMalloc");
    device.push_back(p);
    return static_cast<T*>(p);
  }
  // count pseudo-random values in [-0.5, 0.5), the same for the same seed.
  template <class T>
  T* filled(size_t count, unsigned long long seed) {
    T* x = alloc<T>(count);
    fill_typed<<<256, 256>>>(x, count, seed);
    check(cudaGetLastError(), "fill kernel launch");
    return x;
  }
  void events() { timer = std::make_unique<cuda::EventTimer>(); }
  // Median milliseconds of `runs` timed runs after one warm-up; their spread in *spread.
  template <class Run>
  float time_ms(Run&& run, int runs, double* spread = nullptr) {
    std::vector<double> ms;
    for (int r = 0; r <= runs; ++r) {
      const double t = 1e3 * timer->seconds(run);
      if (r > 0) ms.push_back(t);
    }
    if (spread) *spread = detail::relative_spread(ms);
    return float(detail::median(ms));
  }
};

// tf32: the single-precision GEMM on the tensor cores in TF32, the math mode the cuda backend sets
// for HETLU_CUDA_TF32=1.
template <class T>
double measure_cublas_gemm(int device, int n, double* spread, bool tf32 = false) {
  check(cudaSetDevice(device), "cudaSetDevice");
  DeviceScratch s;
  const size_t count = size_t(n) * n;
  T* A = s.filled<T>(count, 1);
  T* B = s.filled<T>(count, 2);
  T* C = s.alloc<T>(count);
  check(cublasCreate(&s.handle), "cublasCreate");
  if (tf32) check(cublasSetMathMode(s.handle, CUBLAS_TF32_TENSOR_OP_MATH), "cublasSetMathMode (TF32)");
  s.events();
  const float ms = s.time_ms([&] { check(gemm(s.handle, n, A, B, C), "cublas gemm"); }, 5, spread);
  return hetlu::detail::gflops(hetlu::detail::gemm_flops(n, n, n), ms * 1e-3);
}

// cuSOLVER's getrf of a resident n x n matrix: the rate of the best device-only LU, which a plan
// of one panel on the device (d = 0, nb = n) runs. The matrix is restored (untimed) before each run.
template <class T>
double measure_cusolver_getrf(int device, int n, double* spread) {
  check(cudaSetDevice(device), "cudaSetDevice");
  DeviceScratch s;
  const size_t count = size_t(n) * n;
  T* pristine = s.filled<T>(count, 3);
  T* A = s.alloc<T>(count);
  cusolverDnHandle_t solver = nullptr;
  check(cusolverDnCreate(&solver), "cusolverDnCreate");
  std::shared_ptr<void> release(nullptr, [solver](void*) { cusolverDnDestroy(solver); });
  int lwork = 0;
  check(cuda::getrf_buffer(solver, n, n, A, n, &lwork), "getrf_bufferSize");
  T* work = s.alloc<T>(std::max(1, lwork));
  int* ints = s.alloc<int>(n + 1);
  cuda::EventTimer timer;
  std::vector<double> ms;
  for (int r = 0; r <= 3; ++r) {  // r = 0 warms up
    check(cudaMemcpy(A, pristine, count * sizeof(T), cudaMemcpyDeviceToDevice), "cudaMemcpy");
    const double t =
        1e3 * timer.seconds([&] { check(cuda::getrf(solver, n, n, A, n, work, ints, ints + n), "getrf"); });
    int info = 0;  // a random matrix is nonsingular: anything else means the timing is not of an LU
    check(cudaMemcpy(&info, ints + n, sizeof info, cudaMemcpyDeviceToHost), "cudaMemcpy(info)");
    if (info != 0)
      throw Error("GPU probe: cuSOLVER getrf returned info = " + std::to_string(info) + " on a random matrix");
    if (r > 0) ms.push_back(t);
  }
  *spread = detail::relative_spread(ms);
  return detail::gflops(detail::getrf_flops(n, n), detail::median(ms) * 1e-3);
}

// Pinned host <-> device: bandwidth from a 256 MiB copy, latency from an 8-byte one, both ways.
void measure_transfers(int device, GpuInfo& info) {
  check(cudaSetDevice(device), "cudaSetDevice");
  DeviceScratch s;
  const size_t bytes = size_t(256) << 20;
  char* d = s.alloc<char>(bytes);
  check(cudaMallocHost(&s.pinned, bytes), "cudaMallocHost");
  s.events();
  // Each measurement with the spread of its own samples.
  double spread = 0;
  auto record = [&](const char* name, double value, const char* unit) {
    info.measurements.push_back({name, value, spread, unit, ""});
    return value;
  };
  auto copy_ms = [&](void* to, const void* from, size_t size, cudaMemcpyKind kind, int runs) {
    return s.time_ms([&] { check(cudaMemcpy(to, from, size, kind), "cudaMemcpy"); }, runs, &spread);
  };
  const double h2d = copy_ms(d, s.pinned, bytes, cudaMemcpyHostToDevice, 5);
  info.h2d_bandwidth_gbs = record("gpu_h2d_bandwidth", bytes / (h2d * 1e-3) / 1e9, "GB/s");
  const double d2h = copy_ms(s.pinned, d, bytes, cudaMemcpyDeviceToHost, 5);
  info.d2h_bandwidth_gbs = record("gpu_d2h_bandwidth", bytes / (d2h * 1e-3) / 1e9, "GB/s");
  // Device memory: a copy within the device reads and writes each byte (METHOD.md's ceiling).
  char* d2 = s.alloc<char>(bytes);
  const double d2d = copy_ms(d2, d, bytes, cudaMemcpyDeviceToDevice, 5);
  info.memory_bandwidth_gbs = record("gpu_memory_bandwidth", 2.0 * bytes / (d2d * 1e-3) / 1e9, "GB/s");
  info.h2d_latency_us = record("gpu_h2d_latency", 1e3 * copy_ms(d, s.pinned, 8, cudaMemcpyHostToDevice, 20), "us");
  info.d2h_latency_us = record("gpu_d2h_latency", 1e3 * copy_ms(s.pinned, d, 8, cudaMemcpyDeviceToHost, 20), "us");
}

}  // namespace

GpuProbe cuda_gpus(bool measure_rates) {
  GpuProbe probe;
  int count = 0;
  cudaError_t status = cudaGetDeviceCount(&count);
  if (status == cudaErrorNoDevice || status == cudaErrorInsufficientDriver) {
    probe.note = std::string("no GPU: ") + cudaGetErrorString(status);
    return probe;
  }
  int current = 0;  // the probes switch devices; the solvers find the one the caller had current
  try {
    check(status, "cudaGetDeviceCount");
    check(cudaGetDevice(&current), "cudaGetDevice");
    for (int d = 0; d < count; ++d) {
      cudaDeviceProp prop{};
      check(cudaGetDeviceProperties(&prop, d), "cudaGetDeviceProperties");
      GpuInfo info;
      info.name = prop.name;
      info.compute_capability_major = prop.major;
      info.compute_capability_minor = prop.minor;
      info.multiprocessors = prop.multiProcessorCount;
      info.memory_bytes = static_cast<long long>(prop.totalGlobalMem);
      int khz = 0;
      check(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, d), "cudaDeviceGetAttribute(clock)");
      info.clock_mhz = khz / 1e3;
      check(cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, d), "cudaDeviceGetAttribute(memory clock)");
      info.memory_clock_mhz = khz / 1e3;
      info.memory_bus_bits = prop.memoryBusWidth;
      std::tie(info.pcie_generation, info.pcie_lanes) = pcie_link(prop.pciDomainID, prop.pciBusID, prop.pciDeviceID);
      estimate_from_properties(info);
      if (measure_rates) {
        double spread = 0;
        info.dgemm_gflops = measure_cublas_gemm<double>(d, 8192, &spread);
        info.measurements.push_back({"gpu_dgemm", info.dgemm_gflops, spread, "GFlop/s", "n=8192"});
        info.sgemm_gflops = measure_cublas_gemm<float>(d, 8192, &spread);
        info.measurements.push_back({"gpu_sgemm", info.sgemm_gflops, spread, "GFlop/s", "n=8192"});
        info.tf32_gemm_gflops = measure_cublas_gemm<float>(d, 8192, &spread, true);
        info.measurements.push_back({"gpu_tf32_gemm", info.tf32_gemm_gflops, spread, "GFlop/s", "n=8192"});
        const std::string lu_order = "n=" + std::to_string(vendor_lu_probe_order);
        info.dgetrf_gflops = measure_cusolver_getrf<double>(d, vendor_lu_probe_order, &spread);
        info.measurements.push_back({"gpu_dgetrf", info.dgetrf_gflops, spread, "GFlop/s", lu_order});
        info.sgetrf_gflops = measure_cusolver_getrf<float>(d, vendor_lu_probe_order, &spread);
        info.measurements.push_back({"gpu_sgetrf", info.sgetrf_gflops, spread, "GFlop/s", lu_order});
        measure_transfers(d, info);
      }
      probe.gpus.push_back(info);
    }
  } catch (const Error& e) {
    probe.note = e.what();
  }
  cudaSetDevice(current);  // best effort: a failure here was reported above
  return probe;
}

}  // namespace hetlu::probes
