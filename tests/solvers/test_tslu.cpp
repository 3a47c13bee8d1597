// TSLU (tournament pivoting) and GENP kernels: P A = L U to working accuracy.
#include <gtest/gtest.h>

#include "matrices.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/gepp_kernels.hpp"

using namespace hetlu;
using test_support::Kind;

TEST(Tslu, FactorsTallPanelsForAnyNumberOfRowBlocks) {
  for (int threads : {1, 2, 3, 4, 8})
    // 300000 x 4 is 9.6 MB: five cache-sized leaves whatever the thread count (an odd tree).
    for (auto [m, w] : {std::pair{1000, 32}, {513, 64}, {64, 64}, {100, 7}, {300000, 4}}) {
      const auto A = test_support::make_matrix<double>(Kind::random, m, w, 21);
      auto LU = A;
      std::vector<int> ipiv(w);
      EXPECT_EQ(kernels::tslu_panel(m, w, LU.data(), m, ipiv.data(), threads), 0);
      for (int i = 0; i < w; ++i) {
        EXPECT_GE(ipiv[i], i + 1);
        EXPECT_LE(ipiv[i], m);
      }
      EXPECT_LT(accuracy::factorization_residual(m, w, A.data(), m, LU.data(), m, ipiv.data()), 30.0)
          << m << "x" << w << " with " << threads << " row blocks";
      // Tournament pivoting keeps the multipliers bounded in practice (CALU's growth is modest).
      double largest = 0;
      for (int j = 0; j < w; ++j)
        for (int i = j + 1; i < m; ++i) largest = std::max(largest, std::abs(LU[i + static_cast<size_t>(j) * m]));
      EXPECT_LT(largest, 50.0);
    }
}

TEST(Tslu, ZeroColumnIsReported) {
  const int m = 200, w = 16;
  auto A = test_support::make_matrix<double>(Kind::random, m, w, 2);
  for (int i = 0; i < m; ++i) A[i + 5 * m] = 0;
  std::vector<int> ipiv(w);
  EXPECT_EQ(kernels::tslu_panel(m, w, A.data(), m, ipiv.data(), 4), 6);
}

TEST(Genp, FactorsWithoutPivoting) {
  const int n = 150;
  const auto A = test_support::make_matrix<double>(Kind::diagonally_dominant, n, n, 4);
  auto LU = A;
  EXPECT_EQ(kernels::getrf_nopivot_recursive(n, n, LU.data(), n), 0);
  std::vector<int> identity(n);
  for (int i = 0; i < n; ++i) identity[i] = i + 1;
  EXPECT_LT(accuracy::factorization_residual(n, n, A.data(), n, LU.data(), n, identity.data()), 30.0);
}
