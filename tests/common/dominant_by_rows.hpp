// A diagonally dominant test matrix on which GEPP's answer to A X = A fails the componentwise check
// (omega 9e-11 at n = 800, where 30 (n + 1) eps is 2.7e-12) although X is right to 1e-15: one step of
// refinement mends it. Normal entries, each diagonal entry raised by its row's absolute sum plus 1.
#pragma once

#include <cmath>
#include <cstddef>
#include <random>
#include <vector>

namespace hetlu::test_support {

inline std::vector<double> dominant_by_rows(int n) {
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal;
  std::vector<double> A(static_cast<std::size_t>(n) * n);
  for (auto& v : A) v = normal(rng);
  for (int i = 0; i < n; ++i) {
    double row = 1;
    for (int j = 0; j < n; ++j) row += std::abs(A[i + static_cast<std::size_t>(j) * n]);
    A[i + static_cast<std::size_t>(i) * n] += row;
  }
  return A;
}

}  // namespace hetlu::test_support
