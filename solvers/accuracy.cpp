#include "solvers/accuracy.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "solvers/blas.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/row_omega.hpp"
#include "solvers/scalar.hpp"

namespace hetlu::accuracy {

template <class T>
double unit_roundoff() {
  return std::numeric_limits<scalar::real_t<T>>::epsilon() / 2;
}

namespace {
template <class W>
double norm1(int m, int n, const W* A, int lda) {
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
  // Work in double (or complex double) so that the check itself adds no error worth counting.
  using W = scalar::wide_t<T>;
  std::vector<W> L(static_cast<size_t>(m) * k, W(0)), U(static_cast<size_t>(k) * n, W(0));
  std::vector<W> PA(static_cast<size_t>(m) * n);
  for (int j = 0; j < k; ++j)
    for (int i = 0; i < m; ++i)
      L[i + static_cast<size_t>(j) * m] = i == j ? W(1) : (i > j ? W(LU[i + static_cast<long long>(j) * ldlu]) : W(0));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i <= std::min(j, k - 1); ++i)
      U[i + static_cast<size_t>(j) * k] = W(LU[i + static_cast<long long>(j) * ldlu]);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) PA[i + static_cast<size_t>(j) * m] = W(A[i + static_cast<long long>(j) * lda]);
  kernels::laswp(n, PA.data(), m, 0, k, ipiv);

  const double a_norm = norm1(m, n, PA.data(), m);
  blas::gemm(blas::Op::no_trans, blas::Op::no_trans, m, n, k, W(-1), L.data(), m, U.data(), k, W(1), PA.data(), m);
  const double r_norm = norm1(m, n, PA.data(), m);
  const double eps = unit_roundoff<T>();
  if (a_norm == 0) return r_norm == 0 ? 0 : 1 / eps;
  return r_norm / (n * a_norm * eps);
}

namespace {

// GCC 12 or later: clang takes no target_clones on templates, GCC 11 no arch=x86-64-vN in them.
// The AVX copies contract to FMA, as the BLAS does: omega may differ in its last bits by machine.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12
#define HETLU_VECTOR_CLONES __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define HETLU_VECTOR_CLONES
#endif

// max_j |a_ij| (|re| + |im|) of rows [first, first + rows), by columns.
template <class T>
std::vector<double> row_maxima(int first, int rows, int n, const T* A, int lda) {
  std::vector<double> largest(rows, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < rows; ++i)
      largest[i] = std::max(largest[i], scalar::abs1(A[first + i + static_cast<long long>(j) * lda]));
  return largest;
}

template <class T>
double largest_entry(int n, const T* x) {
  double largest = 0;
  for (int i = 0; i < n; ++i) largest = std::max(largest, scalar::abs1(x[i]));
  return largest;
}

// Rows [first, first + rows) of residual_and_backward_error: R's and the row shares, and the
// largest share. Compiled for AVX-512 and AVX2 (with FMA) beside the baseline, chosen at load time:
// at n = 4000 the baseline's pass took 5.6-6.0 ms against the BLAS's 3.8 ms DGEMV, AVX2's 4.8 and
// AVX-512's 4.2 (dev machine), and a mixed solve makes one per refinement step.
template <class T>
HETLU_VECTOR_CLONES double residual_rows(int first, int rows, int n, int nrhs, const T* A, int lda, const T* X, int ldx,
                                         const T* B, int ldb, T* R, int ldr, T* row_shares, int ldw,
                                         scalar::wide_t<T>* __restrict residual, double* __restrict scale, int chunk) {
  using W = scalar::wide_t<T>;  // sums of products; magnitudes |re| + |im| as LAPACK's zgerfs
  using scalar::abs1;
  for (int r = 0; r < nrhs; ++r)
    for (int i = 0; i < rows; ++i) {
      const W b = W(B[first + i + static_cast<long long>(r) * ldb]);
      residual[i + r * chunk] = b;
      scale[i + r * chunk] = abs1(b);
    }
  // Eight columns at a time: one load and store of the sums per eight products, not per one
  // (eight measured 10-15 % faster than four at n = 4000).
  int j = 0;
  for (; j + 8 <= n; j += 8) {
    const T* a0 = A + first + static_cast<long long>(j) * lda;
    const T *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda, *a4 = a3 + lda, *a5 = a4 + lda, *a6 = a5 + lda,
            *a7 = a6 + lda;
    for (int r = 0; r < nrhs; ++r) {
      const T* x = X + j + static_cast<long long>(r) * ldx;
      const W x0 = W(x[0]), x1 = W(x[1]), x2 = W(x[2]), x3 = W(x[3]), x4 = W(x[4]), x5 = W(x[5]), x6 = W(x[6]),
              x7 = W(x[7]);
      W* __restrict res = residual + r * chunk;
      double* __restrict sc = scale + r * chunk;
      for (int i = 0; i < rows; ++i) {
        const W t0 = W(a0[i]) * x0, t1 = W(a1[i]) * x1, t2 = W(a2[i]) * x2, t3 = W(a3[i]) * x3;
        const W t4 = W(a4[i]) * x4, t5 = W(a5[i]) * x5, t6 = W(a6[i]) * x6, t7 = W(a7[i]) * x7;
        res[i] -= ((t0 + t1) + (t2 + t3)) + ((t4 + t5) + (t6 + t7));
        sc[i] += ((abs1(t0) + abs1(t1)) + (abs1(t2) + abs1(t3))) + ((abs1(t4) + abs1(t5)) + (abs1(t6) + abs1(t7)));
      }
    }
  }
  for (; j < n; ++j) {
    const T* a = A + first + static_cast<long long>(j) * lda;
    for (int r = 0; r < nrhs; ++r) {
      const W xj = W(X[j + static_cast<long long>(r) * ldx]);
      W* __restrict res = residual + r * chunk;
      double* __restrict sc = scale + r * chunk;
      for (int i = 0; i < rows; ++i) {
        const W term = W(a[i]) * xj;
        res[i] -= term;
        sc[i] += abs1(term);
      }
    }
  }
  // Rows so small that underflow may hide their residual (row_omega.hpp): each row's largest entry,
  // in one more pass over the chunk's columns, only where one is found.
  std::vector<double> row_largest;
  for (int k = 0; k < rows * nrhs && row_largest.empty(); ++k)
    if (may_hide(n, scale[k % rows + (k / rows) * chunk])) row_largest = row_maxima(first, rows, n, A, lda);
  double omega = 0;
  for (int r = 0; r < nrhs; ++r) {
    const double x_largest = row_largest.empty() ? 0 : largest_entry(n, X + static_cast<long long>(r) * ldx);
    for (int i = 0; i < rows; ++i) {
      const W r_i = residual[i + r * chunk];
      const double s_i = scale[i + r * chunk];
      if (R) R[first + i + static_cast<long long>(r) * ldr] = scalar::narrow<T>(r_i);
      const double hidden =
          row_largest.empty() || !may_hide(n, s_i)
              ? 0
              : underflow_hidden(n, abs1(B[first + i + static_cast<long long>(r) * ldb]) + row_largest[i] * x_largest);
      const double share = row_omega(abs1(r_i), s_i, hidden);
      if (row_shares) row_shares[first + i + static_cast<long long>(r) * ldw] = T(share);
      omega = std::max(omega, share);
    }
  }
  return omega;
}

}  // namespace

template <class T>
double residual_and_backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb, T* R,
                                   int ldr, T* row_shares, int ldw) {
  constexpr int chunk = 1024;  // rows per task: its sums stay in L1 while the columns stream past
  const int chunks = (n + chunk - 1) / chunk;
  double omega = 0;
#pragma omp parallel reduction(max : omega) if (static_cast <long long>(n) * n * nrhs > 65536)
  {
    std::vector<scalar::wide_t<T>> residual(static_cast<size_t>(chunk) * nrhs);
    std::vector<double> scale(residual.size());
#pragma omp for schedule(static)
    for (int c = 0; c < chunks; ++c) {
      const int first = c * chunk, rows = std::min(chunk, n - first);
      omega = std::max(omega, residual_rows(first, rows, n, nrhs, A, lda, X, ldx, B, ldb, R, ldr, row_shares, ldw,
                                            residual.data(), scale.data(), chunk));
    }
  }
  return omega;
}

template <class T>
double largest_row_omega(int n, int nrhs, const T* row_shares, int ldw) {
  double omega = 0;
  for (int r = 0; r < nrhs; ++r)
    for (int i = 0; i < n; ++i) {
      const double share = std::real(row_shares[i + static_cast<long long>(r) * ldw]);
      omega = std::isnan(share) ? std::numeric_limits<double>::infinity() : std::max(omega, share);
      if (std::isinf(omega)) return omega;
    }
  return omega;
}

template <class T>
double backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb,
                      bool a_stored_transposed) {
  if (!a_stored_transposed) return residual_and_backward_error<T>(n, nrhs, A, lda, X, ldx, B, ldb, nullptr, 0);
  using W = scalar::wide_t<T>;
  double omega = 0;
  for (int r = 0; r < nrhs; ++r) {
    const T* x = X + static_cast<long long>(r) * ldx;
    const T* b = B + static_cast<long long>(r) * ldb;
    for (int i = 0; i < n; ++i) {  // row i of A is contiguous
      const T* a = A + static_cast<long long>(i) * lda;
      W res = W(b[i]);
      double sc = scalar::abs1(res);
      for (int j = 0; j < n; ++j) {
        const W term = W(a[j]) * W(x[j]);
        res -= term;
        sc += scalar::abs1(term);
      }
      const double hidden =
          may_hide(n, sc) ? underflow_hidden(n, scalar::abs1(b[i]) + largest_entry(n, a) * largest_entry(n, x)) : 0;
      omega = std::max(omega, row_omega(scalar::abs1(res), sc, hidden));
    }
  }
  return omega;
}

template <class T>
double normwise_backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb,
                               bool a_stored_transposed) {
  using W = scalar::wide_t<T>;
  constexpr double inf = std::numeric_limits<double>::infinity();
  auto entry = [&](int i, int j) {
    return a_stored_transposed ? A[j + static_cast<long long>(i) * lda] : A[i + static_cast<long long>(j) * lda];
  };
  auto a_norm_of = [&](double a_scale) {  // ||a_scale A||_inf: the largest row sum
    double a_norm = 0;
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int j = 0; j < n; ++j) sum += scalar::abs1(W(entry(i, j)) * a_scale);
      a_norm = std::max(a_norm, sum);
    }
    return a_norm;
  };
  double x_largest = 0, b_largest = 0;
  for (int r = 0; r < nrhs; ++r)
    for (int i = 0; i < n; ++i) {
      x_largest = std::max(x_largest, scalar::abs_max(X[i + static_cast<long long>(r) * ldx]));
      b_largest = std::max(b_largest, scalar::abs1(B[i + static_cast<long long>(r) * ldb]));
    }
  // eta is the same for (s A, t x, s t b). Where ||A|| ||x|| + ||b|| overflows, or ||A|| ||x||
  // underflows, A and x are scaled by powers of two to entries near 1 (exact but for what falls
  // below ||A|| 2^-1074): plain sums made ||A||, or the denominator, Inf for a finite system with
  // entries near 1e308, eta 0, and a wrong x passed.
  int a_exponent = 0, x_exponent = 0;
  double a_norm = a_norm_of(1);
  // ||x|| in the denominator is |re| + |im|, up to twice x_largest (max(|re|, |im|)).
  const double product = a_norm * (scalar::is_complex_v<T> ? 2 * x_largest : x_largest);
  if ((a_norm > 0 && x_largest > 0 && product < std::numeric_limits<double>::min()) ||
      !(product + b_largest <= std::numeric_limits<double>::max())) {
    double a_largest = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) a_largest = std::max(a_largest, scalar::abs_max(entry(i, j)));
    a_exponent = scalar::normalizing_exponent(a_largest);
    x_exponent = scalar::normalizing_exponent(x_largest);
    a_norm = a_norm_of(std::ldexp(1.0, -a_exponent));
  }
  const double a_scale = std::ldexp(1.0, -a_exponent), x_scale = std::ldexp(1.0, -x_exponent);
  double eta = 0;
  std::vector<W> residual(std::max(0, n)), x(std::max(0, n));
  for (int r = 0; r < nrhs; ++r) {
    const T* b = B + static_cast<long long>(r) * ldb;
    double x_norm = 0, b_norm = 0, r_norm = 0;
    for (int j = 0; j < n; ++j) {
      x[j] = W(X[j + static_cast<long long>(r) * ldx]) * x_scale;
      x_norm = std::max(x_norm, scalar::abs1(x[j]));
    }
    for (int i = 0; i < n; ++i) {  // b scaled as A and x are
      residual[i] = scalar::times_power_of_two(W(b[i]), -(a_exponent + x_exponent));
      b_norm = std::max(b_norm, scalar::abs1(residual[i]));
    }
    if (a_stored_transposed) {  // in memory order: row i of A is contiguous
      for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) residual[i] -= W(entry(i, j)) * a_scale * x[j];
    } else {
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) residual[i] -= W(entry(i, j)) * a_scale * x[j];
    }
    for (int i = 0; i < n; ++i) {
      const double ri = scalar::abs1(residual[i]);
      r_norm = std::isnan(ri) ? inf : std::max(r_norm, ri);
      if (r_norm == inf) break;
    }
    if (std::isnan(x_norm)) x_norm = inf;
    const double scale = a_norm * x_norm + b_norm;
    const double this_eta = r_norm == 0 ? 0 : std::isfinite(x_norm) && scale > 0 ? r_norm / scale : inf;
    eta = std::max(eta, std::isnan(this_eta) ? inf : this_eta);
  }
  return eta;
}

template double unit_roundoff<float>();
template double unit_roundoff<double>();
template double unit_roundoff<std::complex<double>>();
template double unit_roundoff<std::complex<float>>();
template double factorization_residual<float>(int, int, const float*, int, const float*, int, const int*);
template double factorization_residual<double>(int, int, const double*, int, const double*, int, const int*);
template double factorization_residual<std::complex<double>>(int, int, const std::complex<double>*, int,
                                                             const std::complex<double>*, int, const int*);
template double factorization_residual<std::complex<float>>(int, int, const std::complex<float>*, int,
                                                            const std::complex<float>*, int, const int*);
template double residual_and_backward_error<float>(int, int, const float*, int, const float*, int, const float*, int,
                                                   float*, int, float*, int);
template double residual_and_backward_error<double>(int, int, const double*, int, const double*, int, const double*,
                                                    int, double*, int, double*, int);
template double residual_and_backward_error<std::complex<double>>(int, int, const std::complex<double>*, int,
                                                                  const std::complex<double>*, int,
                                                                  const std::complex<double>*, int,
                                                                  std::complex<double>*, int, std::complex<double>*,
                                                                  int);
template double residual_and_backward_error<std::complex<float>>(int, int, const std::complex<float>*, int,
                                                                 const std::complex<float>*, int,
                                                                 const std::complex<float>*, int, std::complex<float>*,
                                                                 int, std::complex<float>*, int);
template double largest_row_omega<float>(int, int, const float*, int);
template double largest_row_omega<double>(int, int, const double*, int);
template double largest_row_omega<std::complex<double>>(int, int, const std::complex<double>*, int);
template double largest_row_omega<std::complex<float>>(int, int, const std::complex<float>*, int);
template double backward_error<float>(int, int, const float*, int, const float*, int, const float*, int, bool);
template double backward_error<double>(int, int, const double*, int, const double*, int, const double*, int, bool);
template double backward_error<std::complex<double>>(int, int, const std::complex<double>*, int,
                                                     const std::complex<double>*, int, const std::complex<double>*, int,
                                                     bool);
template double backward_error<std::complex<float>>(int, int, const std::complex<float>*, int,
                                                    const std::complex<float>*, int, const std::complex<float>*, int,
                                                    bool);

template double normwise_backward_error<float>(int, int, const float*, int, const float*, int, const float*, int, bool);
template double normwise_backward_error<double>(int, int, const double*, int, const double*, int, const double*, int,
                                                bool);
template double normwise_backward_error<std::complex<double>>(int, int, const std::complex<double>*, int,
                                                              const std::complex<double>*, int,
                                                              const std::complex<double>*, int, bool);
template double normwise_backward_error<std::complex<float>>(int, int, const std::complex<float>*, int,
                                                             const std::complex<float>*, int,
                                                             const std::complex<float>*, int, bool);

}  // namespace hetlu::accuracy
