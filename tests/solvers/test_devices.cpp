// Several devices at once (#16): host backends of different team sizes as two and three devices
// beside the CPUs, every solver, odd and rectangular sizes, proportional and equal deals, a device
// dealt nothing, a device out of memory, the load balance, the device-list syntax and the deal.
#include <gtest/gtest.h>

#include <cstdlib>
#include <numeric>
#include <string>
#include <thread>

#include "hetlu/detail/deal_columns.hpp"
#include "matrices.hpp"
#include "refined_solve.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/hybrid_lu.hpp"
#include "solvers/lu.hpp"

using namespace hetlu;
using test_support::Kind;

namespace {

Plan devices_plan(Solver solver, const std::string& devices, int nb, int d, std::vector<double> shares = {}) {
  Plan p;
  p.solver = solver;
  p.target = Target::hybrid;
  p.devices = from_string<DeviceSet>(devices);
  p.device_shares = std::move(shares);
  p.nb = nb;
  p.ib = std::max(1, nb / 4);
  p.panel_threads = 2;
  p.cpu_block_columns = d;
  return p;
}

std::string describe(const Plan& p) {
  std::string shares;
  for (double s : p.device_shares) shares += std::to_string(s) + " ";
  return to_string(p.solver) + " on " + to_string(p.devices) + " nb=" + std::to_string(p.nb) +
         " d=" + std::to_string(p.cpu_block_columns) + " shares=" + shares;
}

void check_getrf(const Plan& plan, int m, int n, LoadBalance* balance = nullptr) {
  SCOPED_TRACE(describe(plan) + " " + std::to_string(m) + "x" + std::to_string(n));
  const auto A = test_support::make_matrix<double>(Kind::random, m, n, 7);
  auto LU = A;
  std::vector<int> ipiv(std::max(1, std::min(m, n)));
  ASSERT_EQ(solvers::getrf(plan, m, n, LU.data(), m, ipiv.data(), InputCheck::finite, balance), 0);
  // The same pivots as on one device: the CPUs factor every panel the same way whoever updates.
  Plan one = plan;
  one.devices = BackendKind::host;
  one.device_shares.clear();
  auto reference = A;
  std::vector<int> reference_ipiv(ipiv.size());
  ASSERT_EQ(solvers::getrf(one, m, n, reference.data(), m, reference_ipiv.data()), 0);
  EXPECT_EQ(ipiv, reference_ipiv);
  EXPECT_LT(accuracy::factorization_residual(m, n, A.data(), m, LU.data(), m, ipiv.data()), 30.0);
}

void check_gesv(const Plan& plan, int n, int nrhs) {
  SCOPED_TRACE(describe(plan));
  test_support::expect_refined_solve<double>(plan, n, nrhs);
}

}  // namespace

TEST(DeviceSet, ParsesAndWritesDeviceLists) {
  EXPECT_EQ(to_string(from_string<DeviceSet>("cuda")), "cuda");
  EXPECT_EQ(to_string(from_string<DeviceSet>("cuda:0")), "cuda");
  EXPECT_EQ(to_string(from_string<DeviceSet>("host")), "host");
  EXPECT_EQ(to_string(from_string<DeviceSet>("cuda,host:4")), "cuda,host:4");
  EXPECT_EQ(to_string(from_string<DeviceSet>("host:2,host:2,host:1")), "host:2,host:2,host:1");
  EXPECT_EQ(from_string<DeviceSet>("host"), BackendKind::host);
  EXPECT_EQ(from_string<DeviceSet>("cuda"), BackendKind::cuda);
  EXPECT_NE(from_string<DeviceSet>("host:3"), BackendKind::host);
  EXPECT_EQ(from_string<DeviceSet>("cuda:1,host").size(), 2u);
  for (const char* bad : {"", ",", "gpu", "host:", "host:0", "host:x", "host:1x", "host:-1", "host:99999", "cuda:64",
                          "cuda,cuda", "cuda:0,cuda", "host,,host", "host,", " host", "HOST", "host:1:2"})
    EXPECT_THROW(from_string<DeviceSet>(bad), InvalidArgument) << "'" << bad << "'";
  std::string seventeen = "host:1";
  for (int i = 1; i < 17; ++i) seventeen += ",host:1";
  EXPECT_THROW(from_string<DeviceSet>(seventeen), InvalidArgument);
  try {
    from_string<DeviceSet>("host:zero");
    FAIL();
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("host:zero"), std::string::npos) << e.what();
  }
  for (const char* big : {"host:99999", "host:2147483648", "cuda:00064"}) {  // whole numbers, out of range
    try {
      from_string<DeviceSet>(big);
      FAIL() << big;
    } catch (const InvalidArgument& e) {
      EXPECT_NE(std::string(e.what()).find(" in ["), std::string::npos) << e.what();
    }
  }
}

TEST(DealBlockColumns, ProportionalAtEveryPrefixEqualWithoutShares) {
  const auto equal = detail::deal_block_columns({}, 3, 7);
  EXPECT_EQ(equal, (std::vector<int>{0, 1, 2, 0, 1, 2, 0}));
  const auto proportional = detail::deal_block_columns({1, 3}, 2, 8);
  EXPECT_EQ(std::count(proportional.begin(), proportional.end(), 1), 6);
  // Every prefix within one block column of 1:3.
  for (std::size_t k = 1; k <= proportional.size(); ++k) {
    const double fast = std::count(proportional.begin(), proportional.begin() + k, 1);
    EXPECT_LE(std::abs(fast - 0.75 * k), 1.0) << k;
  }
  // A share of zero gets nothing; all zero is equal.
  const auto none = detail::deal_block_columns({0, 1, 1}, 3, 6);
  EXPECT_EQ(std::count(none.begin(), none.end(), 0), 0);
  EXPECT_EQ(detail::deal_block_columns({0, 0}, 2, 4), (std::vector<int>{0, 1, 0, 1}));
  EXPECT_TRUE(detail::deal_block_columns({1}, 1, 0).empty());
}

TEST(SeveralDevices, FactorEverySizeOnTwoAndThreeDevices) {
  for (Solver solver : {Solver::gepp, Solver::calu})
    for (const char* devices : {"host:1,host:2", "host:2,host:1,host:1"})
      for (int d : {1, 2, 5})
        for (auto [m, n] : {std::pair{257, 257}, {300, 199}, {150, 301}, {64, 64}, {33, 1}}) {
          check_getrf(devices_plan(solver, devices, 32, d), m, n);
          const bool three = from_string<DeviceSet>(devices).size() == 3;
          check_getrf(
              devices_plan(solver, devices, 32, d, three ? std::vector<double>{1, 3, 0.5} : std::vector<double>{1, 3}),
              m, n);
        }
}

// d = 0 on several devices (heterogeneous-column-block §3): each device factors the panels of its
// own block columns; the pivots are those of the one device with its panel there (the same panel
// kernel), every size, deal and solver, a device dealt nothing, the balance without the CPUs.
TEST(SeveralDevices, TheOwnerFactorsEachPanelWithDZero) {
  for (Solver solver : {Solver::gepp, Solver::calu})
    for (const char* devices : {"host:1,host:2", "host:2,host:1,host:1"})
      for (auto [m, n] : {std::pair{257, 257}, {300, 199}, {150, 301}, {50, 120}, {64, 64}, {33, 1}, {1, 40}}) {
        check_getrf(devices_plan(solver, devices, 16, 0), m, n);
        const bool three = from_string<DeviceSet>(devices).size() == 3;
        check_getrf(
            devices_plan(solver, devices, 16, 0, three ? std::vector<double>{1, 3, 0.5} : std::vector<double>{3, 1}), m,
            n);
      }
  LoadBalance balance;
  check_getrf(devices_plan(Solver::gepp, "host:1,host:2", 32, 0, {1, 3}), 200, 200, &balance);
  ASSERT_EQ(balance.processors.size(), 2u);  // the devices alone: the CPUs factor nothing
  EXPECT_EQ(balance.processors[0].block_columns + balance.processors[1].block_columns, 7);
  EXPECT_TRUE(balance.phases.empty());  // the owner path
  // A deal that gives one device every block column runs it alone, as the one-device path does
  // (its phases); the other is listed idle, in the plan's order.
  for (const auto& shares : {std::vector<double>{0, 1}, std::vector<double>{1, 0}}) {
    check_getrf(devices_plan(Solver::gepp, "host:1,host:2", 32, 0, shares), 200, 200, &balance);
    ASSERT_EQ(balance.processors.size(), 3u);
    EXPECT_EQ(balance.processors[0].name, "CPUs");
    const std::size_t sole = shares[0] > 0 ? 1 : 2, idle = 3 - sole;
    EXPECT_EQ(balance.processors[sole].block_columns, 7);
    EXPECT_GT(balance.processors[sole].busy_seconds, 0);
    EXPECT_NE(balance.processors[sole].name.find(sole == 1 ? "1 CPU thread" : "2 CPU threads"), std::string::npos)
        << balance.processors[sole].name;
    EXPECT_EQ(balance.processors[idle].block_columns, 0);
    EXPECT_EQ(balance.processors[idle].busy_seconds, 0);
    EXPECT_FALSE(balance.phases.empty());
  }
  check_getrf(devices_plan(Solver::gepp, "host:1,host:1,host:1", 16, 0), 400, 400, &balance);
  ASSERT_EQ(balance.processors.size(), 3u);
  EXPECT_EQ(
      balance.processors[0].block_columns + balance.processors[1].block_columns + balance.processors[2].block_columns,
      25);
  for (const auto& p : balance.processors) {  // panels on the panel queue, counted once beside the updates
    EXPECT_GT(p.busy_seconds, 0) << p.name;
    EXPECT_LE(p.busy_seconds, balance.seconds) << p.name;
  }
}

TEST(SeveralDevices, TheOwnersPanelsSolveAndFindASingularColumn) {
  const int n = 150;
  for (Solver solver : {Solver::gepp, Solver::prbt}) check_gesv(devices_plan(solver, "host:1,host:2", 16, 0), n, 2);
  auto singular = test_support::make_matrix<double>(Kind::random, n, n, 21);
  for (int i = 0; i < n; ++i) singular[i + 70 * n] = 0;  // U(70, 70) exactly zero, in the second device's panel
  std::vector<int> ipiv(n);
  EXPECT_EQ(solvers::getrf(devices_plan(Solver::gepp, "host:1,host:1", 16, 0), n, n, singular.data(), n, ipiv.data()),
            71);
}

// A GPU beside a host backend (skipped without one; device_run.sh's test stage runs it): the owner
// path (d = 0) and the CPUs' panels (d = 2) on real streams and events, each factorization checked
// by its residual (the GPU's panel kernel may break near-ties another way than the CPUs'), a refined
// solve, and a zero pivot in the host backend's block column found.
TEST(SeveralDevicesCuda, AGpuBesideAHostBackendFactorsAndSolves) {
  std::string why;
  if (!backends::available(BackendKind::cuda, &why)) GTEST_SKIP() << why;
  for (Solver solver : {Solver::gepp, Solver::calu})
    for (int d : {0, 2})
      for (const auto& shares : {std::vector<double>{}, std::vector<double>{3, 1}, std::vector<double>{1, 0}})
        for (auto [m, n] : {std::pair{257, 257}, {300, 199}, {150, 301}, {64, 64}, {33, 1}}) {
          const Plan plan = devices_plan(solver, "cuda,host:1", 16, d, shares);
          SCOPED_TRACE(describe(plan) + " " + std::to_string(m) + "x" + std::to_string(n));
          const auto A = test_support::make_matrix<double>(Kind::random, m, n, 7);
          auto LU = A;
          std::vector<int> ipiv(std::max(1, std::min(m, n)));
          LoadBalance balance;
          ASSERT_EQ(solvers::getrf(plan, m, n, LU.data(), m, ipiv.data(), InputCheck::finite, &balance), 0);
          EXPECT_LT(accuracy::factorization_residual(m, n, A.data(), m, LU.data(), m, ipiv.data()), 30.0);
          for (const auto& p : balance.processors) EXPECT_LE(p.busy_seconds, balance.seconds) << p.name;
        }
  for (Solver solver : {Solver::gepp, Solver::prbt})
    for (int d : {0, 2}) check_gesv(devices_plan(solver, "cuda,host:1", 16, d), 150, 2);
  const int n = 150;
  auto singular = test_support::make_matrix<double>(Kind::random, n, n, 21);
  for (int i = 0; i < n; ++i) singular[i + 70 * n] = 0;  // U(70, 70) exactly zero
  for (int d : {0, 2}) {
    auto LU = singular;
    std::vector<int> ipiv(n);
    EXPECT_EQ(solvers::getrf(devices_plan(Solver::gepp, "cuda,host:1", 16, d), n, n, LU.data(), n, ipiv.data()), 71)
        << "d = " << d;
  }
}

TEST(SeveralDevices, ADeviceDealtNothingIsIdleAndHoldsNothing) {
  LoadBalance balance;
  check_getrf(devices_plan(Solver::gepp, "host:1,host:1", 32, 1, {0, 1}), 200, 200, &balance);
  ASSERT_EQ(balance.processors.size(), 3u);
  EXPECT_EQ(balance.processors[1].block_columns, 0);
  EXPECT_EQ(balance.processors[1].busy_seconds, 0);
  EXPECT_EQ(balance.processors[2].block_columns, 6);  // 7 block columns, d = 1
  // More CPU block columns than the matrix has: no device owns one.
  check_getrf(devices_plan(Solver::calu, "host:1,host:1", 32, 50), 100, 100, &balance);
  EXPECT_EQ(balance.processors[1].block_columns + balance.processors[2].block_columns, 0);
}

TEST(SeveralDevices, ReportEachProcessorsBusyTime) {
  LoadBalance balance;
  check_getrf(devices_plan(Solver::gepp, "host:1,host:1,host:1", 16, 1), 400, 400, &balance);
  ASSERT_EQ(balance.processors.size(), 4u);
  EXPECT_EQ(balance.processors[0].name, "CPUs");
  EXPECT_EQ(balance.processors[0].block_columns, 1);
  int dealt = 0;
  for (const auto& p : balance.processors) {
    EXPECT_GE(p.busy_seconds, 0);
    EXPECT_LE(p.busy_seconds, balance.seconds);
    dealt += p.block_columns;
  }
  EXPECT_EQ(dealt, 25);  // every block column once
  for (std::size_t i = 1; i < 4; ++i) EXPECT_GT(balance.processors[i].busy_seconds, 0) << i;
  EXPECT_GT(balance.seconds, 0);
  EXPECT_GE(balance.average_idle_ratio(), 0);
  EXPECT_LT(balance.average_idle_ratio(), 1);
}

TEST(SeveralDevices, SolveWithEverySolver) {
  for (Solver solver : {Solver::gepp, Solver::calu, Solver::prbt})
    for (const char* devices : {"host:1,host:2", "host:1,host:1,host:1"})
      check_gesv(devices_plan(solver, devices, 32, 2), 211, 3);
}

TEST(SeveralDevices, SingularAsOnOneDevice) {
  const int n = 120;
  auto A = test_support::make_matrix<double>(Kind::random, n, n, 3);
  for (int i = 0; i < n; ++i) A[i + 70 * n] = 0;  // column 70 zero: U(70, 70) is exactly zero
  for (Solver solver : {Solver::gepp, Solver::calu}) {
    auto LU = A;
    std::vector<int> ipiv(n);
    EXPECT_EQ(solvers::getrf(devices_plan(solver, "host:1,host:2", 16, 1), n, n, LU.data(), n, ipiv.data()), 71);
  }
  // PRBT finds it and falls back to GEPP, which says so.
  auto LU = A;
  std::vector<double> b(n, 1.0);
  std::vector<int> ipiv(n);
  SolveDetails details;
  EXPECT_EQ(solvers::gesv(devices_plan(Solver::prbt, "host:1,host:1", 16, 1), n, 1, LU.data(), n, ipiv.data(), b.data(),
                          n, InputCheck::finite, &details),
            71);
}

TEST(SeveralDevices, ADeviceOutOfMemoryIsNamed) {
  // 1 MiB of "device memory" per host backend: the device dealt almost everything of a 400 x 400
  // matrix (1.2 MiB) cannot hold it; the other could.
  setenv("HETLU_HOST_BACKEND_MEMORY_MIB", "1", 1);
  const int n = 400;
  auto A = test_support::make_matrix<double>(Kind::random, n, n, 5);
  const auto original = A;
  std::vector<int> ipiv(n);
  try {
    solvers::getrf(devices_plan(Solver::gepp, "host:1,host:1", 32, 1, {0.05, 1}), n, n, A.data(), n, ipiv.data());
    ADD_FAILURE() << "no error";
  } catch (const DeviceOutOfMemory& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("device 2 of 2"), std::string::npos) << what;
    EXPECT_NE(what.find("out of memory"), std::string::npos) << what;
  }
  EXPECT_EQ(A, original) << "A changed before the error";
  unsetenv("HETLU_HOST_BACKEND_MEMORY_MIB");
}

TEST(SeveralDevices, PlansThatCannotRunAreRefused) {
  std::vector<double> A(64 * 64, 1.0);
  std::vector<int> ipiv(64);
  // One share per device.
  EXPECT_THROW(
      solvers::getrf(devices_plan(Solver::gepp, "host:1,host:1", 16, 1, {1}), 64, 64, A.data(), 64, ipiv.data()),
      InvalidArgument);
  EXPECT_THROW(
      solvers::getrf(devices_plan(Solver::gepp, "host:1,host:1", 16, 1, {1, -1}), 64, 64, A.data(), 64, ipiv.data()),
      InvalidArgument);
  Plan empty = devices_plan(Solver::gepp, "host:1", 16, 1);
  empty.devices.list.clear();
  EXPECT_THROW(solvers::getrf(empty, 64, 64, A.data(), 64, ipiv.data()), InvalidArgument);
}

TEST(SeveralDevices, ConcurrentSolvesOnOverlappingDeviceSets) {
  // Three threads at once on sets sharing devices ("host:1" is the first of each): each takes the
  // locks of its devices in one global order, so none deadlocks and every answer is right.
  std::vector<std::thread> threads;
  std::vector<int> ok(3, 0);
  const char* sets[] = {"host:1,host:1", "host:1", "host:1,host:1,host:1"};
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      const int n = 150;
      const auto A = test_support::make_matrix<double>(Kind::random, n, n, 20 + t);
      for (int round = 0; round < 3; ++round) {
        auto LU = A;
        std::vector<int> ipiv(n);
        if (solvers::getrf(devices_plan(Solver::gepp, sets[t], 16, 1), n, n, LU.data(), n, ipiv.data()) != 0) return;
        if (!(accuracy::factorization_residual(n, n, A.data(), n, LU.data(), n, ipiv.data()) < 30)) return;
      }
      ok[t] = 1;
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(ok, (std::vector<int>{1, 1, 1}));
}

TEST(SeveralDevices, TheSameTeamWrittenTwoWaysIsTwoTeams) {
  // "host" is a team of host_backend_threads(); written again as host:K it is a second team, never
  // the same backend twice.
  const int k = backends::host_backend_threads();
  const DeviceSet set = from_string<DeviceSet>("host,host:" + std::to_string(k));
  EXPECT_EQ(backends::device_copies(set), (std::vector<int>{0, 1}));
  const auto copies = backends::device_copies(set);
  EXPECT_NE(&backends::backend<double>(set.list[0], copies[0]), &backends::backend<double>(set.list[1], copies[1]));
  check_getrf(devices_plan(Solver::gepp, "host,host:" + std::to_string(k), 16, 1), 120, 120);
}
