// hetlu::gesv_batched's hybrid target (#14 item 5): the batch on one device gives the CPU target's
// answer; a plan override or several devices are refused with a message that says so.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "hetlu/hetlu.hpp"

using namespace hetlu;

namespace {

struct Systems {
  int batch = 40, n = 9, nrhs = 2;
  std::vector<double> A, B;
  std::vector<int> ipiv, info;
  Systems() {
    std::mt19937 rng(4);
    std::uniform_real_distribution<double> u(-1, 1);
    A.resize(std::size_t(batch) * n * n), B.resize(std::size_t(batch) * n * nrhs);
    for (auto& x : A) x = u(rng);
    for (auto& x : B) x = u(rng);
    ipiv.assign(std::size_t(batch) * n, 0), info.assign(batch, -1);
  }
  void solve(const Options& options) {
    gesv_batched(batch, n, nrhs, A.data(), n, n * n, ipiv.data(), n, B.data(), n, n * nrhs, info.data(), options);
  }
};

Options on(const char* devices) {
  Options o;
  o.target = Target::hybrid;
  o.overrides.devices = from_string<DeviceSet>(devices);
  return o;
}

TEST(GesvBatched, OnAHostBackendGivesTheCpuTargetsAnswer) {
  Systems cpu, team;
  cpu.solve({});
  team.solve(on("host:1"));
  EXPECT_EQ(team.info, cpu.info);
  EXPECT_EQ(team.ipiv, cpu.ipiv);
  EXPECT_EQ(team.A, cpu.A);
  EXPECT_EQ(team.B, cpu.B);
}

TEST(GesvBatched, RefusesAPlanOverrideAndSeveralDevices) {
  Systems s;
  Options with_nb = on("host:1");
  with_nb.overrides.nb = 8;
  try {
    s.solve(with_nb);
    FAIL() << "nb was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("no plan to override"), std::string::npos) << e.what();
  }
  try {
    s.solve(on("host:1,host:1"));
    FAIL() << "two devices were accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("one device; 2 were given"), std::string::npos) << e.what();
  }
  EXPECT_EQ(s.info, std::vector<int>(s.batch, -1));  // nothing ran
}

// Layouts whose systems do not overlap though the stride is below lda * n: stacked down the rows of
// one tall array (lda = batch n, stride n), and each system beginning in the last one's padding rows.
TEST(GesvBatched, StackedAndPaddedLayoutsGiveThePackedAnswer) {
  Systems packed;
  packed.solve({});
  const int batch = packed.batch, n = packed.n, nrhs = packed.nrhs;
  for (const bool stacked : {true, false}) {
    const int lda = stacked ? batch * n : n + 3, ldb = lda;
    const std::int64_t stride_a = stacked ? n : std::int64_t(lda) * (n - 1) + n;
    const std::int64_t stride_b = stacked ? n : std::int64_t(ldb) * (nrhs - 1) + n;
    std::vector<double> A(std::size_t(stride_a) * (batch - 1) + std::size_t(lda) * n, -7.0);
    std::vector<double> B(std::size_t(stride_b) * (batch - 1) + std::size_t(ldb) * nrhs, -7.0);
    Systems input;  // the packed input again
    for (int s = 0; s < batch; ++s)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
          A[s * stride_a + i + std::size_t(j) * lda] = input.A[std::size_t(s) * n * n + i + std::size_t(j) * n];
          if (j < nrhs) B[s * stride_b + i + std::size_t(j) * ldb] = input.B[std::size_t(s) * n * nrhs + i + j * n];
        }
    std::vector<int> ipiv(std::size_t(batch) * n), info(batch, -1);
    for (const char* target : {"cpu", "hybrid"}) {
      std::vector<double> a = A, b = B;
      Options options = std::string(target) == "cpu" ? Options{} : on("host:1");
      gesv_batched(batch, n, nrhs, a.data(), lda, stride_a, ipiv.data(), n, b.data(), ldb, stride_b, info.data(),
                   options);
      EXPECT_EQ(info, packed.info) << target << (stacked ? " stacked" : " padded");
      for (int s = 0; s < batch; ++s)
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < nrhs; ++j)
            ASSERT_EQ(b[s * stride_b + i + std::size_t(j) * ldb], packed.B[std::size_t(s) * n * nrhs + i + j * n])
                << target << (stacked ? " stacked" : " padded") << " system " << s;
    }
  }
  // One row short of stacked, and one entry short of after the last: overlap, refused.
  Systems s;
  EXPECT_THROW(gesv_batched(2, 4, 1, s.A.data(), 7, 4, s.ipiv.data(), 4, s.B.data(), 4, 4, s.info.data(), {}),
               InvalidArgument);
  EXPECT_THROW(gesv_batched(2, 4, 1, s.A.data(), 6, 6 * 3 + 3, s.ipiv.data(), 4, s.B.data(), 4, 4, s.info.data(), {}),
               InvalidArgument);
  EXPECT_NO_THROW(gesv_batched(2, 4, 1, s.A.data(), 8, 4, s.ipiv.data(), 4, s.B.data(), 4, 4, s.info.data(), {}));
}

}  // namespace
