// The Backend interface in complex precisions (#15 item 1: the hybrid target's complex solves on
// cuBLAS and cuSOLVER's complex routines), on each backend this machine has: every operation the
// hybrid LU, PRBT and mixed precision call agrees with the CPU's kernels, in complex<float> and
// complex<double>. The host backend runs the CPU's own kernels (a check of the checks); the cuda
// backend runs cuBLAS's C/Z routines and hetlu's kernels on cuda::std::complex.
#include <gtest/gtest.h>

#include <algorithm>
#include <complex>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "device_ops.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/butterfly.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/scalar.hpp"

using namespace hetlu;
using backends::Queue;

namespace {

template <class T>
std::vector<T> random_complex(int m, int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> A(static_cast<size_t>(m) * n);
  for (auto& a : A) a = T(u(rng), u(rng));
  return A;
}

template <class T>
double max_difference(const std::vector<T>& a, const std::vector<T>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, double(std::abs(a[i] - b[i])));
  return d;
}

class ComplexBackend : public ::testing::TestWithParam<BackendKind> {
 protected:
  void SetUp() override {
    std::string why;
    if (!backends::available(GetParam(), &why)) GTEST_SKIP() << why;
  }

  // Round trip: host -> device, op, device -> host.
  template <class T, class Op>
  std::vector<T> on_device(std::vector<T> host, int rows, int cols, Op op) {
    return test_support::round_trip(backends::backend<T>(GetParam()), std::move(host), rows, cols, op);
  }

  // C - A B, then the four triangular solves (L unit and U, each plain and conjugate-transposed)
  // of a diagonally dominant M, against the same on the host in double.
  template <class T>
  void blas3_matches_the_host() {
    const int m = 37, n = 5, k = 11;
    const double u = accuracy::unit_roundoff<T>();
    auto C = random_complex<T>(m, n + k + m, 3);  // [C | A's first k columns beside B | M]
    // gemm: C(:, 0:n) -= A(:, n:n+k) B, B = A(0:k, 0:n) of another draw.
    const auto B = random_complex<T>(k, n, 4);
    std::vector<T> expected = C;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < m; ++i) {
        std::complex<double> sum = 0;
        for (int l = 0; l < k; ++l)
          sum += std::complex<double>(C[i + static_cast<size_t>(n + l) * m]) * std::complex<double>(B[l + j * k]);
        expected[i + static_cast<size_t>(j) * m] = T(std::complex<double>(C[i + static_cast<size_t>(j) * m]) - sum);
      }
    auto got = on_device(C, m, n + k + m, [&](backends::Backend<T>& dev, const backends::DeviceMatrix<T>& d) {
      auto dB = dev.allocate(k, n);
      dev.copy_to_device(Queue::compute, k, n, B.data(), k, dB.data(), dB.ld);
      dev.gemm_minus(Queue::compute, m, n, k, d.at(0, n), d.ld, dB.data(), dB.ld, d.data(), d.ld);
      dev.synchronize();  // dB goes out of scope
    });
    EXPECT_LT(max_difference(got, expected), 30 * k * u);

    // Off-diagonal entries of size 1/m: L^-1 of a unit triangle with entries of size 1 grows like
    // 2^m, and the check below is absolute.
    auto M = random_complex<T>(m, m + n, 5);
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) M[i + static_cast<size_t>(j) * m] *= i == j ? T(1) : T(1.0 / m);
    for (int i = 0; i < m; ++i) M[i + static_cast<size_t>(i) * m] += T(2, 1);
    for (Transpose trans : {Transpose::no, Transpose::conjugate})
      for (bool lower : {true, false}) {
        SCOPED_TRACE(std::string(lower ? "L" : "U") + (trans == Transpose::no ? "" : "^H"));
        const auto solved = on_device(M, m, m + n, [&](backends::Backend<T>& dev, const backends::DeviceMatrix<T>& d) {
          if (lower)
            dev.trsm_lower_unit(Queue::compute, m, n, d.data(), d.ld, d.at(0, m), d.ld, trans);
          else
            dev.trsm_upper(Queue::compute, m, n, d.data(), d.ld, d.at(0, m), d.ld, trans);
        });
        // op(T) X = B, checked by multiplying back in double.
        double worst = 0;
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < m; ++i) {
            std::complex<double> sum = 0;
            for (int l = 0; l < m; ++l) {
              const int r = trans == Transpose::no ? i : l, c = trans == Transpose::no ? l : i;
              const bool in_triangle = lower ? r > c : r <= c;
              std::complex<double> t = r == c && lower ? 1.0 : in_triangle ? std::complex<double>(M[r + c * m]) : 0.0;
              if (trans == Transpose::conjugate) t = std::conj(t);
              sum += t * std::complex<double>(solved[l + static_cast<size_t>(m + j) * m]);
            }
            worst = std::max(worst, std::abs(sum - std::complex<double>(M[i + static_cast<size_t>(m + j) * m])));
          }
        EXPECT_LT(worst, 100 * m * u);
      }
  }

  // Row interchanges, the gather's and the in-order kernel's (more pivots than the gather's shared
  // memory holds), bit for bit as the CPU's.
  template <class T>
  void laswp_matches_the_host() {
    std::mt19937 generator(9);
    for (int count : {200, 2100}) {
      SCOPED_TRACE(count);
      const int k1 = 2, cols = 13, m = k1 + count + 40, lda = m + 1;
      std::vector<int> pivots(count), absolute(k1 + count);
      for (int t = 0; t < count; ++t) {
        pivots[t] = t + 1 + int(generator() % unsigned(m - k1 - t));
        absolute[k1 + t] = k1 + pivots[t];
      }
      const auto M = random_complex<T>(lda, cols, 6);
      auto expected = M;
      kernels::laswp(cols, expected.data(), lda, k1, k1 + count, absolute.data());
      const auto got = on_device(M, lda, cols, [&](backends::Backend<T>& dev, const backends::DeviceMatrix<T>& d) {
        auto on_device_pivots = dev.allocate_ints(count);
        auto staged = std::static_pointer_cast<int>(dev.allocate_pinned(sizeof(int) * count));
        std::copy(pivots.begin(), pivots.end(), staged.get());
        dev.copy_ints_to_device(Queue::compute, count, staged.get(), on_device_pivots.get());
        dev.laswp(Queue::compute, cols, d.data(), d.ld, k1, k1 + count, on_device_pivots.get());
        dev.synchronize();  // the pivots go out of scope
      });
      EXPECT_EQ(got, expected);
    }
  }

  // A panel's LU on the device: ||PA - LU|| / (n ||A|| eps) < 30, pivots in range, info 0; a zero
  // column gives its info.
  template <class T>
  void panel_lu_is_accurate() {
    const int m = 53, n = 9;
    for (bool zero_column : {false, true}) {
      auto A = random_complex<T>(m, n, 7);
      if (zero_column) std::fill(A.begin() + 4 * m, A.begin() + 5 * m, T(0));
      std::vector<int> ipiv(n);
      int info = -1;
      const auto LU = on_device(A, m, n, [&](backends::Backend<T>& dev, const backends::DeviceMatrix<T>& d) {
        info = test_support::panel_lu_on(dev, m, n, d.data(), d.ld, ipiv);
      });
      if (zero_column) {
        EXPECT_EQ(info, 5);
        continue;
      }
      EXPECT_EQ(info, 0);
      for (int i = 0; i < n; ++i) ASSERT_TRUE(ipiv[i] >= i + 1 && ipiv[i] <= m) << i;
      EXPECT_LT(accuracy::factorization_residual(m, n, A.data(), m, LU.data(), m, ipiv.data()), 30.0);
    }
  }

  // B - A X and each row's share of omega, against the CPU's pass (sums in complex<double>).
  template <class T>
  void residual_matches_the_host() {
    const int n = 700, nrhs = 2;  // several chunks of the device's two-pass sum
    const auto A = random_complex<T>(n, n, 8), X = random_complex<T>(n, nrhs, 9), B = random_complex<T>(n, nrhs, 10);
    std::vector<T> expected_r(n * nrhs), expected_w(n * nrhs);
    accuracy::residual_and_backward_error(n, nrhs, A.data(), n, X.data(), n, B.data(), n, expected_r.data(), n,
                                          expected_w.data(), n);
    const auto [r, w] = test_support::residual_on(backends::backend<T>(GetParam()), n, nrhs, A, X, B);
    // Sums in complex<double> in another order, each rounded to T once.
    const double u = accuracy::unit_roundoff<T>();
    for (int i = 0; i < n * nrhs; ++i) {
      ASSERT_LE(std::abs(r[i] - expected_r[i]), 4 * u * std::abs(expected_r[i]) + 1e-12 * n) << i;
      ASSERT_NEAR(w[i].real(), expected_w[i].real(), 1e-5 * expected_w[i].real()) << i;
      ASSERT_EQ(w[i].imag(), 0) << i;
    }
  }

  // PRBT's A <- U^T A V, against the CPU's butterflies.
  template <class T>
  void butterflies_match_the_host() {
    const int n = 68;
    const auto U = kernels::Butterfly<T>::random(n, 1), V = kernels::Butterfly<T>::random(n, 2);
    const auto A = random_complex<T>(n, n, 11);
    auto expected = A;
    kernels::apply_transpose_left(U, n, expected.data(), n);
    kernels::apply_right(V, n, expected.data(), n);
    const auto got = on_device(A, n, n, [&](backends::Backend<T>& dev, const backends::DeviceMatrix<T>& d) {
      dev.butterflies_two_sided(Queue::compute, n, U.values.data(), V.values.data(), d.data(), d.ld);
    });
    EXPECT_LT(max_difference(got, expected), 100 * accuracy::unit_roundoff<T>());
  }
};

// complex<float> widened to complex<double> where it lies (GMRES-based refinement's factors): each part exactly.
TEST_P(ComplexBackend, WideningToComplexDoubleIsExact) {
  using C = std::complex<float>;
  const int ld = 4, cols = 3;
  auto narrow = random_complex<C>(ld, cols, 21);
  narrow[1] = C(std::numeric_limits<float>::max(), -std::numeric_limits<float>::denorm_min());
  const auto wide = test_support::widened_on(GetParam(), narrow, ld, cols, std::complex<double>(-7, -7));
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < ld; ++i) {
      const size_t k = i + static_cast<size_t>(j) * ld;
      const bool inside = i < ld - 1 && j < cols - 1;
      EXPECT_EQ(wide[k], inside ? std::complex<double>(narrow[k]) : std::complex<double>(-7, -7)) << k;
    }
}

TEST_P(ComplexBackend, GemmAndTriangularSolvesMatchTheHost) {
  blas3_matches_the_host<std::complex<double>>();
  blas3_matches_the_host<std::complex<float>>();
}

TEST_P(ComplexBackend, LaswpMatchesTheHostBitForBit) {
  laswp_matches_the_host<std::complex<double>>();
  laswp_matches_the_host<std::complex<float>>();
}

TEST_P(ComplexBackend, PanelLuIsAccurateAndReportsAZeroColumn) {
  panel_lu_is_accurate<std::complex<double>>();
  panel_lu_is_accurate<std::complex<float>>();
}

TEST_P(ComplexBackend, ResidualMatchesTheHost) {
  residual_matches_the_host<std::complex<double>>();
  residual_matches_the_host<std::complex<float>>();
}

TEST_P(ComplexBackend, ButterfliesMatchTheHost) {
  butterflies_match_the_host<std::complex<double>>();
  butterflies_match_the_host<std::complex<float>>();
}

// zcgesv's A rounded where it lands: as the host rounds it, to the bit; a complex entry with a part
// beyond single's range becomes 0 whole, a NaN part stays; complex<double>'s "rounding" copies.
TEST_P(ComplexBackend, RoundingFromComplexDoubleMatchesTheHost) {
  using Z = std::complex<double>;
  using C = std::complex<float>;
  const int rows = 5, cols = 3, ld = 6;
  auto wide = random_complex<Z>(ld, cols, 12);
  wide[1] = Z(1e39, 0.5), wide[ld + 2] = Z(0.25, -4e38), wide[2 * ld] = Z(std::nan(""), 1);
  wide[2 * ld + 4] = Z(3.3e38, -3.3e38);
  auto& high = backends::backend<Z>(GetParam());
  auto& low = backends::backend<C>(GetParam());
  auto from = high.allocate(ld, cols), copied = high.allocate(ld, cols);
  auto to = low.allocate(ld, cols);
  high.copy_to_device(Queue::to_device, ld, cols, wide.data(), ld, from.data(), from.ld);
  const auto up = high.record(Queue::to_device);
  low.wait(Queue::compute, up);
  high.wait(Queue::compute, up);
  const std::vector<C> unset(static_cast<size_t>(ld) * cols, C(-7, -7));
  low.copy_to_device(Queue::compute, ld, cols, unset.data(), ld, to.data(), to.ld);
  low.round_from_wide(Queue::compute, rows, cols, from.data(), from.ld, to.data(), to.ld);
  high.round_from_wide(Queue::compute, rows, cols, from.data(), from.ld, copied.data(), copied.ld);
  std::vector<C> got(unset.size());
  std::vector<Z> got_wide(wide.size(), Z(-7));
  low.copy_to_host(Queue::compute, ld, cols, to.data(), to.ld, got.data(), ld);
  high.copy_to_host(Queue::compute, rows, cols, copied.data(), copied.ld, got_wide.data(), ld);
  low.synchronize();
  high.synchronize();
  auto same = [](auto a, auto b) {
    auto part = [](double x, double y) { return x == y || (std::isnan(x) && std::isnan(y)); };
    return part(a.real(), b.real()) && part(a.imag(), b.imag());
  };
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < ld; ++i) {
      SCOPED_TRACE(::testing::Message() << "(" << i << ", " << j << ")");
      const size_t k = i + static_cast<size_t>(j) * ld;
      if (i >= rows) {
        EXPECT_TRUE(same(got[k], C(-7, -7)));  // outside the block: untouched
        continue;
      }
      EXPECT_TRUE(same(got[k], scalar::narrow_or_zero<C>(wide[k])));
      EXPECT_TRUE(same(got_wide[k], wide[k]));
    }
  EXPECT_EQ(got[1], C(0));
  EXPECT_EQ(got[ld + 2], C(0));
  EXPECT_EQ(got[2 * ld + 4], C(3.3e38f, -3.3e38f));
}

INSTANTIATE_TEST_SUITE_P(Kinds, ComplexBackend, ::testing::Values(BackendKind::host, BackendKind::cuda),
                         [](const auto& param_info) { return to_string(param_info.param); });

}  // namespace
