// Operation counts, one definition for every GFlop/s hetlu reports or predicts: the model, the
// tuner, the probes (CPU panels and the GPU), bench, the C++ API and Python.
#pragma once

namespace hetlu::detail {

// LAPACK's operation count for getrf of an m x n matrix (multiplications plus additions), as
// MAGMA's flops.h: about 2/3 n^3 for a square one, m n^2 - n^3/3 for a tall panel.
inline double getrf_flops(double m, double n) {
  double muls, adds;
  if (m < n) {
    muls = 0.5 * m * (m * (n - m / 3 - 1) + n) + 2 * m / 3;
    adds = 0.5 * m * (m * (n - m / 3) - n) + m / 6;
  } else {
    muls = 0.5 * n * (n * (m - n / 3 - 1) + m) + 2 * n / 3;
    adds = 0.5 * n * (n * (m - n / 3) - m) + n / 6;
  }
  return muls + adds;
}

// getrs with nrhs right-hand sides: two triangular solves, 2 n^2 nrhs.
inline double getrs_flops(double n, double nrhs) {
  return 2 * n * n * nrhs;
}

// gesv: getrf then getrs.
inline double gesv_flops(double n, double nrhs) {
  return getrf_flops(n, n) + getrs_flops(n, nrhs);
}

}  // namespace hetlu::detail
