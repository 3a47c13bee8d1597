// Front ends of the batched solve and the condition estimate (hetlu.hpp): arguments checked here
// (solvers/checks.hpp names what is wrong), then the solvers' kernels.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "hetlu/hetlu.hpp"
#include "solvers/checks.hpp"
#include "solvers/condition.hpp"
#include "solvers/lu.hpp"
#include "solvers/variants.hpp"

namespace hetlu {
namespace {

// The batch's arrays must lie within the address space: with stride 2^62, system 1 wrapped past the
// end of memory and was read and written wherever the pointer landed (a crash, or success).
template <class E>
void batch_within_memory(const char* stride_name, const E* base, int batch, std::int64_t stride, std::int64_t span) {
  if (span == 0) return;  // nothing of it is read or written
  const auto most = static_cast<std::int64_t>(std::numeric_limits<std::ptrdiff_t>::max() / sizeof(E));
  std::int64_t last = 0, end = 0;
  const bool overflows = __builtin_mul_overflow(std::int64_t(batch) - 1, stride, &last) ||
                         __builtin_add_overflow(last, span, &end) || end > most ||
                         reinterpret_cast<std::uintptr_t>(base) >
                             std::numeric_limits<std::uintptr_t>::max() - static_cast<std::uintptr_t>(end) * sizeof(E);
  if (overflows)
    throw InvalidArgument(std::string(stride_name) + " = " + std::to_string(stride) + ": the last of " +
                          std::to_string(batch) + " systems would lie beyond the address space");
}

}  // namespace

template <class T>
void gesv_batched(int batch, int n, int nrhs, T* A, int lda, std::int64_t stride_a, int* ipiv, std::int64_t stride_ipiv,
                  T* B, int ldb, std::int64_t stride_b, int* info) {
  checks::non_negative("batch", batch);
  checks::non_negative("n", n);
  checks::non_negative("nrhs", nrhs);
  checks::at_least("lda", lda, "max(1, n)", std::max(1, n));
  checks::at_least("ldb", ldb, "max(1, n)", std::max(1, n));
  checks::not_null("info", info, batch);
  if (batch > 1) {  // systems may not overlap: each stride covers its matrix (a batch of one needs none)
    checks::at_least("stride_a", stride_a, "lda * n", std::int64_t(lda) * n);
    checks::at_least("stride_ipiv", stride_ipiv, "n", n);
    checks::at_least("stride_b", stride_b, "ldb * nrhs", std::int64_t(ldb) * nrhs);
    batch_within_memory("stride_a", A, batch, stride_a, std::int64_t(lda) * n);
    batch_within_memory("stride_ipiv", ipiv, batch, stride_ipiv, n);
    batch_within_memory("stride_b", B, batch, stride_b, std::int64_t(ldb) * nrhs);
  }
  const long long systems = n > 0 ? batch : 0;
  checks::not_null("A", A, systems);
  checks::not_null("ipiv", ipiv, systems);
  checks::not_null("B", B, systems * nrhs);
  if (n == 0) {
    std::fill(info, info + batch, 0);
    return;
  }
  // As gesv refuses them: a system with a NaN or Inf is left as it is (info -3 for A, -6 for B) and
  // named once the others are solved (its X came back NaN with info 0).
  solvers::gesv_batched(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info,
                        InputCheck::finite);
  for (int i = 0; i < batch; ++i)
    if (info[i] < 0)
      throw InvalidArgument("system " + std::to_string(i) + ": " + (info[i] == -3 ? "A" : "B") +
                            " holds a NaN or Inf; the input must be finite (info[" + std::to_string(i) +
                            "] = " + std::to_string(info[i]) + "; the other systems are solved)");
}

template <class T>
double rcond_estimate(int n, const T* LU, int lda, const int* ipiv, double anorm) {
  checks::non_negative("n", n);
  checks::at_least("lda", lda, "max(1, n)", std::max(1, n));
  checks::not_null("LU", LU, static_cast<long long>(n) * n);
  checks::not_null("ipiv", ipiv, n);
  checks::pivots("ipiv", n, ipiv);  // the solves with the factors index rows by them
  if (!(anorm >= 0)) throw InvalidArgument("anorm = " + std::to_string(anorm) + " must be >= 0 (||A||_1)");
  return variants::lu_reciprocal_condition(n, LU, lda, ipiv, anorm);
}

template void gesv_batched<float>(int, int, int, float*, int, std::int64_t, int*, std::int64_t, float*, int,
                                  std::int64_t, int*);
template void gesv_batched<double>(int, int, int, double*, int, std::int64_t, int*, std::int64_t, double*, int,
                                   std::int64_t, int*);
template void gesv_batched<std::complex<double>>(int, int, int, std::complex<double>*, int, std::int64_t, int*,
                                                 std::int64_t, std::complex<double>*, int, std::int64_t, int*);
template void gesv_batched<std::complex<float>>(int, int, int, std::complex<float>*, int, std::int64_t, int*,
                                                std::int64_t, std::complex<float>*, int, std::int64_t, int*);
template double rcond_estimate<float>(int, const float*, int, const int*, double);
template double rcond_estimate<double>(int, const double*, int, const int*, double);
template double rcond_estimate<std::complex<double>>(int, const std::complex<double>*, int, const int*, double);
template double rcond_estimate<std::complex<float>>(int, const std::complex<float>*, int, const int*, double);

}  // namespace hetlu
