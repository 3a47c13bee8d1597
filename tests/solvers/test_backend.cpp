// The Backend interface on each backend this machine has: copies are real copies, queues are
// ordered by events, and each operation agrees with the CPU BLAS and kernels.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>

#include "device_ops.hpp"
#include "matrices.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/blas.hpp"
#include "solvers/butterfly.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/staging.hpp"

using namespace hetlu;
using backends::Queue;
using test_support::Kind;

namespace {

class BackendTest : public ::testing::TestWithParam<BackendKind> {
 protected:
  void SetUp() override {
    std::string why;
    if (!backends::available(GetParam(), &why)) GTEST_SKIP() << why;
  }
  backends::Backend<double>& device() { return backends::backend<double>(GetParam()); }

  // Round trip: host -> device, op, device -> host.
  template <class Op>
  std::vector<double> on_device(std::vector<double> host, int rows, int cols, Op op) {
    return test_support::round_trip(device(), std::move(host), rows, cols, op);
  }
};

double max_difference(const std::vector<double>& a, const std::vector<double>& b) {
  double d = 0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, std::abs(a[i] - b[i]));
  return d;
}

TEST_P(BackendTest, CopiesAreRealCopies) {
  auto& dev = device();
  std::vector<double> host = test_support::make_matrix<double>(Kind::random, 7, 5);
  const auto original = host;
  auto dA = dev.allocate(7, 5);
  dev.copy_to_device(Queue::to_device, 7, 5, host.data(), 7, dA.data(), dA.ld);
  dev.host_wait(dev.record(Queue::to_device));
  for (auto& x : host) x = -1;  // the device's copy must not see this
  dev.copy_to_host(Queue::to_host, 7, 5, dA.data(), dA.ld, host.data(), 7);
  dev.synchronize();
  EXPECT_EQ(host, original);
}

TEST_P(BackendTest, GemmTrsmLaswpMatchTheCpu) {
  const int m = 37, n = 23, k = 9;
  auto M = test_support::make_matrix<double>(Kind::random, m, n + k);
  for (int i = 0; i < k; ++i) M[i + static_cast<size_t>(i) * m] += 4;
  std::vector<int> ipiv = {3, 5, 3, 9, 5, 37, 7, 8, 20};
  auto expected = M;
  double* E = expected.data();
  kernels::laswp(n, E + k * m, m, 0, k, ipiv.data());
  blas::trsm(blas::Side::left, blas::Uplo::lower, blas::Op::no_trans, blas::Diag::unit, k, n, 1.0, E, m, E + k * m, m);
  blas::gemm(blas::Op::no_trans, blas::Op::no_trans, m - k, n, k, -1.0, E + k, m, E + k * m, m, 1.0, E + k + k * m, m);
  const auto got = on_device(M, m, n + k, [&](backends::Backend<double>& dev, const backends::DeviceMatrix<double>& d) {
    auto pivots = dev.allocate_ints(k);
    auto staged = std::static_pointer_cast<int>(dev.allocate_pinned(sizeof(int) * k));
    std::copy(ipiv.begin(), ipiv.end(), staged.get());
    dev.copy_ints_to_device(Queue::compute, k, staged.get(), pivots.get());
    dev.laswp(Queue::compute, n, d.at(0, k), d.ld, 0, k, pivots.get());
    dev.trsm_lower_unit(Queue::compute, k, n, d.at(0, 0), d.ld, d.at(0, k), d.ld);
    dev.gemm_minus(Queue::compute, m - k, n, k, d.at(k, 0), d.ld, d.at(0, k), d.ld, d.at(k, k), d.ld);
    dev.synchronize();  // pivots and staged go out of scope
  });
  EXPECT_LT(max_difference(got, expected), 1e-12);
}

// Row interchanges of every shape the solvers and hostile callers give: LAPACK's pivots with
// repeats, chains through the block, every row to one row below it, none at all, blocks of more
// than a thread block's 1024 rows and of more than the gather's 2048, and pivots above their row
// (not LAPACK's; swapped in order). Rows from k1 = 3 of a matrix with lda > m.
TEST_P(BackendTest, LaswpMatchesTheCpuForEveryPivotPattern) {
  struct Case {
    const char* name;
    int count;
    std::function<int(int t, int count, int below)> pivot;  // 0-based, relative to k1
  };
  std::mt19937 generator(7);
  const std::vector<Case> cases = {
      {"random", 384, [&](int t, int, int below) { return t + int(generator() % unsigned(below - t)); }},
      {"within the block", 300, [&](int t, int count, int) { return t + int(generator() % unsigned(count - t)); }},
      {"next row", 256, [](int t, int, int) { return t + 1; }},
      {"one row below", 200, [](int, int count, int) { return count + 5; }},
      {"none", 64, [](int t, int, int) { return t; }},
      {"wide", 1100, [&](int t, int, int below) { return t + int(generator() % unsigned(below - t)); }},
      {"wider than the gather", 2100,
       [&](int t, int, int below) { return t + int(generator() % unsigned(below - t)); }},
      {"above their row", 100, [](int t, int, int) { return t % 2 ? t - 1 : t + 3; }},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    const int k1 = 3, cols = 37, m = k1 + c.count + 150, lda = m + 2;
    const int below = m - k1;  // rows a pivot may name, relative to k1
    std::vector<int> pivots(c.count), absolute(k1 + c.count);
    for (int t = 0; t < c.count; ++t) {
      pivots[t] = c.pivot(t, c.count, below) + 1;
      absolute[k1 + t] = k1 + pivots[t];
    }
    auto M = test_support::make_matrix<double>(Kind::random, lda, cols);
    auto expected = M;
    kernels::laswp(cols, expected.data(), lda, k1, k1 + c.count, absolute.data());
    const auto got =
        on_device(M, lda, cols, [&](backends::Backend<double>& dev, const backends::DeviceMatrix<double>& d) {
          auto on_device_pivots = dev.allocate_ints(c.count);
          auto staged = std::static_pointer_cast<int>(dev.allocate_pinned(sizeof(int) * c.count));
          std::copy(pivots.begin(), pivots.end(), staged.get());
          dev.copy_ints_to_device(Queue::compute, c.count, staged.get(), on_device_pivots.get());
          dev.laswp(Queue::compute, cols, d.data(), d.ld, k1, k1 + c.count, on_device_pivots.get());
          dev.synchronize();  // the pivots go out of scope
        });
    EXPECT_EQ(got, expected);
  }
}

TEST_P(BackendTest, CopyOnDeviceAndTrsmUpperMatchTheCpu) {
  const int m = 29, n = 5;
  auto M = test_support::make_matrix<double>(Kind::random, m, m + n);
  for (int i = 0; i < m; ++i) M[i + static_cast<size_t>(i) * m] += 6;
  auto expected = M;
  blas::trsm(blas::Side::left, blas::Uplo::upper, blas::Op::no_trans, blas::Diag::non_unit, m, n, 1.0, expected.data(),
             m, expected.data() + m * m, m);
  // The right-hand sides go through a second device matrix: copy there, solve there, copy back.
  const auto got = on_device(M, m, m + n, [&](backends::Backend<double>& dev, const backends::DeviceMatrix<double>& d) {
    auto rhs = dev.allocate(m, n);
    dev.copy_on_device(Queue::compute, m, n, d.at(0, m), d.ld, rhs.data(), rhs.ld);
    dev.trsm_upper(Queue::compute, m, n, d.data(), d.ld, rhs.data(), rhs.ld);
    dev.copy_on_device(Queue::compute, m, n, rhs.data(), rhs.ld, d.at(0, m), d.ld);
    dev.synchronize();  // rhs goes out of scope
  });
  EXPECT_LT(max_difference(got, expected), 1e-13);
}

// Mixed precision's A rounded where it lands in double: as the host rounds it, to the bit; an entry
// beyond single's range becomes 0 and a NaN stays; the double backend's "rounding" copies, infinities
// and all. A 3 x 5 block of a 4 x 6 matrix on each side: the leading dimensions are honoured.
TEST_P(BackendTest, RoundingFromDoubleMatchesTheHost) {
  const int rows = 3, cols = 5, ld = 4;
  std::vector<double> wide = test_support::make_matrix<double>(Kind::random, ld, cols + 1);
  wide[1] = 1e39, wide[ld + 2] = -4e38, wide[2 * ld] = std::nan(""), wide[3 * ld + 1] = 3.3e38;
  wide[4 * ld + 2] = std::numeric_limits<double>::infinity();
  auto& high = device();
  auto& low = backends::backend<float>(GetParam());
  auto from = high.allocate(ld, cols + 1);
  auto to = low.allocate(ld, cols + 1);
  auto copied = high.allocate(ld, cols + 1);
  high.copy_to_device(Queue::to_device, ld, cols + 1, wide.data(), ld, from.data(), from.ld);
  low.wait(Queue::compute, high.record(Queue::to_device));
  high.wait(Queue::compute, high.record(Queue::to_device));
  std::vector<float> unset(static_cast<size_t>(ld) * (cols + 1), -7.0f);
  low.copy_to_device(Queue::compute, ld, cols + 1, unset.data(), ld, to.data(), to.ld);
  low.round_from_wide(Queue::compute, rows, cols, from.data(), from.ld, to.data(), to.ld);
  high.round_from_wide(Queue::compute, rows, cols, from.data(), from.ld, copied.data(), copied.ld);
  std::vector<float> got(unset.size());
  std::vector<double> got_wide(wide.size(), -7.0);
  low.copy_to_host(Queue::compute, ld, cols + 1, to.data(), to.ld, got.data(), ld);
  high.copy_to_host(Queue::compute, rows, cols, copied.data(), copied.ld, got_wide.data(), ld);
  low.synchronize();
  high.synchronize();
  for (int j = 0; j <= cols; ++j)
    for (int i = 0; i < ld; ++i) {
      SCOPED_TRACE(::testing::Message() << "(" << i << ", " << j << ")");
      const double x = wide[i + j * ld];
      const float y = got[i + j * ld];
      if (i >= rows || j >= cols) {
        EXPECT_EQ(y, -7.0f);  // outside the block: untouched
        continue;
      }
      EXPECT_EQ(std::isnan(y), std::isnan(x));
      if (!std::isnan(x)) {
        EXPECT_EQ(y, std::abs(x) > 3.4028234663852886e38 ? 0.0f : static_cast<float>(x));
      }
      const double w = got_wide[i + j * ld];
      EXPECT_TRUE(w == x || (std::isnan(w) && std::isnan(x)));
    }
  EXPECT_EQ(got[ld + 2], 0.0f);
  EXPECT_EQ(got[3 * ld + 1], 3.3e38f);
}

// GMRES-based refinement's single factors widened to double where they lie: every float exactly,
// infinities, NaN, FLT_MAX and subnormals too; only the block asked for (4 x 5 of a 5 x 6 matrix).
TEST_P(BackendTest, WideningToDoubleIsExact) {
  const int ld = 5, cols = 6;
  std::vector<float> narrow(static_cast<size_t>(ld) * cols);
  for (size_t k = 0; k < narrow.size(); ++k) narrow[k] = std::ldexp(float(std::sin(1.7 * double(k))), int(k % 9) - 4);
  narrow[1] = std::numeric_limits<float>::infinity(), narrow[ld + 2] = std::nanf("");
  narrow[2 * ld + 3] = std::numeric_limits<float>::max(), narrow[3 * ld] = std::numeric_limits<float>::denorm_min();
  const auto wide = test_support::widened_on(GetParam(), narrow, ld, cols, -7.0);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < ld; ++i) {
      const size_t k = i + static_cast<size_t>(j) * ld;
      if (i == ld - 1 || j == cols - 1) {
        EXPECT_EQ(wide[k], -7.0) << k;  // outside the block: untouched
      } else {
        EXPECT_TRUE(wide[k] == double(narrow[k]) || (std::isnan(wide[k]) && std::isnan(narrow[k]))) << k;
      }
    }
  // More columns than a CUDA grid's rows of blocks (4096): the kernel strides over the rest.
  const int many = 4100;
  std::vector<float> row(static_cast<size_t>(2) * many);
  for (size_t k = 0; k < row.size(); ++k) row[k] = float(k) + 0.5f;
  const auto wide_row = test_support::widened_on(GetParam(), row, 2, many, -7.0);
  EXPECT_EQ(wide_row[2 * (many - 2)], double(row[2 * (many - 2)]));
  EXPECT_EQ(wide_row[2 * (many - 2) + 1], -7.0);
  EXPECT_EQ(wide_row[2 * (many - 1)], -7.0);
  for (int j = 0; j < many - 1; ++j) ASSERT_EQ(wide_row[2 * j], double(row[2 * j])) << j;
}

// The rows a distributed step touches, gathered into a dense block and scattered back: in any
// order of the list, the other rows untouched; a block with lda > its rows, on both sides.
TEST_P(BackendTest, GatherAndScatterRowsMoveExactlyTheRowsListed) {
  const int m = 40, cols = 9, lda = m + 3;
  const std::vector<int> rows = {17, 3, 39, 0, 22, 23, 24, 8};
  const int count = static_cast<int>(rows.size()), ldo = count + 2;
  const auto M = test_support::make_matrix<double>(Kind::random, lda, cols, 12);
  auto& dev = device();
  auto dA = dev.allocate(lda, cols), dOut = dev.allocate(ldo, cols);
  auto on_device_rows = dev.allocate_ints(count);
  auto staged = std::static_pointer_cast<int>(dev.allocate_pinned(sizeof(int) * count));
  std::copy(rows.begin(), rows.end(), staged.get());
  dev.copy_ints_to_device(Queue::compute, count, staged.get(), on_device_rows.get());
  dev.copy_to_device(Queue::compute, lda, cols, M.data(), lda, dA.data(), dA.ld);
  dev.gather_rows(Queue::compute, count, cols, dA.data(), dA.ld, on_device_rows.get(), dOut.data(), dOut.ld);
  std::vector<double> gathered(static_cast<size_t>(ldo) * cols, -1);
  dev.copy_to_host(Queue::compute, count, cols, dOut.data(), dOut.ld, gathered.data(), ldo);
  dev.synchronize();
  for (int j = 0; j < cols; ++j)
    for (int t = 0; t < count; ++t)
      ASSERT_EQ(gathered[t + static_cast<size_t>(j) * ldo], M[rows[t] + static_cast<size_t>(j) * lda])
          << t << ", " << j;
  // Scatter new values back: only the listed rows change.
  std::vector<double> fresh(static_cast<size_t>(ldo) * cols);
  for (size_t k = 0; k < fresh.size(); ++k) fresh[k] = 1000.0 + double(k);
  dev.copy_to_device(Queue::compute, count, cols, fresh.data(), ldo, dOut.data(), dOut.ld);
  dev.scatter_rows(Queue::compute, count, cols, dOut.data(), dOut.ld, on_device_rows.get(), dA.data(), dA.ld);
  std::vector<double> back(M.size());
  dev.copy_to_host(Queue::compute, lda, cols, dA.data(), dA.ld, back.data(), lda);
  dev.synchronize();
  auto expected = M;
  for (int j = 0; j < cols; ++j)
    for (int t = 0; t < count; ++t)
      expected[rows[t] + static_cast<size_t>(j) * lda] = fresh[t + static_cast<size_t>(j) * ldo];
  EXPECT_EQ(back, expected);
}

// The transposed solves of a condition estimate: U^-T then L^-T, against the CPU's.
TEST_P(BackendTest, TransposedTrsmMatchesTheCpu) {
  const int m = 29, n = 3;
  auto M = test_support::make_matrix<double>(Kind::random, m, m + n, 8);
  for (int i = 0; i < m; ++i) M[i + static_cast<size_t>(i) * m] += 6;
  auto expected = M;
  blas::trsm(blas::Side::left, blas::Uplo::upper, blas::Op::trans, blas::Diag::non_unit, m, n, 1.0, expected.data(), m,
             expected.data() + m * m, m);
  blas::trsm(blas::Side::left, blas::Uplo::lower, blas::Op::trans, blas::Diag::unit, m, n, 1.0, expected.data(), m,
             expected.data() + m * m, m);
  const auto got = on_device(M, m, m + n, [&](backends::Backend<double>& dev, const backends::DeviceMatrix<double>& d) {
    dev.trsm_upper(Queue::compute, m, n, d.data(), d.ld, d.at(0, m), d.ld, Transpose::yes);
    dev.trsm_lower_unit(Queue::compute, m, n, d.data(), d.ld, d.at(0, m), d.ld, Transpose::yes);
  });
  EXPECT_LT(max_difference(got, expected), 1e-13);
}

TEST_P(BackendTest, ResidualMatchesTheCpu) {
  // Enough rows and columns for several chunks of the device's two-pass sum.
  const int n = 1100, nrhs = 2;
  const auto A = test_support::make_matrix<double>(Kind::random, n, n, 3);
  const auto X = test_support::make_matrix<double>(Kind::random, n, nrhs, 4);
  const auto B = test_support::make_matrix<double>(Kind::random, n, nrhs, 5);
  std::vector<double> expected_r(n * nrhs), expected_w(n * nrhs);
  const double expected_omega = accuracy::residual_and_backward_error(n, nrhs, A.data(), n, X.data(), n, B.data(), n,
                                                                      expected_r.data(), n, expected_w.data(), n);
  const auto [r, w] = test_support::residual_on(device(), n, nrhs, A, X, B);
  // Sums in double in another order: equal to a few units in the last place of the terms' size.
  EXPECT_LT(max_difference(r, expected_r), 1e-12);
  for (int i = 0; i < n * nrhs; ++i) ASSERT_NEAR(w[i], expected_w[i], 1e-9 * expected_w[i]) << i;
  EXPECT_DOUBLE_EQ(accuracy::largest_row_omega(n, nrhs, w.data(), n), *std::max_element(w.begin(), w.end()));
  EXPECT_NEAR(accuracy::largest_row_omega(n, nrhs, w.data(), n), expected_omega, 1e-9 * expected_omega);
}

// Rows of subnormal entries: every product a_ij x_j rounds by up to half the smallest subnormal, which
// the computed residual cannot show, so omega's share counts it (row_omega.hpp) on the device as on
// the CPUs. Without that term the device called such rows solved to about 1 % (a wrong x passed).
TEST_P(BackendTest, ResidualOfSubnormalRowsCountsWhatUnderflowHides) {
  const int n = 600, small_rows = 12;  // two of the device's column chunks
  const double u = std::numeric_limits<double>::denorm_min();
  auto A = test_support::make_matrix<double>(Kind::random, n, n, 6);
  auto B = test_support::make_matrix<double>(Kind::random, n, 1, 7);
  const std::vector<double> X(n, 1.0 / 3);
  std::mt19937 random(8);
  std::uniform_int_distribution<int> multiple(1, 7);
  for (int i = 0; i < small_rows; ++i) {
    double exact_sum = 0;  // of a_ij / 3 in units of u
    for (int j = 0; j < n; ++j) {
      const int k = multiple(random);
      A[i + static_cast<size_t>(j) * n] = k * u;
      exact_sum += k / 3.0;
    }
    B[i] = std::round(exact_sum) * u;  // b_i within half a unit of the exact A x
  }
  std::vector<double> expected_r(n), expected_w(n);
  accuracy::residual_and_backward_error(n, 1, A.data(), n, X.data(), n, B.data(), n, expected_r.data(), n,
                                        expected_w.data(), n);
  const auto [r, w] = test_support::residual_on(device(), n, 1, A, X, B);
  for (int i = 0; i < small_rows; ++i) {
    // At least the n + 2 hidden half-units over s_i (about 4n units): the device's sums, in another
    // order, round to other subnormals, so only within a factor of 2 of the CPUs'.
    EXPECT_GT(w[i], 0.1) << i;
    EXPECT_GT(w[i], 0.5 * expected_w[i]) << i;
    EXPECT_LT(w[i], 2 * expected_w[i]) << i;
  }
  for (int i = small_rows; i < n; ++i) ASSERT_NEAR(w[i], expected_w[i], 1e-9 * expected_w[i]) << i;
}

TEST_P(BackendTest, PanelLuMatchesTheCpuKernel) {
  const int m = 41, n = 8;
  const auto A = test_support::make_matrix<double>(Kind::random, m, n);
  auto expected = A;
  std::vector<int> expected_ipiv(n), ipiv(n);
  kernels::getrf_recursive(m, n, expected.data(), m, expected_ipiv.data());
  int info = -1;
  const auto got = on_device(A, m, n, [&](backends::Backend<double>& dev, const backends::DeviceMatrix<double>& d) {
    info = test_support::panel_lu_on(dev, m, n, d.data(), d.ld, ipiv);
  });
  EXPECT_EQ(info, 0);
  EXPECT_EQ(ipiv, expected_ipiv);
  EXPECT_LT(max_difference(got, expected), 1e-12);
}

TEST_P(BackendTest, ButterfliesMatchTheCpuKernels) {
  const int n = 24;
  const auto U = kernels::Butterfly<double>::random(n, 1), V = kernels::Butterfly<double>::random(n, 2);
  const auto A = test_support::make_matrix<double>(Kind::random, n, n);
  auto expected = A;
  kernels::apply_transpose_left(U, n, expected.data(), n);
  kernels::apply_right(V, n, expected.data(), n);
  const auto got = on_device(A, n, n, [&](backends::Backend<double>& dev, const backends::DeviceMatrix<double>& d) {
    dev.butterflies_two_sided(Queue::compute, n, U.values.data(), V.values.data(), d.data(), d.ld);
  });
  EXPECT_LT(max_difference(got, expected), 1e-13);
}

TEST_P(BackendTest, EventsOrderTheQueues) {
  // The copy back waits for the compute queue's update through an event; without it, it could
  // copy the matrix before the update.
  const int n = 300;
  const auto A = test_support::make_matrix<double>(Kind::random, n, n);
  auto expected = A;
  blas::gemm(blas::Op::no_trans, blas::Op::no_trans, n, n, n, -1.0, A.data(), n, A.data(), n, 1.0, expected.data(), n);
  auto& dev = device();
  auto dA = dev.allocate(n, n), dC = dev.allocate(n, n);
  dev.copy_to_device(Queue::to_device, n, n, A.data(), n, dA.data(), dA.ld);
  dev.copy_to_device(Queue::to_device, n, n, A.data(), n, dC.data(), dC.ld);
  dev.wait(Queue::compute, dev.record(Queue::to_device));
  dev.gemm_minus(Queue::compute, n, n, n, dA.data(), dA.ld, dA.data(), dA.ld, dC.data(), dC.ld);
  dev.wait(Queue::to_host, dev.record(Queue::compute));
  std::vector<double> got(A.size());
  dev.copy_to_host(Queue::to_host, n, n, dC.data(), dC.ld, got.data(), n);
  dev.synchronize();
  EXPECT_LT(max_difference(got, expected), 1e-10);
}

TEST_P(BackendTest, OutOfMemoryIsAClearError) {
  try {
    device().allocate(1 << 30, 1 << 30);  // 8 EiB
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("out of"), std::string::npos) << e.what();
  }
}

// A zero column: the panel's info says which, on the device, read when the caller wants it.
TEST_P(BackendTest, PanelLuReportsAZeroColumnInItsInfo) {
  const int m = 12, n = 6;
  auto A = test_support::make_matrix<double>(Kind::random, m, n);
  for (int i = 0; i < m; ++i) A[i + 3 * m] = 0;
  int info = -1;
  on_device(A, m, n, [&](backends::Backend<double>& dev, const backends::DeviceMatrix<double>& d) {
    auto ints = dev.allocate_ints(n + 1);
    auto staged = std::static_pointer_cast<int>(dev.allocate_pinned(sizeof(int) * (n + 1)));
    dev.getrf_panel(Queue::compute, m, n, d.data(), d.ld, ints.get(), ints.get() + n, true);
    dev.copy_ints_to_host(Queue::compute, 1, ints.get() + n, staged.get());
    dev.synchronize();
    info = staged.get()[0];
  });
  EXPECT_EQ(info, 4);
}

// Staged copies of a matrix many slots wide, both ways, with leading dimensions that differ: the
// data arrives whole, downloads unpack in order, and nothing larger than a slot is page-locked.
TEST_P(BackendTest, StagedCopiesGoThroughSlotsOfABlockColumn) {
  auto& dev = device();
  const int rows = 53, cols = 47, ld = 61, slot_columns = 5;
  auto host = test_support::make_matrix<double>(Kind::random, ld, cols, 9);
  auto dA = dev.allocate(rows, cols);
  dev.reset_pinned_statistics();
  std::vector<double> back(static_cast<size_t>(ld) * cols, -7.0);
  {
    backends::Staging<double> staging(dev, rows, slot_columns);
    staging.to_device(Queue::to_device, rows, cols, host.data(), ld, dA.data(), dA.ld);
    dev.wait(Queue::to_host, dev.record(Queue::to_device));
    const auto first = staging.to_host(Queue::to_host, rows, 20, dA.data(), dA.ld, back.data(), ld);
    const auto last = staging.to_host(Queue::to_host, rows, cols - 20, dA.at(0, 20), dA.ld, back.data() + 20 * ld, ld);
    EXPECT_GT(last, first);
    staging.finish(first);
    for (int j = 0; j < 20; ++j)
      for (int i = 0; i < rows; ++i) ASSERT_EQ(back[i + j * ld], host[i + j * ld]) << i << "," << j;
    staging.finish_all();
    EXPECT_THROW(staging.to_device(Queue::to_device, rows + 1, 1, host.data(), ld, dA.data(), dA.ld), Error);
  }
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < ld; ++i) ASSERT_EQ(back[i + j * ld], i < rows ? host[i + j * ld] : -7.0) << i << "," << j;
  EXPECT_EQ(dev.largest_pinned_bytes(), sizeof(double) * rows * slot_columns);
}

// Slots for downloads only (the panel-on-device LU's early downloads): uploads are refused; row
// ranges of block columns, issued more than the slots hold before any finish, land in place.
TEST_P(BackendTest, DownloadOnlySlotsTakeRowRangesInOrder) {
  auto& dev = device();
  const int rows = 37, cols = 24, nb = 8;
  auto host = test_support::make_matrix<double>(Kind::random, rows, cols, 10);
  auto dA = dev.allocate(rows, cols);
  dev.copy_to_device(Queue::to_device, rows, cols, host.data(), rows, dA.data(), dA.ld);
  dev.synchronize();
  std::vector<double> back(static_cast<size_t>(rows) * cols, -7.0);
  {
    backends::Staging<double> early(dev, rows, nb, 3, /*downloads_only=*/true);
    EXPECT_THROW(early.to_device(Queue::to_device, rows, 1, host.data(), rows, dA.data(), dA.ld), Error);
    for (int J = 0; J < cols / nb; ++J) {  // block column J: rows [0, (J + 1) nb), then the rest
      const int top = (J + 1) * nb;
      early.to_host(Queue::to_host, top, nb, dA.at(0, J * nb), dA.ld, back.data() + J * nb * rows, rows);
      early.to_host(Queue::to_host, rows - top, nb, dA.at(top, J * nb), dA.ld, back.data() + top + J * nb * rows, rows);
    }
    early.finish_all();
  }
  EXPECT_EQ(back, host);
}

INSTANTIATE_TEST_SUITE_P(Kinds, BackendTest, ::testing::Values(BackendKind::host, BackendKind::cuda),
                         [](const auto& param_info) { return to_string(param_info.param); });

}  // namespace
