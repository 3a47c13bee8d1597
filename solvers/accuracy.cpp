#include "solvers/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "solvers/blas.hpp"
#include "solvers/gepp_kernels.hpp"

namespace hetlu::accuracy {

template <class T>
double unit_roundoff() {
  return std::numeric_limits<T>::epsilon() / 2;
}

namespace {
double norm1(int m, int n, const double* A, int lda) {
  double best = 0;
  for (int j = 0; j < n; ++j) {
    double sum = 0;
    for (int i = 0; i < m; ++i) sum += std::abs(A[i + static_cast<long long>(j) * lda]);
    best = std::max(best, sum);
  }
  return best;
}
}  // namespace

template <class T>
double factorization_residual(int m, int n, const T* A, int lda, const T* LU, int ldlu, const int* ipiv) {
  if (m == 0 || n == 0) return 0;
  const int k = std::min(m, n);
  // Work in double so that the check itself adds no error worth counting.
  std::vector<double> L(static_cast<size_t>(m) * k, 0.0), U(static_cast<size_t>(k) * n, 0.0);
  std::vector<double> PA(static_cast<size_t>(m) * n);
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < m; ++i)
      L[i + static_cast<size_t>(j) * m] =
          i == j ? 1.0 : (i > j ? double(LU[i + static_cast<long long>(j) * ldlu]) : 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= std::min(j, k - 1); ++i)
      U[i + static_cast<size_t>(j) * k] = LU[i + static_cast<long long>(j) * ldlu];
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) PA[i + static_cast<size_t>(j) * m] = A[i + static_cast<long long>(j) * lda];
  kernels::laswp(n, PA.data(), m, 0, k, ipiv);

  const double a_norm = norm1(m, n, PA.data(), m);
  blas::gemm(blas::Op::no_trans, blas::Op::no_trans, m, n, k, -1.0, L.data(), m, U.data(), k, 1.0, PA.data(), m);
  const double r_norm = norm1(m, n, PA.data(), m);
  const double eps = unit_roundoff<T>();
  if (a_norm == 0) return r_norm == 0 ? 0 : 1 / eps;
  return r_norm / (n * a_norm * eps);
}

template <class T>
double backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb,
                      bool a_stored_transposed) {
  double omega = 0;
  std::vector<double> residual(n), scale(n);
  for (int r = 0; r < nrhs; ++r) {
    const T* x = X + static_cast<long long>(r) * ldx;
    const T* b = B + static_cast<long long>(r) * ldb;
    for (int i = 0; i < n; ++i) {
      residual[i] = b[i];
      scale[i] = std::abs(double(b[i]));
    }
    if (!a_stored_transposed) {
      for (int j = 0; j < n; ++j) {  // column by column: contiguous in A
        const T* a = A + static_cast<long long>(j) * lda;
        const double xj = x[j];
        for (int i = 0; i < n; ++i) {
          residual[i] -= double(a[i]) * xj;
          scale[i] += std::abs(double(a[i]) * xj);
        }
      }
    } else {
      for (int i = 0; i < n; ++i) {  // row i of A is contiguous
        const T* a = A + static_cast<long long>(i) * lda;
        for (int j = 0; j < n; ++j) {
          residual[i] -= double(a[j]) * x[j];
          scale[i] += std::abs(double(a[j]) * x[j]);
        }
      }
    }
    for (int i = 0; i < n; ++i) {
      const double r_i = std::abs(residual[i]);
      if (scale[i] > 0)
        omega = std::max(omega, r_i / scale[i]);
      else if (r_i > 0)
        return std::numeric_limits<double>::infinity();
    }
  }
  return omega;
}

template double unit_roundoff<float>();
template double unit_roundoff<double>();
template double factorization_residual<float>(int, int, const float*, int, const float*, int, const int*);
template double factorization_residual<double>(int, int, const double*, int, const double*, int, const int*);
template double backward_error<float>(int, int, const float*, int, const float*, int, const float*, int, bool);
template double backward_error<double>(int, int, const double*, int, const double*, int, const double*, int, bool);

}  // namespace hetlu::accuracy
