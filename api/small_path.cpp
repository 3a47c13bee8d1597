// The small-matrix path (#14.1): below the crossover, GEPP on the CPUs with nothing overridden
// goes to the BLAS library's own LU (or hetlu's loops up to order 32), with no plan resolved.
#include "api/small_path.hpp"

#include <algorithm>
#include <complex>

#include "api/front_end.hpp"
#include "solvers/checks.hpp"
#include "solvers/scalar.hpp"
#include "solvers/tiny_lu.hpp"
#include "solvers/vendor_lapack.hpp"

namespace hetlu {

using front_end::default_below;
using front_end::takes_small_path;

void detail::forget_default_crossover() {
  default_below<float>.store(-1, std::memory_order_relaxed);
  default_below<double>.store(-1, std::memory_order_relaxed);
  default_below<std::complex<float>>.store(-1, std::memory_order_relaxed);
  default_below<std::complex<double>>.store(-1, std::memory_order_relaxed);
}

template <class T>
bool detail::small_path_getrf(Solver solver, int m, int n, T* A, int lda, int* ipiv, const Options& options,
                              int* info) {
  if (!takes_small_path<T>(solver, m, n, options)) return false;
  checks::factorization(m, n, A, lda, ipiv);
  if (options.input_check == InputCheck::finite) {
    checks::entries_apart(checks::getrf_pivots(m, n, ipiv), checks::Entries::of("A", A, lda, n, m));
    checks::finite("A", m, n, A, lda);
  }
  return blas_library_getrf(m, n, A, lda, ipiv, info, options.small_own_loops);  // false: the library has none
}

template <class T>
int detail::small_path_getrf_default(int m, int n, T* A, int lda, int* ipiv) {
  const int below = default_below<T>.load(std::memory_order_relaxed);
  if (!below_small_matrix_crossover(m, n, below) || lda < std::max(1, m)) return -1;  // also: not yet resolved
  if (std::min(m, n) > 0 && (!A || !ipiv)) return -1;
  // Pivots inside A go the full way, which names them (the drop-in's keeps LAPACK's contract).
  if (checks::entries_meet(checks::getrf_pivots(m, n, ipiv), checks::Entries::of("A", A, lda, n, m))) return -1;
  // A NaN or Inf goes the full way, which names it: hetlu's loops (up to their order) would
  // propagate it, and beyond it the library's own scan declines it (one pass over A, not two).
  if (kernels::fits_tiny_lu(m, n) && !scalar::all_finite(m, n, A, lda)) return -1;
  int info = 0;
  return vendor::getrf(m, n, A, lda, ipiv, &info) ? info : -1;
}

template <class T>
bool detail::small_path_getrs_default(char trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B,
                                      int ldb) {
  const int below = default_below<T>.load(std::memory_order_relaxed);
  if (!small_path_getrs(n, nrhs, below) || lda < std::max(1, n) || ldb < std::max(1, n)) return false;
  if (n > 0 && (!LU || !ipiv || !B)) return false;
  const auto op = transpose_from_char(trans);
  if (!op || !scalar::all_finite(n, nrhs, B, ldb)) return false;
  return blas_library_getrs(*op, n, nrhs, LU, lda, ipiv, B, ldb);  // checks the pivots first
}

template bool detail::small_path_getrs_default<float>(char, int, int, const float*, int, const int*, float*, int);
template bool detail::small_path_getrs_default<double>(char, int, int, const double*, int, const int*, double*, int);
template bool detail::small_path_getrs_default<std::complex<double>>(char, int, int, const std::complex<double>*, int,
                                                                     const int*, std::complex<double>*, int);
template bool detail::small_path_getrs_default<std::complex<float>>(char, int, int, const std::complex<float>*, int,
                                                                    const int*, std::complex<float>*, int);
template int detail::small_path_getrf_default<float>(int, int, float*, int, int*);
template int detail::small_path_getrf_default<double>(int, int, double*, int, int*);
template int detail::small_path_getrf_default<std::complex<double>>(int, int, std::complex<double>*, int, int*);
template int detail::small_path_getrf_default<std::complex<float>>(int, int, std::complex<float>*, int, int*);
template bool detail::small_path_getrf<float>(Solver, int, int, float*, int, int*, const Options&, int*);
template bool detail::small_path_getrf<double>(Solver, int, int, double*, int, int*, const Options&, int*);
template bool detail::small_path_getrf<std::complex<double>>(Solver, int, int, std::complex<double>*, int, int*,
                                                             const Options&, int*);
template bool detail::small_path_getrf<std::complex<float>>(Solver, int, int, std::complex<float>*, int, int*,
                                                            const Options&, int*);
}  // namespace hetlu
