// gecon: the reciprocal 1-norm condition number of A from its LU factors, as LAPACK's dgecon
// (Hager's method with Higham's refinements, condition.hpp): about five solves with the factors, so
// O(n^2), but memory-bound: 15 % of dgesv's time at n = 4000 on the 2-core dev machine.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <vector>

#include "solvers/blas.hpp"
#include "solvers/condition.hpp"
#include "solvers/scalar.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {

namespace {

// 1 / (||A||_1 ||U^-1 L^-1||_1), by Hager and Higham's estimate (condition.hpp), as dgecon estimates
// it: the operator U^-1 L^-1 and its conjugate transpose (A^-1 = U^-1 L^-1 P, and P only permutes
// columns). by_columns: solved as dlatrs solves factors that grew, by columns (axpy) for L and U,
// by rows (dotc) for their conjugate transposes, dividing by the pivots; else by the library's
// blocked solves (threaded: 2x faster at n = 3000 to 6000 on 2 cores), U again by dividing where
// they overflowed (OpenBLAS's complex trsv does where LAPACK's does not).
template <class T>
double estimate(int n, const T* LU, int lda, double anorm, bool by_columns) {
  // The estimator's vectors scaled by 2^e, so that the solves' results, about 2^e ||A^-1||, stay
  // finite where ||A^-1|| alone overflows: for ||A||_1 < 1, 2^e about ||A||_1 2^digits (A = randn
  // 1e-305 at n = 1025 gave rcond 0 against dgecon's 1.3e-5, which scales its solves as dlatrs). The
  // estimate is the same for any scale: it keeps only signs, the largest entry's place and ratios.
  // Not scaled up for large norms: the back substitution's products, about ||A|| cond eps, then
  // overflowed for badly scaled A (rcond 0 where dgecon gives 8e-171; a review finding).
  constexpr int digits = std::numeric_limits<scalar::real_t<T>>::digits;
  const int e = anorm < 1 ? std::min(0, std::ilogb(anorm) + digits) : 0;
  const auto column = [&](int j) { return LU + static_cast<std::int64_t>(j) * lda; };
  std::vector<T> before_u(by_columns ? 0 : n);
  auto lower = [&](T* x, Transpose trans) {
    if (!by_columns)
      blas::trsm(blas::Side::left, blas::Uplo::lower, blas::op_of(trans), blas::Diag::unit, n, 1, T(1), LU, lda, x, n);
    else if (trans == Transpose::no)
      for (int j = 0; j + 1 < n; ++j) {
        if (x[j] != T(0)) blas::axpy(n - j - 1, -x[j], column(j) + j + 1, x + j + 1);
      }
    else
      for (int j = n - 2; j >= 0; --j) x[j] -= blas::dotc(n - j - 1, column(j) + j + 1, x + j + 1);
  };
  auto upper_by_columns = [&](T* x, Transpose trans) {
    if (trans == Transpose::no)
      for (int j = n - 1; j >= 0; --j) {
        if (x[j] == T(0)) continue;
        x[j] = scalar::divide(x[j], column(j)[j]);
        blas::axpy(j, -x[j], column(j), x);
      }
    else
      for (int j = 0; j < n; ++j) x[j] = scalar::divide(x[j] - blas::dotc(j, column(j), x), scalar::conj(column(j)[j]));
  };
  auto upper = [&](T* x, Transpose trans) {
    if (!by_columns) {
      std::copy(x, x + n, before_u.begin());
      blas::trsm(blas::Side::left, blas::Uplo::upper, blas::op_of(trans), blas::Diag::non_unit, n, 1, T(1), LU, lda, x,
                 n);
      if (scalar::all_finite(x, n)) return;
      std::copy(before_u.begin(), before_u.end(), x);
    }
    upper_by_columns(x, trans);
  };
  auto solve = [&](T* x, Transpose trans) {
    for (int i = 0; i < n; ++i) x[i] = scalar::scale_by_power_of_two(x[i], e);
    if (trans == Transpose::no) {
      lower(x, trans);
      upper(x, trans);
    } else {
      upper(x, trans);
      lower(x, trans);
    }
  };
  const double scaled_inverse_norm = kernels::inverse_norm1_estimate<T>(
      n, [&](T* x) { solve(x, Transpose::no); }, [&](T* x) { solve(x, Transpose::conjugate); });
  if (!std::isfinite(scaled_inverse_norm) || scaled_inverse_norm == 0) return 0;
  // 1 / (||A^-1|| anorm) with ||A^-1|| = 2^-e scaled: 2^e / anorm first, about 2^digits at most
  // (1 / anorm alone overflows for a subnormal anorm).
  return std::ldexp(1.0, e) / anorm / scaled_inverse_norm;
}

// Whether an entry of U's upper triangle exceeds bound (in modulus; a NaN does not).
// Columns in parallel where compiled with OpenMP (as norm1 reads A), each or-reduced so that the
// compiler vectorizes it.
template <class T>
bool upper_grew(int n, const T* LU, int lda, double bound) {
  bool grew = false;
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 64) reduction(|| : grew)
#endif
  for (int j = 0; j < n; ++j) {
    const T* column = LU + static_cast<std::int64_t>(j) * lda;
    bool here = false;
    for (int i = 0; i <= j; ++i) here |= double(std::abs(column[i])) > bound;
    grew = grew || here;
  }
  return grew;
}

}  // namespace

template <class T>
double lu_reciprocal_condition(int n, const T* LU, int lda, const int* ipiv, double anorm) {
  static_cast<void>(ipiv);  // the row interchanges leave the 1-norm as it is
  if (n == 0) return 1;
  if (anorm == 0 || !std::isfinite(anorm)) return 0;
  for (int i = 0; i < n; ++i)
    if (LU[i + static_cast<std::int64_t>(i) * lda] == T(0)) return 0;  // exactly singular
  // Solved in dlatrs' order below blocked_one_column_order, and above it where U grew past ||A||_1
  // (one read of U: a fifth of the blocked estimate's time at n = 4000 on 2 cores). With getrs (P, and the
  // BLAS's trsv summing by blocks) the factors of Wilkinson's matrix, grown 2^(n-1), gave rcond
  // 1.2e-33 at n = 165 where the true 6.1e-3 is dgecon's from the same factors, and its block in a
  // complex identity of order 2200 gave 1.2e-6 (a review's findings).
  return estimate(n, LU, lda, anorm, n < blas::blocked_one_column_order || upper_grew(n, LU, lda, anorm));
}

template double lu_reciprocal_condition<float>(int, const float*, int, const int*, double);
template double lu_reciprocal_condition<double>(int, const double*, int, const int*, double);
template double lu_reciprocal_condition<std::complex<double>>(int, const std::complex<double>*, int, const int*,
                                                              double);
template double lu_reciprocal_condition<std::complex<float>>(int, const std::complex<float>*, int, const int*, double);

}  // namespace hetlu::variants
