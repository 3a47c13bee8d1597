// A child of fork() solves after its parent ran OpenMP teams and hybrid solves: GNU OpenMP's idle
// team, inherited without its threads, made the child's first parallel region wait forever (Python's
// multiprocessing Pool, fork start method; api/fork_safety.cpp), and so did the host backend's
// worker thread, the parent's (solvers/backend.cpp).
#include <gtest/gtest.h>
#include <omp.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <thread>
#include <vector>

#include "hetlu/hetlu.hpp"

using namespace hetlu;

namespace {

// Solves a random system of order n with `solver` and `options`; whether x solves it to a
// componentwise backward error below 1e-13.
bool solves(Solver solver, int n, Options options) {
  std::vector<double> A(static_cast<size_t>(n) * n), B(n, 1.0);
  unsigned state = 12345;
  for (double& a : A) a = (state = state * 1103515245u + 12345u) / 4294967296.0 - 0.5;
  const std::vector<double> A0 = A;
  std::vector<int> ipiv(n);
  options.use_database = false;
  options.overrides.nb = 64;
  if (gesv(solver, n, 1, A.data(), n, ipiv.data(), B.data(), n, options).info != 0) return false;
  double worst = 0;
  for (int i = 0; i < n; ++i) {
    double r = 1, scale = 1;
    for (int j = 0; j < n; ++j) {
      const double t = A0[i + static_cast<size_t>(j) * n] * B[j];
      r -= t, scale += std::abs(t);
    }
    worst = std::max(worst, std::abs(r) / scale);
  }
  return worst < 1e-13;
}

// CALU with a TSLU panel of two threads: a team of its own, led by this thread.
bool solves_with_a_team_of_two(int n) {
  Options options;
  options.overrides.panel_threads = 2;
  return solves(Solver::calu, n, options);
}

// GEPP on the hybrid target, the host backend taking block columns (its worker thread busy).
bool solves_on_the_host_backend(int n) {
  Options options;
  options.target = Target::hybrid;
  options.overrides.devices = from_string<DeviceSet>("host");
  options.overrides.cpu_block_columns = 1;
  return solves(Solver::gepp, n, options);
}

// Waits up to a minute for the child; kills it and fails where it hung.
void expect_child_succeeds(pid_t child, const char* what) {
  int status = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (waitpid(child, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(child, SIGKILL);
      waitpid(child, &status, 0);
      ADD_FAILURE() << what << ": the child hung";
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(WIFEXITED(status)) << what << ": the child ended by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 0) << what;
}

TEST(Fork, AChildSolvesAfterItsParentRanOpenMpTeams) {
  int members = 0;
#pragma omp parallel num_threads(2) reduction(+ : members)
  members += 1;
  ASSERT_TRUE(solves_with_a_team_of_two(300));  // the parent's idle team: this thread led it
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    int child_members = 0;
#pragma omp parallel num_threads(2) reduction(+ : child_members)
    child_members += 1;
    _exit(child_members == 2 && solves_with_a_team_of_two(300) ? 0 : 1);
  }
  expect_child_succeeds(child, "a team of two and CALU in the child");
  EXPECT_TRUE(solves_with_a_team_of_two(200));  // the parent's team starts again
}

// A child's hybrid solve waited on the parent's worker forever (its own backends are made anew), and a
// child's exit joined it (the parent's are given up, not destroyed).
TEST(Fork, AChildMakesItsOwnBackends) {
  ASSERT_TRUE(solves_on_the_host_backend(400));
  pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) _exit(solves_on_the_host_backend(400) ? 0 : 1);
  expect_child_succeeds(child, "a hybrid solve in the child");
  child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) std::exit(0);  // exit handlers: the backends' teardown
  expect_child_succeeds(child, "the child's exit");
  EXPECT_TRUE(solves_on_the_host_backend(300));  // the parent's backends still serve it
}

}  // namespace
