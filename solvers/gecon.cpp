// gecon: the reciprocal 1-norm condition number of A from its LU factors, as LAPACK's dgecon
// (Hager's method with Higham's refinements, condition.hpp): about five solves with the factors, so
// O(n^2), but memory-bound: 15 % of dgesv's time at n = 4000 on the 2-core dev machine.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>

#include "solvers/condition.hpp"
#include "solvers/scalar.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {

template <class T>
double lu_reciprocal_condition(int n, const T* LU, int lda, const int* ipiv, double anorm) {
  if (n == 0) return 1;
  if (anorm == 0 || !std::isfinite(anorm)) return 0;
  for (int i = 0; i < n; ++i)
    if (LU[i + static_cast<std::int64_t>(i) * lda] == T(0)) return 0;  // exactly singular
  // The estimator's vectors scaled by 2^e, so that the solves' results, about 2^e ||A^-1||, stay
  // finite where ||A^-1|| alone overflows: for ||A||_1 < 1, 2^e about ||A||_1 2^digits (A = randn
  // 1e-305 at n = 1025 gave rcond 0 against dgecon's 1.3e-5, which scales its solves as dlatrs). The
  // estimate is the same for any scale: it keeps only signs, the largest entry's place and ratios.
  // Not scaled up for large norms: the back substitution's products, about ||A|| cond eps, then
  // overflowed for badly scaled A (rcond 0 where dgecon gives 8e-171; a review finding).
  constexpr int digits = std::numeric_limits<scalar::real_t<T>>::digits;
  const int e = anorm < 1 ? std::min(0, std::ilogb(anorm) + digits) : 0;
  auto solve = [&](T* x, Transpose trans) {
    for (int i = 0; i < n; ++i) x[i] = scalar::scale_by_power_of_two(x[i], e);
    lu_getrs(trans, n, 1, LU, lda, ipiv, x, n);
  };
  const double scaled_inverse_norm = kernels::inverse_norm1_estimate<T>(
      n, [&](T* x) { solve(x, Transpose::no); }, [&](T* x) { solve(x, Transpose::conjugate); });
  if (!std::isfinite(scaled_inverse_norm) || scaled_inverse_norm == 0) return 0;
  // 1 / (||A^-1|| anorm) with ||A^-1|| = 2^-e scaled: 2^e / anorm first, about 2^digits at most
  // (1 / anorm alone overflows for a subnormal anorm).
  return std::ldexp(1.0, e) / anorm / scaled_inverse_norm;
}

template double lu_reciprocal_condition<float>(int, const float*, int, const int*, double);
template double lu_reciprocal_condition<double>(int, const double*, int, const int*, double);
template double lu_reciprocal_condition<std::complex<double>>(int, const std::complex<double>*, int, const int*,
                                                              double);
template double lu_reciprocal_condition<std::complex<float>>(int, const std::complex<float>*, int, const int*, double);

}  // namespace hetlu::variants
