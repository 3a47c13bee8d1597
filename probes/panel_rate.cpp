#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/stopwatch.hpp"
#include "probes/probes.hpp"
#include "solvers/blas_threads.hpp"
#include "solvers/gepp_kernels.hpp"

namespace hetlu::probes {

Rate measure_panel(const std::string& kind, int rows, int width, int threads, int repetitions) {
  if (kind != "gepp" && kind != "tslu" && kind != "tslu_leaf")
    throw InvalidArgument("panel kind '" + kind + "' must be gepp, tslu or tslu_leaf");
  if (rows < width || width < 1)
    throw InvalidArgument("panel of " + std::to_string(rows) + " x " + std::to_string(width) +
                          ": need rows >= width >= 1");
  if (threads < 1) throw InvalidArgument("threads = " + std::to_string(threads) + " must be >= 1");
  std::vector<double> original(static_cast<size_t>(rows) * width), work(original.size());
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (auto& x : original) x = dist(rng);
  std::vector<int> ipiv(width);

  std::vector<double> seconds;
  // The GEPP panel's BLAS calls at `threads`; TSLU runs its own row blocks. No solve of another
  // thread meanwhile (blas_threads.hpp).
  const kernels::BlasThreadCount count(threads);
  for (int r = 0; r <= std::max(1, repetitions); ++r) {
    std::copy(original.begin(), original.end(), work.begin());
    const double s = detail::seconds_of([&] {
      if (kind == "gepp")
        kernels::getrf_recursive(rows, width, work.data(), rows, ipiv.data());
      else if (kind == "tslu_leaf")
        kernels::tslu_panel(rows, width, work.data(), rows, ipiv.data(), threads);
      else
        kernels::calu_panel(rows, width, work.data(), rows, ipiv.data(), std::min(width, Plan{}.ib), threads);
    });
    if (r > 0) seconds.push_back(s);
  }
  // Credit the GEPP panel's flops to both kinds: TSLU's extra tournament work shows as a lower rate.
  const double flops = detail::getrf_flops(rows, width);
  return rate_from_seconds(flops / 1e9, seconds);
}

}  // namespace hetlu::probes
