// The narrow interface the hybrid algorithms are written against (DESIGN.md, "The backends"):
// device memory, asynchronous 2-D copies both ways, the BLAS-3 steps of a blocked LU and the
// butterflies of PRBT on ordered queues, and events between queues and with the host.
//
// Two implementations: `cuda` (cuBLAS and cuSOLVER on streams, pinned host memory, events) and
// `host` (a separate team of CPU threads with its own queues and memory; copies are real copies),
// so that every hybrid code path runs and is tested on machines without a GPU.
//
// Operations on one queue run in order; different queues run concurrently and are ordered only
// by events. Host pointers handed to an asynchronous copy must stay valid, and unmodified (or
// unread, for a copy to the host), until an event recorded after the copy has completed.
// Every failure (out of memory, a CUDA error) throws hetlu::Error with what failed.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "hetlu/detail/bytes.hpp"
#include "hetlu/types.hpp"
#include "solvers/scalar.hpp"

namespace hetlu::backends {

// compute: BLAS and kernels; to_device / to_host: copies, so that both directions overlap the
// compute queue (async-calu §3.3, "overlapping communications in both directions"); panel: the
// next panel's factorization with the panel on the device (d = 0), so that it overlaps the rest of
// the current step's update (look-ahead on the device).
enum class Queue { compute = 0, to_device = 1, to_host = 2, panel = 3 };
inline constexpr int queue_count = 4;

// A point in a queue's order; completes when everything enqueued before it has run.
class Event {
 public:
  virtual ~Event() = default;
};
using EventPtr = std::shared_ptr<Event>;

// A column-major rows x cols matrix in device memory, freed when the last copy goes.
template <class T>
struct DeviceMatrix {
  std::shared_ptr<T> storage;
  int rows = 0, cols = 0, ld = 1;
  T* data() const { return storage.get(); }
  T* at(int i, int j) const { return storage.get() + i + static_cast<long long>(j) * ld; }
};

template <class T>
class Backend {
 public:
  virtual ~Backend() = default;
  virtual BackendKind kind() const = 0;
  virtual std::string device_name() const = 0;
  // This machine's cores it computes on (the host backend's team), which the CPUs' side leaves to
  // it; 0 for a GPU.
  virtual int cpu_threads() const { return 0; }

  // Throws DeviceOutOfMemory naming the size when the device has not enough memory.
  virtual DeviceMatrix<T> allocate(int rows, int cols) = 0;

  // Page-locked host memory for `bytes` (cuda: cudaHostAlloc, recycled when it goes, so that a
  // plan's next solve allocates none; host: ordinary memory), from which copies run asynchronously:
  // the staging slots of solvers/staging.hpp. The caller's own arrays are never page-locked.
  std::shared_ptr<void> allocate_pinned(std::size_t bytes) {
    std::size_t seen = largest_pinned_.load();
    while (bytes > seen && !largest_pinned_.compare_exchange_weak(seen, bytes)) {
    }
    return allocate_pinned_bytes(bytes);
  }
  // The largest allocate_pinned since the last reset: nothing larger than a staging slot (a block
  // column) may be page-locked, which tests check on the host backend.
  std::size_t largest_pinned_bytes() const { return largest_pinned_.load(); }
  void reset_pinned_statistics() { largest_pinned_ = 0; }

  // Device memory for `count` ints (a factorization's pivots and panel infos), and copies of them;
  // asynchronous from and to allocate_pinned memory.
  virtual std::shared_ptr<int> allocate_ints(int count) = 0;
  virtual void copy_ints_to_device(Queue q, int count, const int* host, int* device) = 0;
  virtual void copy_ints_to_host(Queue q, int count, const int* device, int* host) = 0;

  // Asynchronous when the host memory comes from allocate_pinned; from other memory the copy may
  // complete (cuda: it does) before the call returns.
  virtual void copy_to_device(Queue q, int rows, int cols, const T* host, int ldh, T* device, int ldd) = 0;
  virtual void copy_to_host(Queue q, int rows, int cols, const T* device, int ldd, T* host, int ldh) = 0;

  // The interchanges of rows k1..k2 of a device block: row k1 + t with row k1 + pivots[t] - 1, for
  // t = 0 .. k2 - k1 - 1 in order. `pivots` are in device memory (allocate_ints), relative to k1 and
  // 1-based, as getrf_panel writes them; read when the queue runs the call.
  virtual void laswp(Queue q, int cols, T* A, int lda, int k1, int k2, const int* pivots) = 0;
  // A copy within device memory.
  virtual void copy_on_device(Queue q, int rows, int cols, const T* from, int ldf, T* to, int ldt) = 0;
  // out's row t <- A's row rows[t], t < count, in each of cols columns (gather), and back (scatter;
  // distinct rows); `rows` in device memory (allocate_ints), 0-based, read when the queue runs the
  // call. The rows a distributed step's interchanges touch cross the link in one copy each way, not
  // one per run of consecutive rows, each paying the link's latency (distributed/getrf_resident.cpp).
  virtual void gather_rows(Queue q, int count, int cols, const T* A, int lda, const int* rows, T* out, int ldo) = 0;
  virtual void scatter_rows(Queue q, int count, int cols, const T* in, int ldi, const int* rows, T* A, int lda) = 0;
  // to <- from rounded to T, within device memory: from holds the wider precision (double for float,
  // complex<double> for complex<float>; T itself for the double types, a copy). An entry outside T's
  // range becomes 0 (scalar::narrow_or_zero), as the host's rounding makes it. Mixed precision's A
  // goes up once, in double, and is rounded where it lands (mixed_device.hpp).
  virtual void round_from_wide(Queue q, int rows, int cols, const scalar::wide_t<T>* from, int ldf, T* to, int ldt) = 0;
  // to <- from widened, exactly: the converse of round_from_wide (T itself for the double types, a
  // copy). GMRES-based refinement on the device applies the single factors in double (mixed_device.hpp).
  virtual void widen_to_wide(Queue q, int rows, int cols, const T* from, int ldf, scalar::wide_t<T>* to, int ldt) = 0;

  // B <- L^-1 B, L unit lower triangular m x m (the block row of U; the first half of a solve);
  // trans = yes: B <- L^-T B (the second half of a transposed solve).
  virtual void trsm_lower_unit(Queue q, int m, int n, const T* L, int ldl, T* B, int ldb,
                               Transpose trans = Transpose::no) = 0;
  // B <- U^-1 B, U upper triangular m x m with its diagonal (the second half of a solve);
  // trans = yes: B <- U^-T B (the first half of a transposed solve, e.g. a condition estimate).
  virtual void trsm_upper(Queue q, int m, int n, const T* U, int ldu, T* B, int ldb,
                          Transpose trans = Transpose::no) = 0;
  // C <- C - A B (the trailing update).
  virtual void gemm_minus(Queue q, int m, int n, int k, const T* A, int lda, const T* B, int ldb, T* C, int ldc) = 0;
  // LU of the rows x cols device panel, with partial pivoting or none, queued like any other call
  // (no wait: the look-ahead goes on): its pivots (panel-relative, 1-based; untouched without
  // pivoting) go to `pivots` and its LAPACK info to *info, both in device memory (allocate_ints),
  // for laswp to read on the device and the caller to copy back when it needs them.
  virtual void getrf_panel(Queue q, int rows, int cols, T* A, int lda, int* pivots, int* info, bool pivoting) = 0;
  // PRBT's randomization A <- U^T A V of the n x n device matrix (n a multiple of 4); u and v are
  // the packed butterflies (2n values each, solvers/butterfly.hpp), read when the call is made.
  virtual void butterflies_two_sided(Queue q, int n, const T* u, const T* v, T* A, int lda) = 0;
  // Iterative refinement's residual, so that A and the factors never leave the device: for the
  // n x n A and n x nrhs X, R holds B on entry and B - A X on return, and W gets each row's share
  // of the componentwise backward error, |B - A X|_i / (|B| + |A| |X|)_i (row_omega.hpp). Sums and
  // shares in double, in an order that does not depend on timing.
  virtual void residual(Queue q, int n, int nrhs, const T* A, int lda, const T* X, int ldx, T* R, int ldr, T* W,
                        int ldw) = 0;
  // batch independent n x n systems in device memory, each solved as LAPACK's gesv solves it
  // (#14 item 5): system i's A at A + i * stride_a (leading dimension lda), its pivots (1-based) at
  // ipiv + i * n, its B at B + i * stride_b (ldb), its info at info[i], all in device memory. A
  // singular system's B (info > 0) is left undefined: the caller keeps its own copy.
  virtual void gesv_batched(Queue q, int batch, int n, int nrhs, T* A, int lda, int stride_a, int* ipiv, T* B, int ldb,
                            int stride_b, int* info) = 0;

  virtual EventPtr record(Queue q) = 0;
  // An event that also keeps when the queue reached it (cuda: a timing event; host: a timestamp),
  // and the seconds between two of them once both have completed: each device's busy time (#16).
  virtual EventPtr record_timed(Queue q) = 0;
  virtual double elapsed_seconds(const EventPtr& from, const EventPtr& to) = 0;
  virtual void wait(Queue q, const EventPtr& event) = 0;  // q runs nothing more until event completes
  virtual void host_wait(const EventPtr& event) = 0;
  virtual void synchronize() = 0;  // every queue drained; rethrows the first failure of any

 protected:
  virtual std::shared_ptr<void> allocate_pinned_bytes(std::size_t bytes) = 0;

 private:
  std::atomic<std::size_t> largest_pinned_{0};
};

// This process's backend for `device` (the `copy`-th of that kind and number in a device set: two
// "host:2" are two teams), made on first use. Throws Error when it cannot exist here (a build
// without CUDA, no GPU, a failed context, a CUDA ordinal other than 0). One hybrid solve at a time
// uses a device: hold its lock.
template <class T>
Backend<T>& backend(const Device& device, int copy = 0);
template <class T>
Backend<T>& backend(BackendKind kind);  // the default device of that kind
// The set with each host backend's team size written out (host -> host:K, K from
// host_backend_threads()): what the model prices. Keys and names keep the set as given.
DeviceSet with_team_sizes(DeviceSet devices);
// The threads of the set's host backend teams (with_team_sizes'), which run on this machine's cores.
int host_team_threads(const DeviceSet& devices);
// The threads a solve called from this thread runs its CPUs' work on: its OpenMP threads
// (kernels::openmp_threads_here), on the hybrid target less the host teams' (as hybrid_lu.hpp deals
// them), at least one. What the model prices a plan's CPUs on.
int cpu_threads_here(Target target, const DeviceSet& devices);
// Each device's copy number in the set (0 for the first of its kind and number, 1 for the next...).
std::vector<int> device_copies(const DeviceSet& devices);
// The locks of every device in the set, taken in one global order (no two solves deadlock).
std::vector<std::unique_lock<std::mutex>> lock_devices(const DeviceSet& devices);
std::vector<std::unique_lock<std::mutex>> lock_backend(BackendKind kind);

// The vendor's LU on the device, the reference hybrid runs are measured against: cuSOLVER getrf
// of the resident m x n matrix and getrs with nrhs right-hand sides, device time only (events),
// median of reps. Throws Error where there is no GPU.
// Also the copies a caller whose matrix is in host memory adds: A up and the factors back, from
// and to pageable memory (cudaMemcpy2D), as hetlu's own hybrid runs start and end there.
struct VendorLuTiming {
  std::string library;  // e.g. "cuSOLVER 12.0"
  double getrf_seconds = 0, getrs_seconds = 0;
  double upload_seconds = 0, download_seconds = 0;  // A (m x n) to the device, the factors back
};
VendorLuTiming time_vendor_lu(int m, int n, const double* A, int lda, int nrhs, int reps);
// cuSOLVER's double solve of A x = b with the factorization in `factored` precision (#15 item 5):
// double is cusolverDnDDgesv (getrf + getrs in double through the IRS interface), single
// cusolverDnDSgesv and tf32 cusolverDnDXgesv (its iterative refinement, the same solver as
// cusolverDnIRSXgesv with its default parameters: classical refinement, fallback to double).
// Median of reps after a warm-up; A and b go up from pageable memory and x comes back each run.
enum class VendorFactorPrecision { double_, single, tf32 };
struct VendorIrsTiming {
  std::string library;                              // e.g. "cuSOLVER 12000 DSgesv"
  double solve_seconds = 0;                         // device time, A and b resident
  double upload_seconds = 0, download_seconds = 0;  // A and b up, x back
  int iter = 0;           // the last run's: refinement steps, or < 0 where it fell back to double
  std::vector<double> x;  // the last run's answer
};
VendorIrsTiming time_vendor_irs(int n, const double* A, int lda, const double* b, int reps,
                                VendorFactorPrecision factored);
VendorLuTiming time_vendor_lu(int m, int n, const float* A, int lda, int nrhs, int reps);  // sgetrf, sgetrs

// Whether `kind` can run on this machine, and if not, why not.
bool available(BackendKind kind, std::string* why = nullptr);

// The backend a hybrid run takes when the caller names none: a GPU when there is one, else host.
BackendKind preferred();

// The host backend's team size: $HETLU_HOST_BACKEND_THREADS, else half the OpenMP threads.
int host_backend_threads();
// The host backend's "device memory": $HETLU_HOST_BACKEND_MEMORY_MIB (read at each allocation), so
// that running out of device memory can be tried without a device; else unlimited.
std::size_t host_backend_memory_limit();

}  // namespace hetlu::backends
