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

}  // namespace
