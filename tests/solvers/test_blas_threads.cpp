// The BLAS thread-count lock (solvers/blas_threads.hpp): a change of OpenBLAS's process-wide count
// waits for the solves under way and holds back new ones until it is undone.
#include <cblas.h>
#include <gtest/gtest.h>
#include <omp.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "solvers/blas_threads.hpp"

namespace hetlu::kernels {
namespace {

using namespace std::chrono_literals;

TEST(BlasThreads, AChangeWaitsForASolveUnderWayAndHoldsBackTheNext) {
  std::atomic<bool> changed{false};
  std::thread change;
  {
    const SharedBlas solving;
    change = std::thread([&] {
      const BlasThreadCount one(1);
      changed = true;
      EXPECT_EQ(openblas_get_num_threads(), 1);
      std::this_thread::sleep_for(100ms);
      changed = false;
    });
    std::this_thread::sleep_for(100ms);
    EXPECT_FALSE(changed.load()) << "the count changed while a solve held the BLAS";
  }
  while (!changed.load()) std::this_thread::sleep_for(1ms);
  {
    const SharedBlas next;  // waits until the change is undone
    EXPECT_FALSE(changed.load()) << "a solve began while the count was changed";
  }
  change.join();
}

TEST(BlasThreads, NestedHoldsInOneThreadTakeNothingMore) {
  const int before = openblas_get_num_threads();
  {
    const BlasThreadCount one(1);
    const SharedBlas inside_the_change;  // the work the change times: no deadlock
    const BlasHold hybrid(Target::hybrid);
    EXPECT_EQ(openblas_get_num_threads(), 1);
  }
  EXPECT_EQ(openblas_get_num_threads(), before);
  const SharedBlas solving;
  const SharedBlas nested;  // a front end inside another
  const BlasHold plan(Target::cpu);
}

TEST(BlasThreads, CallsInsideAnActiveRegionTakeNothing) {
  // OpenBLAS runs them single-threaded, touching neither the count nor its buffers: a change may
  // proceed beside them, and a team's threads never wait on one another's holds.
  std::atomic<int> entered{0};
#pragma omp parallel num_threads(2)
  {
    const SharedBlas in_team;
    ++entered;
  }
  EXPECT_GE(entered.load(), 1);
  std::thread change([] { const BlasThreadCount one(1); });
  change.join();
}

// Solves and changes take turns: a thread looping hybrid solves (each holding the BLAS alone) had kept
// other threads' solves out, two calibrations for a minute (a review). A liveness check, not a
// speed one: each of 100 solves waits for at most one change.
TEST(BlasThreads, SolvesAreNotKeptOutByChangesInALoop) {
  std::atomic<bool> stop{false}, started{false};
  std::thread changes([&] {
    while (!stop) {
      const BlasThreadCount alone(0);
      started = true;
      std::this_thread::sleep_for(1ms);
    }
  });
  while (!started) std::this_thread::sleep_for(1ms);
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  int solves = 0;
  for (; solves < 100 && std::chrono::steady_clock::now() < deadline; ++solves) {
    const SharedBlas solving;
    std::this_thread::sleep_for(200us);
  }
  stop = true;
  changes.join();
  EXPECT_EQ(solves, 100);
}

// A child of fork has only the forking thread: a hold of another thread of the parent is not the
// child's (a child's solve beside a parent's hybrid solve had waited for ever: a review).
TEST(BlasThreads, AChildOfForkIsNotHeldByItsParentsOtherThreads) {
  std::atomic<bool> holding{false}, release{false};
  std::thread holder([&] {
    const BlasThreadCount alone(0);
    holding = true;
    while (!release) std::this_thread::sleep_for(1ms);
  });
  while (!holding) std::this_thread::sleep_for(1ms);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    alarm(20);  // a hang ends the child by SIGALRM
    { const SharedBlas solving; }
    { const BlasThreadCount change(1); }
    _exit(0);
  }
  int status = 0;
  waitpid(child, &status, 0);
  release = true;
  holder.join();
  ASSERT_TRUE(WIFEXITED(status)) << "the child hung (signal " << WTERMSIG(status) << ")";
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

}  // namespace
}  // namespace hetlu::kernels
