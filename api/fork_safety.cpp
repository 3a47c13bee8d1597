// Forking after OpenMP ran a team. GNU OpenMP keeps the idle threads of the last team a thread led,
// and a child of fork() inherits that list but not the threads: its first parallel region waited
// forever for them. Python's multiprocessing forks by default on Linux, so a Pool's worker hung in
// its first solve once the parent had solved anything, or had called NumPy's OpenBLAS (the OpenMP
// build), with hetlu loaded. Before each fork the forking thread's idle team is released
// (omp_pause_resource_all, OpenMP 5.0); the parent starts it again at its next parallel region, one
// thread start per thread (microseconds), and the child starts its own. Inside a parallel region
// the call is not allowed, and nothing is done there.
//
// Only under GNU OpenMP: LLVM's and Intel's runtimes reset themselves in the child, and their own
// prepare handler holds the lock that omp_get_level takes on a thread they have not seen (a deadlock
// in fork()); which runtime serves the omp_ calls is asked of the dynamic linker.
#include <dlfcn.h>
#include <omp.h>
#include <pthread.h>

#include <cstring>

namespace {

void release_idle_openmp_threads() {
  if (omp_get_level() == 0) omp_pause_resource_all(omp_pause_soft);
}

bool gnu_openmp_serves_this_library() {
  Dl_info where{};
  return dladdr(reinterpret_cast<void*>(&omp_pause_resource_all), &where) != 0 && where.dli_fname != nullptr &&
         std::strstr(where.dli_fname, "libgomp") != nullptr;
}

// Registered when libhetlu.so is loaded (the drop-in and the Python module load it), so that a fork
// after any OpenMP user's team is covered, not only after hetlu's own. glibc removes the handler
// when the library is unloaded.
struct ReleaseIdleThreadsBeforeFork {
  ReleaseIdleThreadsBeforeFork() {
    if (gnu_openmp_serves_this_library()) pthread_atfork(release_idle_openmp_threads, nullptr, nullptr);
  }
};
const ReleaseIdleThreadsBeforeFork release_idle_threads_before_fork;

}  // namespace
