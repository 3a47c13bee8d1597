#include "solvers/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "solvers/blas.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/row_omega.hpp"

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
double residual_and_backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb, T* R,
                                   int ldr, T* row_shares, int ldw) {
  constexpr int chunk = 1024;  // rows per task: its sums stay in L1 while the columns stream past
  const int chunks = (n + chunk - 1) / chunk;
  double omega = 0;
#pragma omp parallel reduction(max : omega) if (static_cast <long long>(n) * n * nrhs > 65536)
  {
    std::vector<double> residual(static_cast<size_t>(chunk) * nrhs), scale(residual.size());
#pragma omp for schedule(static)
    for (int c = 0; c < chunks; ++c) {
      const int first = c * chunk, rows = std::min(chunk, n - first);
      for (int r = 0; r < nrhs; ++r)
        for (int i = 0; i < rows; ++i) {
          const double b = B[first + i + static_cast<long long>(r) * ldb];
          residual[i + r * chunk] = b;
          scale[i + r * chunk] = std::abs(b);
        }
      // Four columns at a time: one load and store of the sums per four products, not per one.
      int j = 0;
      for (; j + 4 <= n; j += 4) {
        const T* a0 = A + first + static_cast<long long>(j) * lda;
        const T *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
        for (int r = 0; r < nrhs; ++r) {
          const T* x = X + j + static_cast<long long>(r) * ldx;
          const double x0 = x[0], x1 = x[1], x2 = x[2], x3 = x[3];
          double* __restrict res = residual.data() + r * chunk;
          double* __restrict sc = scale.data() + r * chunk;
          for (int i = 0; i < rows; ++i) {
            const double t0 = double(a0[i]) * x0, t1 = double(a1[i]) * x1, t2 = double(a2[i]) * x2,
                         t3 = double(a3[i]) * x3;
            res[i] -= (t0 + t1) + (t2 + t3);
            sc[i] += (std::abs(t0) + std::abs(t1)) + (std::abs(t2) + std::abs(t3));
          }
        }
      }
      for (; j < n; ++j) {
        const T* a = A + first + static_cast<long long>(j) * lda;
        for (int r = 0; r < nrhs; ++r) {
          const double xj = X[j + static_cast<long long>(r) * ldx];
          double* __restrict res = residual.data() + r * chunk;
          double* __restrict sc = scale.data() + r * chunk;
          for (int i = 0; i < rows; ++i) {
            const double term = double(a[i]) * xj;
            res[i] -= term;
            sc[i] += std::abs(term);
          }
        }
      }
      for (int r = 0; r < nrhs; ++r)
        for (int i = 0; i < rows; ++i) {
          const double r_i = residual[i + r * chunk], s_i = scale[i + r * chunk];
          if (R) R[first + i + static_cast<long long>(r) * ldr] = T(r_i);
          const double share = row_omega(r_i, s_i);
          if (row_shares) row_shares[first + i + static_cast<long long>(r) * ldw] = T(share);
          omega = std::max(omega, share);
        }
    }
  }
  return omega;
}

template <class T>
double largest_row_omega(int n, int nrhs, const T* row_shares, int ldw) {
  double omega = 0;
  for (int r = 0; r < nrhs; ++r)
    for (int i = 0; i < n; ++i) {
      const double share = row_shares[i + static_cast<long long>(r) * ldw];
      omega = std::isnan(share) ? std::numeric_limits<double>::infinity() : std::max(omega, share);
      if (std::isinf(omega)) return omega;
    }
  return omega;
}

template <class T>
double backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb,
                      bool a_stored_transposed) {
  if (!a_stored_transposed) return residual_and_backward_error<T>(n, nrhs, A, lda, X, ldx, B, ldb, nullptr, 0);
  double omega = 0;
  std::vector<double> residual(n), scale(n);
  for (int r = 0; r < nrhs; ++r) {
    const T* x = X + static_cast<long long>(r) * ldx;
    const T* b = B + static_cast<long long>(r) * ldb;
    for (int i = 0; i < n; ++i) {  // row i of A is contiguous
      const T* a = A + static_cast<long long>(i) * lda;
      double res = b[i], sc = std::abs(double(b[i]));
      for (int j = 0; j < n; ++j) {
        res -= double(a[j]) * x[j];
        sc += std::abs(double(a[j]) * x[j]);
      }
      omega = std::max(omega, row_omega(res, sc));
    }
  }
  return omega;
}

template double unit_roundoff<float>();
template double unit_roundoff<double>();
template double factorization_residual<float>(int, int, const float*, int, const float*, int, const int*);
template double factorization_residual<double>(int, int, const double*, int, const double*, int, const int*);
template double residual_and_backward_error<float>(int, int, const float*, int, const float*, int, const float*, int,
                                                   float*, int, float*, int);
template double residual_and_backward_error<double>(int, int, const double*, int, const double*, int, const double*,
                                                    int, double*, int, double*, int);
template double largest_row_omega<float>(int, int, const float*, int);
template double largest_row_omega<double>(int, int, const double*, int);
template double backward_error<float>(int, int, const float*, int, const float*, int, const float*, int, bool);
template double backward_error<double>(int, int, const double*, int, const double*, int, const double*, int, bool);

}  // namespace hetlu::accuracy
