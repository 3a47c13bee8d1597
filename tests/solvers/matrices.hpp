// Test matrices for the LU solvers, column-major.
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <vector>

namespace hetlu::test_support {

enum class Kind { random, diagonal, upper, lower, permutation, diagonally_dominant, graded, ill_conditioned };

inline std::string name(Kind k) {
  switch (k) {
    case Kind::random:
      return "random";
    case Kind::diagonal:
      return "diagonal";
    case Kind::upper:
      return "upper";
    case Kind::lower:
      return "lower";
    case Kind::permutation:
      return "permutation";
    case Kind::diagonally_dominant:
      return "diagonally_dominant";
    case Kind::graded:
      return "graded";
    case Kind::ill_conditioned:
      return "ill_conditioned";
  }
  return "?";
}

template <class T>
std::vector<T> make_matrix(Kind kind, int m, int n, unsigned seed = 7) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> A(static_cast<size_t>(m) * n, T(0));
  auto at = [&](int i, int j) -> T& { return A[i + static_cast<size_t>(j) * m]; };
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const double r = u(rng);
      switch (kind) {
        case Kind::random:
          at(i, j) = T(r);
          break;
        case Kind::diagonal:
          at(i, j) = i == j ? T(1 + std::abs(r)) : T(0);
          break;
        case Kind::upper:
          at(i, j) = i <= j ? T(i == j ? 2 + r : r) : T(0);
          break;
        case Kind::lower:
          at(i, j) = i >= j ? T(i == j ? 2 + r : r) : T(0);
          break;
        // Every diagonal entry zero: the factorization must pivot on every step.
        case Kind::permutation:
          at(i, j) = (i == (j + 1) % std::max(1, m)) ? T(1) : T(0);
          break;
        case Kind::diagonally_dominant:
          at(i, j) = i == j ? T(n + std::abs(r)) : T(r);
          break;
        // Rows scaled over 12 orders of magnitude.
        case Kind::graded:
          at(i, j) = T(r * std::pow(10.0, -12.0 * i / std::max(1, m - 1)));
          break;
        // Columns nearly dependent: column j = column 0 + 1e-10 * noise.
        case Kind::ill_conditioned:
          at(i, j) = T(j == 0 ? r : 0);
          break;
      }
    }
  if (kind == Kind::ill_conditioned)
    for (int j = 1; j < n; ++j)
      for (int i = 0; i < m; ++i) at(i, j) = at(i, 0) + T(1e-6 * u(rng));
  return A;
}

}  // namespace hetlu::test_support
