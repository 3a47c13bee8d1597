#include "solvers/blas_threads.hpp"

#include <cblas.h>
#include <omp.h>
#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <thread>

#include "hetlu/detail/openmp_wait.hpp"

namespace hetlu::kernels {
namespace {

// A lock that readers take with two atomic operations (a solve of order 33 costs microseconds), and
// that takes turns: readers arriving while a writer holds it or waits step back and wait (glibc's
// rwlock prefers readers, and threads solving in a loop would keep a probe out for ever), and the
// next writer waits until those readers are in (a thread looping hybrid solves, each held alone,
// had kept two calibrations out for a minute: a review).
std::atomic<int> readers{0};
std::atomic<bool> writer{false};  // a change under way or waiting (one at a time: it is claimed)
std::atomic<int> waiting{0};      // readers that found a writer and wait for their turn

// What this thread holds (shared or alone), so that nested front ends and the work inside a change
// take nothing more: the count of scopes open.
thread_local int scopes = 0;

constexpr auto pause = std::chrono::microseconds(100);

// Whether this reader got in: sequentially consistent with the writer's store and load, so that
// one of the two sees the other.
bool try_shared() {
  readers.fetch_add(1);
  if (!writer.load()) return true;
  readers.fetch_sub(1);
  return false;
}

void lock_shared() {
  if (try_shared()) return;
  waiting.fetch_add(1);
  for (;;) {
    while (writer.load()) std::this_thread::sleep_for(pause);
    if (try_shared()) break;
  }
  waiting.fetch_sub(1);
}

void lock_alone() {
  for (;;) {
    while (waiting.load() != 0) std::this_thread::sleep_for(pause);  // the readers the last writer kept out first
    bool free = false;
    if (writer.compare_exchange_weak(free, true)) break;
    std::this_thread::sleep_for(pause);
  }
  while (readers.load() != 0) std::this_thread::sleep_for(pause);
}

void unlock_alone() {
  writer.store(false);
}

// A child of fork has only the forking thread: holds of the parent's other threads are gone with
// them (a child solving after a fork beside a hybrid solve waited for ever on the parent's hold).
const bool reset_in_children = [] {
  pthread_atfork(nullptr, nullptr, [] {
    readers.store(0);
    writer.store(false);
    waiting.store(0);
  });
  return true;
}();

}  // namespace

int within_openmp_team_limits(int threads) {
  if (omp_get_active_level() >= omp_get_max_active_levels()) return 1;  // every region here inactive
  return std::clamp(threads, 1, std::max(1, omp_get_thread_limit()));
}

int threads_runnable_here(int asked) {
  const int mask = detail::cpus_in_affinity_mask();
  return std::min(within_openmp_team_limits(asked), mask > 0 ? mask : INT_MAX);
}

int openmp_threads_here() {
  return threads_runnable_here(omp_get_max_threads());
}

void keep_openmp_team_within_limits() {
  const int count = omp_get_max_threads(), allowed = within_openmp_team_limits(count);
  if (count > allowed) omp_set_num_threads(allowed);
  if (omp_get_dynamic()) omp_set_dynamic(0);
}

void work_under_callers_hold() {
  ++scopes;  // for the thread's life: never below 1 again
}

SafeOpenMpTeam::SafeOpenMpTeam() : active_(!omp_in_parallel()) {
  if (!active_) return;
  saved_count_ = omp_get_max_threads(), saved_dynamic_ = omp_get_dynamic();
  keep_openmp_team_within_limits();
}

SafeOpenMpTeam::~SafeOpenMpTeam() {
  if (!active_) return;
  if (omp_get_max_threads() != saved_count_) omp_set_num_threads(saved_count_);
  if (bool(omp_get_dynamic()) != saved_dynamic_) omp_set_dynamic(saved_dynamic_);
}

SharedBlas::SharedBlas() : held_(scopes == 0 && !omp_in_parallel()) {
  if (scopes == 0) team_.emplace();
  if (held_) lock_shared();
  ++scopes;
}

SharedBlas::~SharedBlas() {
  --scopes;
  if (held_) readers.fetch_sub(1);
}

BlasThreadCount::BlasThreadCount(int threads) : held_(scopes == 0) {
  if (held_) lock_alone();
  saved_blas_ = openblas_get_num_threads();  // once alone: not another change's passing count
  saved_openmp_ = omp_get_max_threads();
  ++scopes;
  if (threads <= 0) return;
  threads = within_openmp_team_limits(threads);
  openblas_set_num_threads(threads);
  omp_set_num_threads(threads);
}

BlasThreadCount::~BlasThreadCount() {
  if (openblas_get_num_threads() != saved_blas_) openblas_set_num_threads(saved_blas_);
  if (omp_get_max_threads() != saved_openmp_) omp_set_num_threads(saved_openmp_);
  --scopes;
  if (held_) unlock_alone();
}

}  // namespace hetlu::kernels
