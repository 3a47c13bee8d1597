// hetlu called from several threads at once: the plan cache, the backends and the workspaces are
// shared by every caller in a process. Eight threads solve with every solver on the CPUs and on
// the hybrid target (host backend) at once, with the plan cache being cleared beside them; every
// answer must be as accurate as a solve alone.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "hetlu/hetlu.hpp"

using namespace hetlu;

namespace {

constexpr int thread_count = 8;

struct System {
  int n;
  std::vector<double> A, b;
};

System random_system(int n, unsigned seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  System s{n, std::vector<double>(static_cast<size_t>(n) * n), std::vector<double>(n)};
  for (auto& a : s.A) a = u(rng);
  for (int i = 0; i < n; ++i) s.A[i + static_cast<size_t>(i) * n] += n;  // well conditioned
  for (auto& x : s.b) x = u(rng);
  return s;
}

// max |A x - b| / (|A| |x| + |b|), the componentwise backward error of one right-hand side.
double omega(const System& s, const std::vector<double>& x) {
  double worst = 0;
  for (int i = 0; i < s.n; ++i) {
    double r = -s.b[i], scale = std::abs(s.b[i]);
    for (int j = 0; j < s.n; ++j) {
      r += s.A[i + static_cast<size_t>(j) * s.n] * x[j];
      scale += std::abs(s.A[i + static_cast<size_t>(j) * s.n] * x[j]);
    }
    worst = std::max(worst, std::abs(r) / scale);
  }
  return worst;
}

// Runs work(thread, round) on thread_count threads at once; returns the failures they reported.
template <class Work>
std::vector<std::string> on_threads(int rounds, Work work) {
  std::vector<std::string> failures;
  std::mutex lock;
  std::atomic<int> ready{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t)
    threads.emplace_back([&, t] {
      ++ready;
      while (ready < thread_count) std::this_thread::yield();  // start together
      for (int round = 0; round < rounds; ++round) {
        std::string failure;
        try {
          failure = work(t, round);
        } catch (const std::exception& e) {
          failure = std::string("threw: ") + e.what();
        }
        if (!failure.empty()) {
          std::lock_guard<std::mutex> guard(lock);
          failures.push_back("thread " + std::to_string(t) + " round " + std::to_string(round) + ": " + failure);
        }
      }
    });
  for (auto& thread : threads) thread.join();
  return failures;
}

Options options_for(Target target) {
  Options o;
  o.use_database = false;
  o.target = target;
  if (target == Target::hybrid) o.overrides.devices = BackendKind::host;
  return o;
}

}  // namespace

TEST(Threads, EverySolverOnBothTargetsFromEightThreadsAtOnce) {
  const Solver solvers[] = {Solver::gepp, Solver::calu, Solver::prbt};
  const Target targets[] = {Target::cpu, Target::hybrid};
  const auto failures = on_threads(6, [&](int t, int round) -> std::string {
    const Solver solver = solvers[(t + round) % 3];
    const Target target = targets[(t / 3 + round) % 2];
    const int n = 40 + 23 * ((t * 7 + round) % 9);  // odd and even sizes, one and several panels
    const System s = random_system(n, 100u * t + round);
    std::vector<double> A = s.A, x = s.b;
    std::vector<int> ipiv(n);
    const SolveReport r = gesv(solver, n, 1, A.data(), n, ipiv.data(), x.data(), n, options_for(target));
    const double w = omega(s, x);
    if (r.info != 0 || !(w <= accuracy_tolerance<double>(n)))
      return to_string(solver) + " " + to_string(target) + " n=" + std::to_string(n) + ": info " +
             std::to_string(r.info) + ", omega " + std::to_string(w);
    return "";
  });
  EXPECT_TRUE(failures.empty()) << failures.size() << " failures, first: " << failures.front();
}

TEST(Threads, CheckedSolvesFactorizationsAndPlanLookupsWhileTheCacheIsCleared) {
  std::atomic<bool> done{false};
  std::thread clearer([&] {
    while (!done) {
      clear_plan_cache();
      std::this_thread::yield();
    }
  });
  const auto failures = on_threads(8, [&](int t, int round) -> std::string {
    const int n = 30 + 17 * ((t + 3 * round) % 7);
    const System s = random_system(n, 7u * t + 1000u * round);
    const Target target = (t + round) % 2 ? Target::hybrid : Target::cpu;
    const Options o = options_for(target);
    const Resolution plan = resolve_plan(Solver::calu, Precision::double_, n, n, o);
    if (plan.plan.nb < 1) return "resolve_plan gave nb " + std::to_string(plan.plan.nb);
    if (round % 2) {  // solve_checked, auto: escalation and omega on every thread
      std::vector<double> x = s.b;
      const SolveReport r = solve_checked(std::nullopt, n, 1, s.A.data(), n, x.data(), n, o);
      if (!r.accurate || omega(s, x) > accuracy_tolerance<double>(n)) return "solve_checked not accurate";
      return "";
    }
    std::vector<double> LU = s.A, x = s.b;  // getrf then getrs, as a LAPACK user does
    std::vector<int> ipiv(n);
    if (getrf(Solver::gepp, n, n, LU.data(), n, ipiv.data(), o).info != 0) return "getrf info";
    getrs(Transpose::no, n, 1, LU.data(), n, ipiv.data(), x.data(), n, o);
    return omega(s, x) <= accuracy_tolerance<double>(n) ? "" : "getrs omega " + std::to_string(omega(s, x));
  });
  done = true;
  clearer.join();
  EXPECT_TRUE(failures.empty()) << failures.size() << " failures, first: " << failures.front();
}
