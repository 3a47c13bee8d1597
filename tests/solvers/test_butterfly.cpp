// Butterflies: the packed O(n^2) applications agree with the dense matrices they stand for.
#include <gtest/gtest.h>

#include <cmath>

#include "solvers/butterfly.hpp"

using namespace hetlu;

namespace {
// The dense W (n x n) by applying W to the identity's columns.
std::vector<double> dense(const kernels::Butterfly<double>& W) {
  const int n = W.n;
  std::vector<double> I(static_cast<size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) I[i + static_cast<size_t>(i) * n] = 1;
  kernels::apply_left(W, n, I.data(), n);
  return I;
}
}  // namespace

TEST(Butterfly, TransposeLeftAndRightMatchTheDenseProducts) {
  const int n = 12;
  const auto W = kernels::Butterfly<double>::random(n, 5);
  const auto D = dense(W);
  std::vector<double> A(n * n);
  for (int i = 0; i < n * n; ++i) A[i] = std::sin(1.0 + i);
  auto left = A, right = A;
  kernels::apply_transpose_left(W, n, left.data(), n);  // W^T A
  kernels::apply_right(W, n, right.data(), n);          // A W
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double wta = 0, aw = 0;
      for (int k = 0; k < n; ++k) {
        wta += D[k + i * n] * A[k + j * n];
        aw += A[i + k * n] * D[k + j * n];
      }
      EXPECT_NEAR(left[i + j * n], wta, 1e-13);
      EXPECT_NEAR(right[i + j * n], aw, 1e-13);
    }
}

TEST(Butterfly, IsWellConditionedAndDeterministic) {
  const auto W = kernels::Butterfly<double>::random(16, 9);
  EXPECT_EQ(W.values, kernels::Butterfly<double>::random(16, 9).values);
  for (double v : W.values) {
    EXPECT_GE(v, std::exp(-0.05));
    EXPECT_LE(v, std::exp(0.05));
  }
  EXPECT_THROW(kernels::Butterfly<double>::random(10, 1), std::invalid_argument);
}
