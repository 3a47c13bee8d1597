// The 11 test-matrix types of LAPACK's linear-equation tests (LAWN 41, dchkge/dlatb4), for n x n:
//  1 diagonal, 2 upper triangular, 3 lower triangular, 4 random with condition 2,
//  5 first column zero, 6 last column zero, 7 last n/2 columns zero (5-7 singular),
//  8 condition sqrt(0.1/eps), 9 condition 0.1/eps, 10 scaled near underflow, 11 near overflow.
// Random types are U diag(sigma) V^T with random orthogonal U, V (QR of Gaussian matrices) and
// singular values spread geometrically from 1 to 1/condition, as dlatms does.
#pragma once

#include <lapacke.h>

#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "solvers/scalar.hpp"

namespace hetlu::test_support {

inline std::string lawn41_name(int type) {
  static const char* names[] = {"",
                                "diagonal",
                                "upper",
                                "lower",
                                "random_cond2",
                                "col1_zero",
                                "last_col_zero",
                                "last_half_zero",
                                "cond_sqrt_0.1_over_eps",
                                "cond_0.1_over_eps",
                                "near_underflow",
                                "near_overflow"};
  return names[type];
}

inline bool lawn41_singular(int type) {
  return type >= 5 && type <= 7;
}

// The first zero column (1-based) of a singular type, as LAPACK's tests expect info to be.
inline int lawn41_zero_column(int type, int n) {
  return type == 5 ? 1 : type == 6 ? n : n / 2 + 1;
}

inline std::vector<double> random_orthogonal(int n, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  std::vector<double> Q(static_cast<size_t>(n) * n), tau(n);
  for (auto& q : Q) q = g(rng);
  LAPACKE_dgeqrf(LAPACK_COL_MAJOR, n, n, Q.data(), n, tau.data());
  LAPACKE_dorgqr(LAPACK_COL_MAJOR, n, n, n, Q.data(), n, tau.data());
  return Q;
}

// A += U diag(sigma) V^H, sigma_k = scale cond^(-k/(n-1)) from 1 to 1/cond (dlatms's mode 3).
template <class T>
void singular_value_sum(std::vector<T>& A, int n, const std::vector<T>& U, const std::vector<T>& V, double cond,
                        double scale) {
  for (int k = 0; k < n; ++k) {
    const double sigma = scale * std::pow(cond, -double(k) / std::max(1, n - 1));
    for (int j = 0; j < n; ++j) {
      const T vs = sigma * scalar::conj(V[j + static_cast<size_t>(k) * n]);
      for (int i = 0; i < n; ++i) A[i + static_cast<size_t>(j) * n] += U[i + static_cast<size_t>(k) * n] * vs;
    }
  }
}

// The singular types' zero columns: type 5 the first, 6 the last, 7 the last n/2.
template <class T>
void zero_columns_of_type(std::vector<T>& A, int n, int type) {
  const int first = type == 5 ? 0 : type == 6 ? n - 1 : type == 7 ? n / 2 : n;
  const int last = type == 5 ? 1 : n;
  for (int j = first; j < last; ++j)
    for (int i = 0; i < n; ++i) A[i + static_cast<size_t>(j) * n] = T(0);
}

inline std::vector<double> lawn41_matrix(int type, int n, unsigned seed = 41) {
  std::mt19937_64 rng(seed + 1000u * type);
  std::uniform_real_distribution<double> u(-1, 1);
  const double eps = std::numeric_limits<double>::epsilon() / 2;
  std::vector<double> A(static_cast<size_t>(n) * n, 0.0);
  auto at = [&](int i, int j) -> double& { return A[i + static_cast<size_t>(j) * n]; };
  if (type == 1) {
    for (int i = 0; i < n; ++i) at(i, i) = (u(rng) < 0 ? -1 : 1) * std::pow(0.5, double(i) / std::max(1, n - 1));
    return A;
  }
  if (type == 2 || type == 3) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (type == 2 ? i <= j : i >= j) at(i, j) = i == j ? 1 + 0.5 * u(rng) : u(rng) / n;
    return A;
  }
  const double cond = type == 8 ? std::sqrt(0.1 / eps) : type == 9 ? 0.1 / eps : 2.0;
  // dlatb4's scales: just above underflow and just below overflow, divided by eps and shrunk.
  const double small = 0.25 * std::numeric_limits<double>::min() / eps;
  const double scale = type == 10 ? small : type == 11 ? 1 / small : 1.0;
  singular_value_sum(A, n, random_orthogonal(n, rng), random_orthogonal(n, rng), cond, scale);
  zero_columns_of_type(A, n, type);
  return A;
}

}  // namespace hetlu::test_support

namespace hetlu::test_support {

// LAWN 41's types in complex, as zlatms makes them: U diag(sigma) V^H with random unitary U, V
// (QR of complex Gaussian matrices); triangular and diagonal types with complex entries.
inline std::vector<std::complex<double>> random_unitary(int n, std::mt19937_64& rng) {
  std::normal_distribution<double> g;
  std::vector<std::complex<double>> Q(static_cast<size_t>(n) * n), tau(n);
  for (auto& q : Q) q = {g(rng), g(rng)};
  LAPACKE_zgeqrf(LAPACK_COL_MAJOR, n, n, reinterpret_cast<lapack_complex_double*>(Q.data()), n,
                 reinterpret_cast<lapack_complex_double*>(tau.data()));
  LAPACKE_zungqr(LAPACK_COL_MAJOR, n, n, n, reinterpret_cast<lapack_complex_double*>(Q.data()), n,
                 reinterpret_cast<lapack_complex_double*>(tau.data()));
  return Q;
}

// eps: the unit roundoff of the precision the matrix is for (conditions 8 and 9 depend on it).
inline std::vector<std::complex<double>> lawn41_complex_matrix(int type, int n, double eps, double safe_min,
                                                               unsigned seed = 41) {
  using Z = std::complex<double>;
  std::mt19937_64 rng(seed + 1000u * type);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Z> A(static_cast<size_t>(n) * n, Z(0));
  auto at = [&](int i, int j) -> Z& { return A[i + static_cast<size_t>(j) * n]; };
  auto unit = [&] {
    const double angle = 3.14159265358979 * u(rng);
    return Z(std::cos(angle), std::sin(angle));
  };
  if (type == 1) {
    for (int i = 0; i < n; ++i) at(i, i) = unit() * std::pow(0.5, double(i) / std::max(1, n - 1));
    return A;
  }
  if (type == 2 || type == 3) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i)
        if (type == 2 ? i <= j : i >= j)
          at(i, j) = i == j ? unit() * (1 + 0.5 * u(rng)) : Z(u(rng), u(rng)) / double(n);
    return A;
  }
  const double cond = type == 8 ? std::sqrt(0.1 / eps) : type == 9 ? 0.1 / eps : 2.0;
  const double small = 0.25 * safe_min / eps;
  const double scale = type == 10 ? small : type == 11 ? 1 / small : 1.0;
  singular_value_sum(A, n, random_unitary(n, rng), random_unitary(n, rng), cond, scale);
  zero_columns_of_type(A, n, type);
  return A;
}

}  // namespace hetlu::test_support
