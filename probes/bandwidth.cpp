#include <omp.h>

#include <algorithm>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "probes/probes.hpp"

namespace hetlu::probes {

long long triad_array_doubles(long long cache_bytes, long long memory_bytes) {
  const long long most = std::min(512LL << 20, memory_bytes > 0 ? memory_bytes / 16 : 512LL << 20) / 8;
  return std::max(std::min(4 * cache_bytes / 8, most), 1LL << 23);
}

Rate measure_triad(long long doubles, int repetitions, int threads) {
  if (doubles < 1) throw InvalidArgument("triad array length " + std::to_string(doubles) + " must be >= 1");
  std::unique_ptr<double[]> a, b, c;
  try {
    a.reset(new double[doubles]), b.reset(new double[doubles]), c.reset(new double[doubles]);
  } catch (const std::bad_alloc&) {
    throw Error("memory bandwidth probe: cannot allocate its three arrays of " +
                std::to_string(doubles * sizeof(double) >> 20) + " MiB");
  }
  // First touch in parallel, with the same static schedule as the timed loop: on a NUMA machine
  // each thread's pages land on its own node, as STREAM does.
  const int team = threads > 0 ? threads : omp_get_max_threads();
#pragma omp parallel for schedule(static) num_threads(team)
  for (long long i = 0; i < doubles; ++i) a[i] = 0, b[i] = 1, c[i] = 2;
  const double scalar = 3;
  const auto seconds = time_samples(
      [&] {
#pragma omp parallel for schedule(static) num_threads(team)
        for (long long i = 0; i < doubles; ++i) a[i] = b[i] + scalar * c[i];
      },
      repetitions);
  // Three arrays move per element: two read, one written (STREAM counts no write-allocate).
  return rate_from_seconds(3.0 * sizeof(double) * doubles / 1e9, seconds);
}

}  // namespace hetlu::probes
