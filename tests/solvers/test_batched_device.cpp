// A batch of small systems on one device (#14 item 5), on every backend this machine has (the host
// backend here; the cuda one where a GPU is: cuBLAS's batched LU): solvers::gesv_batched_on gives
// what the CPUs' batch gives (LAPACK's gesv for each system), in chunks of any size, with gaps
// between the systems left alone, a singular system's B untouched and a NaN system skipped.
#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/lu.hpp"
#include "solvers/scalar.hpp"

using namespace hetlu;

namespace {

constexpr double gap = 7777;  // the entries between systems and below each column's n rows

template <class T>
struct Batch {
  int batch = 0, n = 0, nrhs = 0, lda = 0, ldb = 0;
  std::int64_t stride_a = 0, stride_ipiv = 0, stride_b = 0;
  std::vector<T> A, B;
  std::vector<int> ipiv, info;

  Batch(int batch_, int n_, int nrhs_, int pad, unsigned seed) : batch(batch_), n(n_), nrhs(nrhs_) {
    lda = n + pad, ldb = n + pad;
    stride_a = std::int64_t(lda) * n + 3 * pad, stride_ipiv = n + pad, stride_b = std::int64_t(ldb) * nrhs + pad;
    A.assign(stride_a * batch, T(gap)), B.assign(std::max<std::int64_t>(1, stride_b * batch), T(gap));
    ipiv.assign(stride_ipiv * batch, -5), info.assign(batch, -99);
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    auto draw = [&] {
      if constexpr (scalar::is_complex_v<T>) {
        const double re = u(rng);
        return T(re, u(rng));
      } else {
        return T(u(rng));
      }
    };
    for (int s = 0; s < batch; ++s) {
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) a(s, i, j) = draw();
      for (int j = 0; j < nrhs; ++j)
        for (int i = 0; i < n; ++i) b(s, i, j) = draw();
    }
  }
  T& a(int s, int i, int j) { return A[s * stride_a + i + std::int64_t(j) * lda]; }
  T& b(int s, int i, int j) { return B[s * stride_b + i + std::int64_t(j) * ldb]; }
};

class BatchedOnDevice : public ::testing::TestWithParam<BackendKind> {
 protected:
  // Each system's factors as an LU with partial pivoting by modulus: pivots in range (and none
  // past n), every multiplier at most 1 in modulus, ||P A - L U|| / (n ||A|| eps) below LAPACK's
  // 30; the gaps around the systems untouched.
  template <class T>
  static void expect_pivoted_by_modulus(const Batch<T>& device, const Batch<T>& original, const std::string& where) {
    const double u = std::numeric_limits<scalar::real_t<T>>::epsilon();
    const int n = device.n;
    for (int s = 0; s < device.batch; ++s) {
      if (device.info[s] != 0) continue;
      const T* lu = &device.A[s * device.stride_a];
      const int* ipiv = &device.ipiv[s * device.stride_ipiv];
      for (std::int64_t k = n; k < device.stride_ipiv; ++k)
        EXPECT_EQ(ipiv[k], -5) << where << ", system " << s << ": ipiv written past n";
      for (int k = 0; k < n; ++k) {
        EXPECT_TRUE(ipiv[k] >= k + 1 && ipiv[k] <= n) << where << ", system " << s << ", ipiv[" << k << "]";
        for (int i = k + 1; i < n; ++i)
          EXPECT_LE(std::abs(lu[i + std::int64_t(k) * device.lda]), 1 + 8 * u) << where << ", system " << s;
      }
      EXPECT_LT(accuracy::factorization_residual(n, n, &original.A[s * original.stride_a], original.lda, lu, device.lda,
                                                 ipiv),
                30)
          << where << ", system " << s;
    }
    for (std::size_t k = 0; k < device.A.size(); ++k)
      if (original.A[k] == T(gap)) {
        ASSERT_EQ(device.A[k], T(gap)) << where << ", a gap of A at " << k;
      }
  }

  void SetUp() override {
    std::string why;
    if (!backends::available(GetParam(), &why)) GTEST_SKIP() << why;
  }

  // The device's answer against the CPUs' batch on the same systems: infos and pivots equal, the
  // factors equal on the host backend (the same kernel) and within rounding on a GPU, each
  // solution's backward error small, every gap untouched.
  template <class T>
  void expect_as_the_cpus(int batch, int n, int nrhs, int pad, std::int64_t chunk_bytes) {
    Batch<T> device(batch, n, nrhs, pad, 11), cpu = device;
    const Batch<T> original = device;
    solvers::gesv_batched(batch, n, nrhs, cpu.A.data(), cpu.lda, cpu.stride_a, cpu.ipiv.data(), cpu.stride_ipiv,
                          cpu.B.data(), cpu.ldb, cpu.stride_b, cpu.info.data());
    solvers::gesv_batched_on(backends::backend<T>(GetParam()), batch, n, nrhs, device.A.data(), device.lda,
                             device.stride_a, device.ipiv.data(), device.stride_ipiv, device.B.data(), device.ldb,
                             device.stride_b, device.info.data(), InputCheck::none, chunk_bytes);
    const std::string where = "n = " + std::to_string(n) + ", nrhs " + std::to_string(nrhs) + ", pad " +
                              std::to_string(pad) + ", chunk " + std::to_string(chunk_bytes) + " B";
    EXPECT_EQ(device.info, cpu.info) << where;
    const double u = std::numeric_limits<scalar::real_t<T>>::epsilon();
    const bool exact = GetParam() == BackendKind::host;
    // cuBLAS's complex batched LU pivots on the modulus |z|, LAPACK's on |re| + |im| (izamax): a
    // GPU may choose another row where the two disagree (seen on an H100, 2026-11-27). Its
    // factors are then checked as an LU with partial pivoting by modulus.
    if (scalar::is_complex_v<T> && !exact) {
      expect_pivoted_by_modulus(device, original, where);
    } else {
      EXPECT_EQ(device.ipiv, cpu.ipiv) << where;
      for (std::size_t k = 0; k < device.A.size(); ++k)
        if (exact || cpu.A[k] == T(gap))
          ASSERT_EQ(device.A[k], cpu.A[k]) << where << ", A entry " << k;
        else
          ASSERT_LE(std::abs(device.A[k] - cpu.A[k]), 1e3 * u * (1 + std::abs(cpu.A[k]))) << where << ", A entry " << k;
    }
    for (int s = 0; s < batch; ++s) {
      if (cpu.info[s] != 0) continue;
      const double omega = accuracy::backward_error(n, nrhs, &original.A[s * original.stride_a], original.lda,
                                                    &device.B[s * device.stride_b], device.ldb,
                                                    &original.B[s * original.stride_b], original.ldb);
      EXPECT_LT(omega, 30 * (n + 1) * u) << where << ", system " << s;
    }
    for (std::size_t k = 0; k < device.B.size(); ++k)
      if (original.B[k] == T(gap)) {
        ASSERT_EQ(device.B[k], T(gap)) << where << ", a gap of B at " << k;
      }
  }
};

TEST_P(BatchedOnDevice, SolvesAsTheCpusBatchInChunksOfAnySize) {
  expect_as_the_cpus<double>(9, 1, 1, 0, solvers::batch_chunk_bytes);
  expect_as_the_cpus<double>(7, 5, 3, 2, 1);       // one system a chunk
  expect_as_the_cpus<double>(10, 16, 1, 1, 5000);  // two systems a chunk, the last chunk short
  expect_as_the_cpus<double>(6, 33, 2, 0, solvers::batch_chunk_bytes);
  expect_as_the_cpus<double>(3, 8, 0, 1, solvers::batch_chunk_bytes);  // no right-hand side: getrf only
  expect_as_the_cpus<float>(5, 12, 2, 3, 3000);
}

TEST_P(BatchedOnDevice, ComplexSystemsAsTheCpusBatch) {
  expect_as_the_cpus<std::complex<double>>(7, 5, 3, 2, 1);
  expect_as_the_cpus<std::complex<double>>(6, 33, 2, 0, solvers::batch_chunk_bytes);
  expect_as_the_cpus<std::complex<float>>(5, 12, 2, 3, 3000);
}

TEST_P(BatchedOnDevice, ASingularSystemKeepsItsBAndTheOthersAreSolved) {
  Batch<double> device(4, 6, 2, 1, 3);
  for (int i = 0; i < 6; ++i) device.a(2, i, 4) = 0;  // column 5 of system 2
  Batch<double> cpu = device;
  const Batch<double> original = device;
  solvers::gesv_batched(4, 6, 2, cpu.A.data(), cpu.lda, cpu.stride_a, cpu.ipiv.data(), cpu.stride_ipiv, cpu.B.data(),
                        cpu.ldb, cpu.stride_b, cpu.info.data());
  solvers::gesv_batched_on(backends::backend<double>(GetParam()), 4, 6, 2, device.A.data(), device.lda, device.stride_a,
                           device.ipiv.data(), device.stride_ipiv, device.B.data(), device.ldb, device.stride_b,
                           device.info.data());
  EXPECT_EQ(device.info, cpu.info);
  EXPECT_EQ(device.info[2], 5);
  for (int j = 0; j < 2; ++j)
    for (int i = 0; i < 6; ++i) EXPECT_EQ(device.b(2, i, j), original.B[2 * original.stride_b + i + j * original.ldb]);
  EXPECT_EQ(device.info[0] + device.info[1] + device.info[3], 0);
}

TEST_P(BatchedOnDevice, ASystemWithANaNOrInfIsLeftAsItIs) {
  Batch<double> device(4, 5, 1, 0, 5);
  device.a(1, 3, 2) = std::nan("");
  device.b(3, 4, 0) = INFINITY;
  const Batch<double> original = device;
  solvers::gesv_batched_on(backends::backend<double>(GetParam()), 4, 5, 1, device.A.data(), device.lda, device.stride_a,
                           device.ipiv.data(), device.stride_ipiv, device.B.data(), device.ldb, device.stride_b,
                           device.info.data(), InputCheck::finite);
  EXPECT_EQ(device.info, (std::vector<int>{0, -3, 0, -6}));
  for (int s : {1, 3})
    for (std::int64_t k = 0; k < device.stride_a; ++k) {
      const double was = original.A[s * device.stride_a + k], is = device.A[s * device.stride_a + k];
      EXPECT_TRUE(was == is || (std::isnan(was) && std::isnan(is))) << "system " << s << ", A entry " << k;
    }
  EXPECT_TRUE(std::isinf(device.b(3, 4, 0)));
  EXPECT_EQ(device.b(1, 0, 0), original.B[1 * original.stride_b]);
}

TEST_P(BatchedOnDevice, AnEmptyBatchOrOrderZeroDoesNothingWrong) {
  std::vector<int> info(3, -1);
  double a = 0, b = 0;
  int p = 0;
  solvers::gesv_batched_on(backends::backend<double>(GetParam()), 0, 4, 1, &a, 4, 16, &p, 4, &b, 4, 4, info.data());
  EXPECT_EQ(info, (std::vector<int>{-1, -1, -1}));
  solvers::gesv_batched_on(backends::backend<double>(GetParam()), 3, 0, 1, &a, 1, 0, &p, 0, &b, 1, 0, info.data());
  EXPECT_EQ(info, (std::vector<int>{0, 0, 0}));
}

TEST(BatchedOnHostBackend, ChunksShrinkToTheDevicesMemoryAndOneSystemTooLargeIsNamed) {
  // 1 MiB of "device memory": 3000 systems of n = 8 (1.7 MiB) go in smaller chunks; one 400 x 400
  // system (1.2 MiB) cannot go at all, and the error says how much it needed.
  setenv("HETLU_HOST_BACKEND_MEMORY_MIB", "1", 1);
  Batch<double> device(3000, 8, 1, 0, 9), cpu = device;
  solvers::gesv_batched(3000, 8, 1, cpu.A.data(), 8, cpu.stride_a, cpu.ipiv.data(), 8, cpu.B.data(), 8, cpu.stride_b,
                        cpu.info.data());
  auto& host = backends::backend<double>(BackendKind::host);
  solvers::gesv_batched_on(host, 3000, 8, 1, device.A.data(), 8, device.stride_a, device.ipiv.data(), 8,
                           device.B.data(), 8, device.stride_b, device.info.data());
  EXPECT_EQ(device.A, cpu.A);
  EXPECT_EQ(device.B, cpu.B);
  EXPECT_EQ(device.info, cpu.info);
  Batch<double> large(1, 400, 1, 0, 2);
  try {
    solvers::gesv_batched_on(host, 1, 400, 1, large.A.data(), 400, large.stride_a, large.ipiv.data(), 400,
                             large.B.data(), 400, large.stride_b, large.info.data());
    ADD_FAILURE() << "a system larger than the device was accepted";
  } catch (const DeviceOutOfMemory& e) {
    EXPECT_NE(std::string(e.what()).find("out of"), std::string::npos) << e.what();
  }
  EXPECT_EQ(large.info[0], -99);  // untouched
  unsetenv("HETLU_HOST_BACKEND_MEMORY_MIB");
}

INSTANTIATE_TEST_SUITE_P(Kinds, BatchedOnDevice, ::testing::Values(BackendKind::host, BackendKind::cuda),
                         [](const auto& param_info) { return to_string(param_info.param); });

}  // namespace
