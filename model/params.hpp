// Efficiency factors and shape constants of the model, with their defaults and why.
#pragma once

#include <vector>

namespace hetlu::model {

struct ModelParams {
  // Fraction of peak a real factorization sustains (async-calu §4: 0.8 of CPU peak and 0.9 of
  // device peak gave reliable d on their machines). Applied to datasheet peaks only; measured
  // DGEMM rates are already real.
  double cpu_efficiency = 0.8;
  double device_efficiency = 0.9;

  // A GEMM whose inner dimension is k runs at rate * k / (k + gemm_half_rate_k): thin updates
  // cannot reuse cache. 24 fits OpenBLAS on AVX2/AVX-512 cores within a few percent at k >= 32.
  double gemm_half_rate_k = 24;

  // The recursive panel is GEMM-bound but thin and poorly parallel: it runs at this fraction of
  // the all-cores rate of a GEMM of its inner width.
  double panel_efficiency = 0.5;

  // Fixed cost of one panel step (synchronisation, BLAS call overhead), seconds.
  double step_overhead_seconds = 20e-6;

  // Panel widths the model chooses from.
  std::vector<int> nb_candidates = {16, 24, 32, 48, 64, 96, 128, 160, 192, 256, 320, 384, 512};
};

}  // namespace hetlu::model
