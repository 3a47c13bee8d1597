#include <omp.h>

#include <memory>
#include <vector>

#include "probes/probes.hpp"

namespace hetlu::probes {

Rate measure_triad(long long doubles, int repetitions) {
  if (doubles < 1) throw InvalidArgument("triad array length " + std::to_string(doubles) + " must be >= 1");
  std::unique_ptr<double[]> a(new double[doubles]), b(new double[doubles]), c(new double[doubles]);
  // First touch in parallel, with the same static schedule as the timed loop: on a NUMA machine
  // each thread's pages land on its own node, as STREAM does.
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < doubles; ++i) a[i] = 0, b[i] = 1, c[i] = 2;
  const double scalar = 3;
  const auto seconds = time_samples(
      [&] {
#pragma omp parallel for schedule(static)
        for (long long i = 0; i < doubles; ++i) a[i] = b[i] + scalar * c[i];
      },
      repetitions);
  // Three arrays move per element: two read, one written (STREAM counts no write-allocate).
  return rate_from_seconds(3.0 * sizeof(double) * doubles / 1e9, seconds);
}

}  // namespace hetlu::probes
