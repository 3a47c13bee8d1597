// hetlu's own LU of matrices up to tiny_lu_max_order (solvers/tiny_lu.hpp), against its recursive
// GEPP: the same pivots (both take the first largest |re| + |im|), LAPACK's residual, the first
// exactly zero pivot as info, and a solve with the factors; every real and complex type, square
// and rectangular.
#include <gtest/gtest.h>

#include <complex>
#include <vector>

#include "matrices.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/tiny_lu.hpp"

using namespace hetlu;
using test_support::Kind;

namespace {

template <class T>
class TinyLu : public ::testing::Test {};
using Types = ::testing::Types<float, double, std::complex<float>, std::complex<double>>;
TYPED_TEST_SUITE(TinyLu, Types);

TYPED_TEST(TinyLu, FactorsAsTheRecursiveGeppDoes) {
  using T = TypeParam;
  const int top = kernels::tiny_lu_max_order;
  for (int m : {1, 2, 3, 5, 8, top})
    for (int n : {1, 2, 4, 7, top}) {
      SCOPED_TRACE(std::to_string(m) + " x " + std::to_string(n));
      const int lda = m + 2;  // a leading dimension beyond the rows
      auto A = test_support::make_matrix<T>(Kind::random, lda, n, 3);
      auto tiny = A, recursive = A;
      std::vector<int> tiny_ipiv(std::min(m, n)), recursive_ipiv(std::min(m, n));
      ASSERT_EQ(kernels::getrf_tiny(m, n, tiny.data(), lda, tiny_ipiv.data()), 0);
      ASSERT_EQ(kernels::getrf_recursive(m, n, recursive.data(), lda, recursive_ipiv.data()), 0);
      EXPECT_EQ(tiny_ipiv, recursive_ipiv);
      EXPECT_LT(accuracy::factorization_residual(m, n, A.data(), lda, tiny.data(), lda, tiny_ipiv.data()), 30.0);
      for (int j = 0; j < n; ++j)  // the rows beyond m are not touched
        for (int i = m; i < lda; ++i) EXPECT_EQ(tiny[i + j * lda], A[i + j * lda]);
    }
}

TYPED_TEST(TinyLu, NamesTheFirstZeroPivotAndSolves) {
  using T = TypeParam;
  const int n = 9;
  auto A = test_support::make_matrix<T>(Kind::random, n, n, 5);
  auto B = test_support::make_matrix<T>(Kind::random, n, 2, 6);
  auto LU = A, X = B;
  std::vector<int> ipiv(n);
  ASSERT_EQ(kernels::getrf_tiny(n, n, LU.data(), n, ipiv.data()), 0);
  kernels::getrs_tiny(Transpose::no, n, 2, LU.data(), n, ipiv.data(), X.data(), n);
  EXPECT_LE(accuracy::backward_error(n, 2, A.data(), n, X.data(), n, B.data(), n),
            10 * (n + 1) * accuracy::unit_roundoff<T>());
  // A^T x = b and A^H x = b with the same factors, checked against A^T and A^H themselves.
  for (Transpose op : {Transpose::yes, Transpose::conjugate}) {
    std::vector<T> At(A.size());
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) {
        const T a = A[i + j * n];
        if constexpr (scalar::is_complex_v<T>)
          At[j + i * n] = op == Transpose::conjugate ? std::conj(a) : a;
        else
          At[j + i * n] = a;
      }
    auto Y = B;
    kernels::getrs_tiny(op, n, 2, LU.data(), n, ipiv.data(), Y.data(), n);
    EXPECT_LE(accuracy::backward_error(n, 2, At.data(), n, Y.data(), n, B.data(), n),
              10 * (n + 1) * accuracy::unit_roundoff<T>())
        << (op == Transpose::yes ? "A^T" : "A^H");
  }
  for (int i = 0; i < n; ++i) A[i + 4 * n] = A[i + 7 * n] = T(0);  // columns 5 and 8 zero: info names the first
  ASSERT_EQ(kernels::getrf_tiny(n, n, A.data(), n, ipiv.data()), 5);
}

}  // namespace
