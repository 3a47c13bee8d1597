// gecon: the reciprocal 1-norm condition number of A from its LU factors, as LAPACK's dgecon
// (Hager's method with Higham's refinements, condition.hpp): about five solves with the factors, so
// O(n^2), but memory-bound: 15 % of dgesv's time at n = 4000 on the 2-core dev machine.
#include <cmath>
#include <complex>
#include <cstdint>

#include "solvers/condition.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {

template <class T>
double lu_reciprocal_condition(int n, const T* LU, int lda, const int* ipiv, double anorm) {
  if (n == 0) return 1;
  if (anorm == 0 || std::isnan(anorm)) return 0;
  for (int i = 0; i < n; ++i)
    if (LU[i + static_cast<std::int64_t>(i) * lda] == T(0)) return 0;  // exactly singular
  auto solve = [&](T* x, Transpose trans) { lu_getrs(trans, n, 1, LU, lda, ipiv, x, n); };
  const double inverse_norm = kernels::inverse_norm1_estimate<T>(
      n, [&](T* x) { solve(x, Transpose::no); }, [&](T* x) { solve(x, Transpose::conjugate); });
  if (!std::isfinite(inverse_norm) || inverse_norm == 0) return 0;
  return 1.0 / inverse_norm / anorm;
}

template double lu_reciprocal_condition<float>(int, const float*, int, const int*, double);
template double lu_reciprocal_condition<double>(int, const double*, int, const int*, double);
template double lu_reciprocal_condition<std::complex<double>>(int, const std::complex<double>*, int, const int*,
                                                              double);
template double lu_reciprocal_condition<std::complex<float>>(int, const std::complex<float>*, int, const int*, double);

}  // namespace hetlu::variants
