// Operation counts, one definition for every GFlop/s hetlu reports or predicts: the model, the
// tuner, the probes (CPU panels and the GPU), bench, the C++ API and Python.
#pragma once

namespace hetlu::detail {

// Multiplications and additions of getrf of an m x n matrix, as MAGMA's flops.h: about 1/3 n^3 of
// each for a square one.
struct OperationCount {
  double muls = 0, adds = 0;
  // In real flops: a complex multiplication is 6 of them, a complex addition 2 (LAPACK's and
  // MAGMA's convention), so a complex LU counts about 4x the real one.
  double flops(bool complex) const { return complex ? 6 * muls + 2 * adds : muls + adds; }
};

inline OperationCount getrf_operations(double m, double n) {
  if (m < n) return {0.5 * m * (m * (n - m / 3 - 1) + n) + 2 * m / 3, 0.5 * m * (m * (n - m / 3) - n) + m / 6};
  return {0.5 * n * (n * (m - n / 3 - 1) + m) + 2 * n / 3, 0.5 * n * (n * (m - n / 3) - m) + n / 6};
}

// LAPACK's operation count for getrf of an m x n matrix (multiplications plus additions): about
// 2/3 n^3 for a square one, m n^2 - n^3/3 for a tall panel; complex: in real flops, as above.
inline double getrf_flops(double m, double n, bool complex = false) {
  return getrf_operations(m, n).flops(complex);
}

// getrs with nrhs right-hand sides: two triangular solves, n^2 nrhs multiplications and as many
// additions.
inline double getrs_flops(double n, double nrhs, bool complex = false) {
  return OperationCount{n * n * nrhs, n * n * nrhs}.flops(complex);
}

// gemm of an m x k by a k x n matrix: m n k multiplications and as many additions (what the GEMM
// probes, CPU and GPU, divide their times into).
inline double gemm_flops(double m, double n, double k) {
  return 2 * m * n * k;
}

// gesv: getrf then getrs.
inline double gesv_flops(double n, double nrhs, bool complex = false) {
  return getrf_flops(n, n, complex) + getrs_flops(n, nrhs, complex);
}

// The rate `flops` in `seconds` make, in GFlop/s; 0 where no time was measured.
inline double gflops(double flops, double seconds) {
  return seconds > 0 ? flops / seconds / 1e9 : 0;
}

}  // namespace hetlu::detail
