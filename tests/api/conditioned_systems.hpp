// Systems of a chosen condition number for the mixed-precision and precision-auto tests, and
// LAPACK's test ratio of their solutions.
#pragma once

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

namespace hetlu::testing {

using zd = std::complex<double>;

template <class T>
T random_entry(std::mt19937& rng) {
  std::normal_distribution<double> normal;
  if constexpr (std::is_same_v<T, zd>)
    return {normal(rng), normal(rng)};
  else
    return normal(rng);
}

template <class T>
T conj_of(T x) {
  if constexpr (std::is_same_v<T, zd>)
    return std::conj(x);
  else
    return x;
}

template <class T>
struct System {
  int n;
  std::vector<T> A, B;
};

// A = H1 diag(sigma) H2 with Householder reflections H of random vectors (unitary for complex).
// Graded: sigma geometric from 1 to 1/cond. One small: sigma = 1 but the last, 1/cond, so that the
// single factors' error lies in one direction, which GMRES finds in a few steps.
enum class Spectrum { graded, one_small };

template <class T>
System<T> conditioned(int n, double cond, unsigned seed, Spectrum spectrum = Spectrum::graded) {
  std::mt19937 rng(seed);
  std::vector<T> A(static_cast<size_t>(n) * n, T(0)), B(static_cast<size_t>(n) * 2);
  for (int i = 0; i < n; ++i)
    A[i + static_cast<size_t>(i) * n] = spectrum == Spectrum::graded ? std::pow(cond, -double(i) / std::max(1, n - 1))
                                        : i == n - 1                 ? 1 / cond
                                                                     : 1.0;
  for (int side = 0; side < 2; ++side) {  // A <- H A (rows) then A <- A H (columns), H = I - 2 v v^H
    std::vector<T> v(n);
    double norm = 0;
    for (auto& x : v) x = random_entry<T>(rng), norm += std::norm(x);
    for (auto& x : v) x /= std::sqrt(norm);
    for (int k = 0; k < n; ++k) {
      T dot = 0;
      if (side == 0) {
        for (int i = 0; i < n; ++i) dot += conj_of(v[i]) * A[i + static_cast<size_t>(k) * n];
        for (int i = 0; i < n; ++i) A[i + static_cast<size_t>(k) * n] -= T(2) * dot * v[i];
      } else {
        for (int i = 0; i < n; ++i) dot += A[k + static_cast<size_t>(i) * n] * v[i];
        for (int i = 0; i < n; ++i) A[k + static_cast<size_t>(i) * n] -= T(2) * dot * conj_of(v[i]);
      }
    }
  }
  for (auto& x : B) x = random_entry<T>(rng);
  return {n, A, B};
}

// LAPACK's test ratio (dget08): max_j ||b_j - A x_j||_inf / (||A||_inf ||x_j||_inf eps), eps = u.
template <class T>
double test_ratio(const System<T>& s, const std::vector<T>& X) {
  const int n = s.n;
  double anorm = 0, worst = 0;
  for (int i = 0; i < n; ++i) {
    double row = 0;
    for (int j = 0; j < n; ++j) row += std::abs(s.A[i + static_cast<size_t>(j) * n]);
    anorm = std::max(anorm, row);
  }
  for (int c = 0; c < 2; ++c) {
    double r = 0, x = 0;
    for (int i = 0; i < n; ++i) {
      T sum = s.B[i + static_cast<size_t>(c) * n];
      for (int j = 0; j < n; ++j) sum -= s.A[i + static_cast<size_t>(j) * n] * X[j + static_cast<size_t>(c) * n];
      r = std::max(r, std::abs(sum));
      x = std::max(x, std::abs(X[i + static_cast<size_t>(c) * n]));
    }
    worst = std::max(worst, r / anorm / x / (std::numeric_limits<double>::epsilon() / 2));
  }
  return worst;
}

}  // namespace hetlu::testing
