// Front ends of the batched solve and the condition estimate (hetlu.hpp): arguments checked here,
// with a message naming what is wrong, then the solvers' kernels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "hetlu/hetlu.hpp"
#include "solvers/condition.hpp"
#include "solvers/lu.hpp"
#include "solvers/variants.hpp"

namespace hetlu {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw InvalidArgument(what);
}

}  // namespace

template <class T>
void gesv_batched(int batch, int n, int nrhs, T* A, int lda, std::int64_t stride_a, int* ipiv, std::int64_t stride_ipiv,
                  T* B, int ldb, std::int64_t stride_b, int* info) {
  const auto text = [](auto v) { return std::to_string(v); };
  require(batch >= 0, "gesv_batched: batch = " + text(batch) + " must be >= 0");
  require(n >= 0, "gesv_batched: n = " + text(n) + " must be >= 0");
  require(nrhs >= 0, "gesv_batched: nrhs = " + text(nrhs) + " must be >= 0");
  require(lda >= std::max(1, n),
          "gesv_batched: lda = " + text(lda) + " must be >= max(1, n) = " + text(std::max(1, n)));
  require(ldb >= std::max(1, n),
          "gesv_batched: ldb = " + text(ldb) + " must be >= max(1, n) = " + text(std::max(1, n)));
  if (batch == 0) return;
  require(info != nullptr, "gesv_batched: info is a null pointer");
  // Systems may not overlap: each stride covers its matrix (a batch of one needs none).
  const std::int64_t a_size = std::int64_t(lda) * n, b_size = std::int64_t(ldb) * nrhs;
  require(batch == 1 || stride_a >= a_size,
          "gesv_batched: stride_a = " + text(stride_a) + " is less than lda * n = " + text(a_size));
  require(batch == 1 || stride_ipiv >= n,
          "gesv_batched: stride_ipiv = " + text(stride_ipiv) + " is less than n = " + text(n));
  require(batch == 1 || stride_b >= b_size,
          "gesv_batched: stride_b = " + text(stride_b) + " is less than ldb * nrhs = " + text(b_size));
  if (n == 0) {
    std::fill(info, info + batch, 0);
    return;
  }
  require(A != nullptr, "gesv_batched: A is a null pointer");
  require(ipiv != nullptr, "gesv_batched: ipiv is a null pointer");
  require(B != nullptr || nrhs == 0, "gesv_batched: B is a null pointer");
  solvers::gesv_batched(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info);
}

template <class T>
double rcond_estimate(int n, const T* LU, int lda, const int* ipiv, double anorm) {
  require(n >= 0, "rcond_estimate: n = " + std::to_string(n) + " must be >= 0");
  require(lda >= std::max(1, n), "rcond_estimate: lda = " + std::to_string(lda) + " must be >= max(1, n)");
  require(!(anorm < 0), "rcond_estimate: anorm = " + std::to_string(anorm) + " must be >= 0");
  if (n == 0) return 1;
  if (anorm == 0 || std::isnan(anorm)) return 0;
  for (int i = 0; i < n; ++i)
    if (LU[i + static_cast<std::int64_t>(i) * lda] == T(0)) return 0;  // exactly singular
  auto solve = [&](T* x, Transpose trans) { variants::lu_getrs(trans, n, 1, LU, lda, ipiv, x, n); };
  const double inverse_norm = kernels::inverse_norm1_estimate<T>(
      n, [&](T* x) { solve(x, Transpose::no); }, [&](T* x) { solve(x, Transpose::yes); });
  if (!std::isfinite(inverse_norm) || inverse_norm == 0) return 0;
  return 1.0 / inverse_norm / anorm;
}

template void gesv_batched<float>(int, int, int, float*, int, std::int64_t, int*, std::int64_t, float*, int,
                                  std::int64_t, int*);
template void gesv_batched<double>(int, int, int, double*, int, std::int64_t, int*, std::int64_t, double*, int,
                                   std::int64_t, int*);
template double rcond_estimate<float>(int, const float*, int, const int*, double);
template double rcond_estimate<double>(int, const double*, int, const int*, double);

}  // namespace hetlu
