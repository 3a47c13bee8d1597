// OpenBLAS's OpenMP build keeps one process-wide thread count, and whenever a call finds it unlike
// the calling thread's OpenMP count (after openblas_set_num_threads, or omp_set_num_threads in that
// thread) it changes it and frees the per-thread buffers past the new count, which another thread's
// threaded call may be using. A calibration's probes (one core, then all) beside solves in other
// threads of the same process gave those solves wrong factors with success (||PA - LU|| / (n ||A||
// eps) 3e11, a hostile test). hetlu's solves therefore hold the BLAS shared, and a change of its
// thread count holds it alone. Calls inside an active OpenMP region run the BLAS single-threaded
// and touch neither the count nor those buffers: they take nothing. Both are reentrant in a thread.
// Not covered: BLAS calls a program makes itself, outside hetlu (OpenBLAS's own rule: set the thread
// count only while no other thread is in the BLAS).
#pragma once

#include <optional>

#include "hetlu/types.hpp"

namespace hetlu::kernels {

// `threads`, at least 1 and at most what an OpenMP team started from here gets: OMP_THREAD_LIMIT's
// threads, and one where no further region can be active (OMP_MAX_ACTIVE_LEVELS reached: 0, or
// nested past it). OpenBLAS's OpenMP build starts a team of its thread count (the calling thread's
// OpenMP count) whose threads wait for one another: given fewer, they wait for ever
// (OMP_THREAD_LIMIT=1 hetlu bench -n 600 hung in dgemm_thread_nn, OpenBLAS's count being the
// cores'). Every count hetlu raises a thread's to goes through this.
int within_openmp_team_limits(int threads);

// The threads `asked` threads started from this thread run on: within within_openmp_team_limits
// and the CPUs of the process's affinity mask (threads past those share CPUs).
int threads_runnable_here(int asked);

// The threads a CPU solve called from this thread runs on: threads_runnable_here of its OpenMP count.
int openmp_threads_here();

// This thread's (or task's) OpenMP settings made safe for OpenBLAS's OpenMP build: its count
// brought within_openmp_team_limits, and dynamic team sizes off (OMP_DYNAMIC=true let libgomp give
// its team fewer threads than asked, by the load: a hang under taskset -c 0). A few reads where
// nothing changes. Every hetlu BLAS call outside an active region makes it (blas.cpp: a region of one
// thread, or one whose `if` is false, hands its nested count on; OMP_NUM_THREADS=2,4
// OMP_THREAD_LIMIT=3 hung hetlu probe), inside the holds, which put the caller's settings back.
void keep_openmp_team_within_limits();

// keep_openmp_team_within_limits while this lives (outside an active region), and the thread's
// count and dynamic setting put back after: the caller's program keeps its own (a review).
class SafeOpenMpTeam {
 public:
  SafeOpenMpTeam();
  ~SafeOpenMpTeam();
  SafeOpenMpTeam(const SafeOpenMpTeam&) = delete;
  SafeOpenMpTeam& operator=(const SafeOpenMpTeam&) = delete;

 private:
  bool active_;
  int saved_count_ = 0;
  bool saved_dynamic_ = false;
};

// hetlu's BLAS work on this thread, at the count the process has: waits while a change is under
// way (a probe's timing: seconds at most).
class SharedBlas {
 public:
  SharedBlas();
  ~SharedBlas();
  SharedBlas(const SharedBlas&) = delete;
  SharedBlas& operator=(const SharedBlas&) = delete;

 private:
  std::optional<SafeOpenMpTeam> team_;  // the outermost hold's
  bool held_;
};

// The BLAS at `threads` threads while this lives (openblas_set_num_threads, and this thread's
// OpenMP count), with no other hetlu BLAS work under way in the process; the count restored after.
// threads 0: the count left as it is, for work that sets its threads' OpenMP counts itself (the
// hybrid LU: its CPU team and the host backend's device threads).
class BlasThreadCount {
 public:
  explicit BlasThreadCount(int threads);
  ~BlasThreadCount();
  BlasThreadCount(const BlasThreadCount&) = delete;
  BlasThreadCount& operator=(const BlasThreadCount&) = delete;

 private:
  SafeOpenMpTeam team_;  // first: the caller's settings saved before any change, put back last
  int saved_blas_, saved_openmp_;
  bool held_;
};

// For a thread that works only for hetlu calls which hold the BLAS and wait for it (the host
// backend's device threads): its own calls take nothing, as the caller's would. A call that holds it
// alone and waits on such a thread that then waited for the hold would never end (a hybrid solve
// beside a batch on the same host device did: a review).
void work_under_callers_hold();

// The BLAS held for a plan's work: shared on the CPUs; alone on the hybrid target, whose CPU team
// and device threads set their own OpenMP counts, which their BLAS calls make the process's.
class BlasHold {
 public:
  explicit BlasHold(Target target) {
    if (target == Target::hybrid)
      alone_.emplace(0);
    else
      shared_.emplace();
  }
  explicit BlasHold(const Plan& plan) : BlasHold(plan.target) {}

 private:
  std::optional<SharedBlas> shared_;
  std::optional<BlasThreadCount> alone_;
};

}  // namespace hetlu::kernels
