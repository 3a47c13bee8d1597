#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "probes/probes.hpp"

namespace hetlu::probes {

GemmRate measure_dgemm(int n, int threads, int repetitions) {
  if (n < 1) throw InvalidArgument("DGEMM probe size n = " + std::to_string(n) + " must be >= 1");
  if (threads < 1) throw InvalidArgument("threads = " + std::to_string(threads) + " must be >= 1");
  const size_t size = static_cast<size_t>(n) * n;
  std::vector<double> A(size), B(size), C(size, 0.0);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (size_t i = 0; i < size; ++i) A[i] = dist(rng), B[i] = dist(rng);

  const int saved_threads = openblas_get_num_threads();
  openblas_set_num_threads(threads);
  std::vector<double> seconds;
  for (int r = 0; r <= std::max(1, repetitions); ++r) {
    auto t0 = std::chrono::steady_clock::now();
    cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, A.data(), n, B.data(), n, 0.0, C.data(), n);
    auto t1 = std::chrono::steady_clock::now();
    if (r > 0) seconds.push_back(std::chrono::duration<double>(t1 - t0).count());  // r = 0 warms up
  }
  openblas_set_num_threads(saved_threads);

  std::nth_element(seconds.begin(), seconds.begin() + seconds.size() / 2, seconds.end());
  const double median = seconds[seconds.size() / 2];
  return {2.0 * n * n * double(n) / median / 1e9, n, threads};
}

}  // namespace hetlu::probes
