#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/statistics.hpp"
#include "probes/probes.hpp"
#include "probes/timed.hpp"
#include "solvers/blas_threads.hpp"

namespace hetlu::probes {
namespace {

void gemm(int n, const double* A, const double* B, double* C) {
  cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A, n, B, n, 0.0, C, n);
}
void gemm(int n, const float* A, const float* B, float* C) {
  cblas_sgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0f, A, n, B, n, 0.0f, C, n);
}

}  // namespace

template <class T>
Rate measure_gemm(int n, int threads, int repetitions) {
  if (n < 1) throw InvalidArgument("GEMM probe size n = " + std::to_string(n) + " must be >= 1");
  if (threads < 1) throw InvalidArgument("threads = " + std::to_string(threads) + " must be >= 1");
  const size_t size = static_cast<size_t>(n) * n;
  std::vector<T> A(size), B(size), C(size, T(0));
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (size_t i = 0; i < size; ++i) A[i] = T(dist(rng)), B[i] = T(dist(rng));

  std::vector<double> seconds;
  {
    const kernels::BlasThreadCount count(threads);  // no solve of another thread meanwhile (blas_threads.hpp)
    seconds = time_samples([&] { gemm(n, A.data(), B.data(), C.data()); }, repetitions);
  }
  return rate_from_seconds(detail::gemm_flops(n, n, n) / 1e9, seconds);
}

GemmRate measure_dgemm(int n, int threads, int repetitions) {
  const Rate r = measure_gemm<double>(n, threads, repetitions);
  return {r.median, n, threads, r.spread};
}

template Rate measure_gemm<float>(int, int, int);
template Rate measure_gemm<double>(int, int, int);

}  // namespace hetlu::probes
