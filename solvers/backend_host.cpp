// The host backend: "the device" is a second team of CPU threads. Each queue is a worker thread
// that runs its tasks in order; the compute queue's BLAS calls are split over the team's threads
// (each calling single-threaded BLAS inside an OpenMP parallel region). Device memory is separate
// heap memory, so every copy is a real copy, as over a PCIe link.
#include "solvers/backend_host.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <exception>
#include <functional>
#include <limits>
#include <new>
#include <optional>
#include <thread>
#include <utility>
#include <vector>

#include "hetlu/detail/utf8.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/blas.hpp"
#include "solvers/blas_threads.hpp"
#include "solvers/butterfly.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/lu.hpp"
#include "solvers/variants.hpp"

namespace hetlu::backends {
namespace {

// One in-order queue served by its own thread.
class Worker {
 public:
  explicit Worker(int omp_threads) : thread_([this, omp_threads] { serve(omp_threads); }) {}
  ~Worker() {
    {
      std::lock_guard lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    thread_.join();
  }

  // Returns the task's ticket: it has run once completed() >= ticket.
  std::uint64_t push(std::function<void()> task) {
    std::lock_guard lock(mutex_);
    tasks_.push_back(std::move(task));
    wake_.notify_all();
    return ++enqueued_;
  }
  std::uint64_t enqueued() {
    std::lock_guard lock(mutex_);
    return enqueued_;
  }
  void wait_for(std::uint64_t ticket) {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return completed_ >= ticket; });
  }
  // The first exception a task threw since the last call, if any.
  std::exception_ptr take_failure() {
    std::lock_guard lock(mutex_);
    return std::exchange(failure_, nullptr);
  }

 private:
  void serve(int omp_threads) {
    omp_set_num_threads(kernels::within_openmp_team_limits(omp_threads));  // this thread's team: the device's cores
    kernels::keep_openmp_team_within_limits();
    kernels::work_under_callers_hold();  // every task's caller holds the BLAS (blas_threads.hpp)
    std::unique_lock lock(mutex_);
    for (;;) {
      wake_.wait(lock, [&] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;
      auto task = std::move(tasks_.front());
      tasks_.pop_front();
      lock.unlock();
      std::exception_ptr failed;
      try {
        task();
      } catch (...) {
        failed = std::current_exception();
      }
      lock.lock();
      if (failed && !failure_) failure_ = failed;
      ++completed_;
      done_.notify_all();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_, done_;
  std::deque<std::function<void()>> tasks_;
  std::uint64_t enqueued_ = 0, completed_ = 0;
  bool stopping_ = false;
  std::exception_ptr failure_;
  std::thread thread_;  // last: starts once the members above exist
};

struct HostEvent : Event {
  Worker* worker;
  std::uint64_t ticket;
  // record_timed: when the queue reached it (written by the worker before the ticket completes).
  std::shared_ptr<std::chrono::steady_clock::time_point> reached;
  HostEvent(Worker* w, std::uint64_t t) : worker(w), ticket(t) {}
};

// A worker's BLAS calls made outside a parallel region run on one thread while this lives. OpenBLAS's
// OpenMP build sizes such a call by omp_get_max_threads(), and its threaded complex kernels, called so
// from a worker while other threads of the process called OpenBLAS, returned wrong factors as
// success: 6 or 7 of 30 complex hybrid solves (d = 0, host backend of 3 threads) beside 5 threads of
// CPU-target dgesv, none with this, none without the other threads (a hostile test, 2026-11-28).
// Calls inside split_columns' region are one thread's each already.
class SingleThreadedBlas {
 public:
  SingleThreadedBlas() : saved_(omp_get_max_threads()) { omp_set_num_threads(1); }
  ~SingleThreadedBlas() { omp_set_num_threads(saved_); }
  SingleThreadedBlas(const SingleThreadedBlas&) = delete;
  SingleThreadedBlas& operator=(const SingleThreadedBlas&) = delete;

 private:
  int saved_;
};

// Splits [0, n) into `parts` contiguous column ranges and runs f(first, count) on each, in parallel.
template <class F>
void split_columns(int n, int parts, F&& f) {
  parts = std::max(1, std::min(parts, n));
  if (parts == 1) {
    const SingleThreadedBlas one_thread;
    return f(0, n);
  }
#pragma omp parallel for num_threads(parts) schedule(static, 1)
  for (int p = 0; p < parts; ++p) {
    const int first = static_cast<int>(static_cast<long long>(n) * p / parts);
    const int last = static_cast<int>(static_cast<long long>(n) * (p + 1) / parts);
    if (last > first) f(first, last - first);
  }
}

template <class T>
class HostBackend final : public Backend<T> {
 public:
  HostBackend(int threads, std::shared_ptr<std::atomic<std::size_t>> memory_in_use)
      : threads_(std::max(1, threads)), allocated_(std::move(memory_in_use)) {
    for (auto& w : workers_) w = std::make_unique<Worker>(threads_);
  }
  ~HostBackend() override = default;

  BackendKind kind() const override { return BackendKind::host; }
  int cpu_threads() const override { return threads_; }
  std::string device_name() const override {
    return "host backend (" + std::to_string(threads_) + " CPU thread" + (threads_ == 1 ? "" : "s") + ")";
  }

  DeviceMatrix<T> allocate(int rows, int cols) override {
    DeviceMatrix<T> m;
    m.rows = rows, m.cols = cols, m.ld = std::max(1, rows);
    const std::size_t count = static_cast<std::size_t>(m.ld) * std::max(1, cols);
    const std::size_t bytes = count * sizeof(T), limit = host_backend_memory_limit();
    auto out_of_memory = [&] {
      return DeviceOutOfMemory("host backend: out of memory allocating a " + std::to_string(rows) + " x " +
                               std::to_string(cols) + " matrix (" + detail::readable_bytes(double(bytes)) + ")");
    };
    // Claimed before it is taken, in one step: the team's precisions share the counter.
    std::size_t in_use = allocated_->load();
    do {
      if (bytes > limit || in_use > limit - bytes) throw out_of_memory();
    } while (!allocated_->compare_exchange_weak(in_use, in_use + bytes));
    try {
      auto allocated = allocated_;
      m.storage = std::shared_ptr<T>(new T[count], [allocated, bytes](T* p) {
        delete[] p;
        *allocated -= bytes;
      });
    } catch (const std::bad_alloc&) {
      *allocated_ -= bytes;
      throw out_of_memory();
    }
    return m;
  }
  std::shared_ptr<int> allocate_ints(int count) override {
    return std::shared_ptr<int>(new int[std::max(1, count)](), std::default_delete<int[]>());
  }
  void copy_ints_to_device(Queue q, int count, const int* host, int* device) override {
    worker(q).push([=] { std::copy(host, host + count, device); });
  }
  void copy_ints_to_host(Queue q, int count, const int* device, int* host) override {
    worker(q).push([=] { std::copy(device, device + count, host); });
  }

  void copy_to_device(Queue q, int rows, int cols, const T* host, int ldh, T* device, int ldd) override {
    worker(q).push([=] { kernels::copy_block(rows, cols, host, ldh, device, ldd); });
  }
  void copy_to_host(Queue q, int rows, int cols, const T* device, int ldd, T* host, int ldh) override {
    worker(q).push([=] { kernels::copy_block(rows, cols, device, ldd, host, ldh); });
  }

  void copy_on_device(Queue q, int rows, int cols, const T* from, int ldf, T* to, int ldt) override {
    worker(q).push([=] { kernels::copy_block(rows, cols, from, ldf, to, ldt); });
  }

  void gather_rows(Queue q, int count, int cols, const T* A, int lda, const int* rows, T* out, int ldo) override {
    worker(q).push([=] { kernels::gather_rows(count, cols, A, lda, rows, out, ldo); });
  }
  void scatter_rows(Queue q, int count, int cols, const T* in, int ldi, const int* rows, T* A, int lda) override {
    worker(q).push([=] { kernels::scatter_rows(count, cols, in, ldi, rows, A, lda); });
  }

  void round_from_wide(Queue q, int rows, int cols, const scalar::wide_t<T>* from, int ldf, T* to, int ldt) override {
    convert(q, rows, cols, from, ldf, to, ldt);
  }
  void widen_to_wide(Queue q, int rows, int cols, const T* from, int ldf, scalar::wide_t<T>* to, int ldt) override {
    convert(q, rows, cols, from, ldf, to, ldt);
  }

  // to <- from in To: narrowed as the host's rounding narrows (scalar::narrow_or_zero), or widened
  // exactly; a copy where the types agree.
  template <class From, class To>
  void convert(Queue q, int rows, int cols, const From* from, int ldf, To* to, int ldt) {
    if constexpr (std::is_same_v<From, To>) {
      copy_on_device(q, rows, cols, from, ldf, to, ldt);
    } else {
      const int team = threads_;
      worker(q).push([=] {
        split_columns(cols, team, [&](int c, int w) {
          for (int j = c; j < c + w; ++j) {
            const From* x = from + static_cast<long long>(j) * ldf;
            To* y = to + static_cast<long long>(j) * ldt;
            for (int i = 0; i < rows; ++i)
              if constexpr (sizeof(To) < sizeof(From))
                y[i] = scalar::narrow_or_zero<To>(x[i]);
              else
                y[i] = To(x[i]);
          }
        });
      });
    }
  }

  void laswp(Queue q, int cols, T* A, int lda, int k1, int k2, const int* pivots) override {
    if (cols <= 0 || k2 <= k1) return;
    const int team = threads_;
    worker(q).push([=] {
      std::vector<int> absolute(k2);  // kernels::laswp's form: row i's pivot at [i], whole-block rows
      for (int t = 0; t < k2 - k1; ++t) absolute[k1 + t] = k1 + pivots[t];
      split_columns(cols, team, [&](int c, int w) {
        kernels::laswp(w, A + static_cast<long long>(c) * lda, lda, k1, k2, absolute.data());
      });
    });
  }
  void trsm_lower_unit(Queue q, int m, int n, const T* L, int ldl, T* B, int ldb, Transpose trans) override {
    triangular_solve(q, blas::Uplo::lower, blas::Diag::unit, trans, m, n, L, ldl, B, ldb);
  }
  void trsm_upper(Queue q, int m, int n, const T* U, int ldu, T* B, int ldb, Transpose trans) override {
    triangular_solve(q, blas::Uplo::upper, blas::Diag::non_unit, trans, m, n, U, ldu, B, ldb);
  }
  void gemm_minus(Queue q, int m, int n, int k, const T* A, int lda, const T* B, int ldb, T* C, int ldc) override {
    const int team = threads_;
    worker(q).push([=] {
      split_columns(n, team, [&](int c, int w) {
        blas::gemm(blas::Op::no_trans, blas::Op::no_trans, m, w, k, T(-1), A, lda, B + static_cast<long long>(c) * ldb,
                   ldb, T(1), C + static_cast<long long>(c) * ldc, ldc);
      });
    });
  }
  void getrf_panel(Queue q, int rows, int cols, T* A, int lda, int* pivots, int* info, bool pivoting) override {
    worker(q).push([=] {
      const SingleThreadedBlas one_thread;  // the recursive kernel's BLAS: see SingleThreadedBlas
      *info = rows <= 0 || cols <= 0 ? 0
              : pivoting             ? kernels::getrf_recursive(rows, cols, A, lda, pivots)
                                     : kernels::getrf_nopivot_recursive(rows, cols, A, lda);
    });
  }
  void butterflies_two_sided(Queue q, int n, const T* u, const T* v, T* A, int lda) override {
    kernels::Butterfly<T> U{n, std::vector<T>(u, u + 2 * n)}, V{n, std::vector<T>(v, v + 2 * n)};
    worker(q).push([=, U = std::move(U), V = std::move(V)] {
      kernels::randomize_two_sided(U, V, n, A, lda, A, lda);  // zero lines were checked on the host
    });
  }

  void residual(Queue q, int n, int nrhs, const T* A, int lda, const T* X, int ldx, T* R, int ldr, T* W,
                int ldw) override {
    // The CPU's pass (row blocks over the worker's OpenMP team); B is R itself.
    worker(q).push([=] { accuracy::residual_and_backward_error(n, nrhs, A, lda, X, ldx, R, ldr, R, ldr, W, ldw); });
  }

  void gesv_batched(Queue q, int batch, int n, int nrhs, T* A, int lda, int stride_a, int* ipiv, T* B, int ldb,
                    int stride_b, int* info) override {
    // The CPUs' batch on the team's threads (the worker's OpenMP count). A batch of one runs in a
    // region of one thread, where OpenBLAS would size its calls by the team: see SingleThreadedBlas.
    worker(q).push([=] {
      std::optional<SingleThreadedBlas> one_thread;
      if (batch == 1) one_thread.emplace();
      solvers::gesv_batched(batch, n, nrhs, A, lda, stride_a, ipiv, n, B, ldb, stride_b, info, InputCheck::none);
    });
  }

  EventPtr record(Queue q) override { return std::make_shared<HostEvent>(&worker(q), worker(q).enqueued()); }
  EventPtr record_timed(Queue q) override {
    auto reached = std::make_shared<std::chrono::steady_clock::time_point>();
    const auto ticket = worker(q).push([reached] { *reached = std::chrono::steady_clock::now(); });
    auto e = std::make_shared<HostEvent>(&worker(q), ticket);
    e->reached = reached;
    return e;
  }
  double elapsed_seconds(const EventPtr& from, const EventPtr& to) override {
    auto a = std::dynamic_pointer_cast<HostEvent>(from), b = std::dynamic_pointer_cast<HostEvent>(to);
    if (!a || !b || !a->reached || !b->reached) throw Error("host backend: elapsed time between untimed events");
    host_wait(from), host_wait(to);
    return std::chrono::duration<double>(*b->reached - *a->reached).count();
  }
  void wait(Queue q, const EventPtr& event) override {
    auto e = std::dynamic_pointer_cast<HostEvent>(event);
    if (!e) throw Error("host backend: waiting on an event of another backend");
    if (e->worker == &worker(q)) return;  // a queue is in order with itself
    worker(q).push([e] { e->worker->wait_for(e->ticket); });
  }
  void host_wait(const EventPtr& event) override {
    auto e = std::dynamic_pointer_cast<HostEvent>(event);
    if (!e) throw Error("host backend: waiting on an event of another backend");
    e->worker->wait_for(e->ticket);
    rethrow_failure();  // what the tasks before it wrote is not there if one of them failed
  }
  void synchronize() override {
    for (auto& w : workers_) w->wait_for(w->enqueued());
    rethrow_failure();
  }

 protected:
  std::shared_ptr<void> allocate_pinned_bytes(std::size_t bytes) override {
    return std::shared_ptr<void>(::operator new(std::max<std::size_t>(1, bytes), std::align_val_t(64)),
                                 [](void* p) { ::operator delete(p, std::align_val_t(64)); });
  }

 private:
  Worker& worker(Queue q) { return *workers_[static_cast<int>(q)]; }

  // B <- T^-1 B, the columns of B split over the team.
  void triangular_solve(Queue q, blas::Uplo uplo, blas::Diag diag, Transpose trans, int m, int n, const T* Tri, int ldt,
                        T* B, int ldb) {
    const int team = threads_;
    const blas::Op op = blas::op_of(trans);
    worker(q).push([=] {
      split_columns(n, team, [&](int c, int w) {
        if (uplo == blas::Uplo::upper && diag == blas::Diag::non_unit)  // U: see variants::solve_upper
          variants::solve_upper(trans, m, w, Tri, ldt, B + static_cast<long long>(c) * ldb, ldb);
        else
          blas::trsm(blas::Side::left, uplo, op, diag, m, w, T(1), Tri, ldt, B + static_cast<long long>(c) * ldb, ldb);
      });
    });
  }
  void rethrow_failure() {
    for (auto& w : workers_)
      if (auto failure = w->take_failure()) std::rethrow_exception(failure);
  }

  int threads_;
  std::unique_ptr<Worker> workers_[queue_count];
  // Bytes of "device memory" in use by the team's backends of every precision; shared with the
  // deleters, which may outlive the backend.
  std::shared_ptr<std::atomic<std::size_t>> allocated_;
};

// A variable hetlu reads, parsed strictly: unset is `fallback`; anything but a whole decimal
// integer in [low, high] is an error naming the variable (never silently "unlimited" or a default).
long long integer_from_environment(const char* name, long long low, long long high, long long fallback) {
  const char* text = std::getenv(name);
  if (!text) return fallback;
  errno = 0;
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  const bool starts_as_a_number = std::isdigit(static_cast<unsigned char>(text[0])) || text[0] == '-';
  if (!starts_as_a_number || end == text || *end != '\0' || errno == ERANGE || value < low || value > high)
    throw InvalidArgument(std::string(name) + " = '" + detail::printable_value(text) + "' must be a whole number in [" +
                          std::to_string(low) + ", " + std::to_string(high) + "]");
  return value;
}

}  // namespace

std::size_t host_backend_memory_limit() {
  // Up to 2^40 MiB (an exbibyte): bytes = MiB << 20 stays within 64 bits.
  const long long mib = integer_from_environment("HETLU_HOST_BACKEND_MEMORY_MIB", 1, 1LL << 40, 0);
  return mib == 0 ? std::numeric_limits<std::size_t>::max() : static_cast<std::size_t>(mib) << 20;
}

int host_backend_threads() {
  // At most 1024: the team is OpenMP threads, and libgomp fails (or crashes) long before 100000.
  const int fallback = std::max(1, omp_get_max_threads() / 2);
  return static_cast<int>(integer_from_environment("HETLU_HOST_BACKEND_THREADS", 1, 1024, fallback));
}

template <class T>
std::unique_ptr<Backend<T>> make_host_backend(int threads, std::shared_ptr<std::atomic<std::size_t>> memory_in_use) {
  return std::make_unique<HostBackend<T>>(threads, std::move(memory_in_use));
}

using MemoryInUse = std::shared_ptr<std::atomic<std::size_t>>;
template std::unique_ptr<Backend<float>> make_host_backend<float>(int, MemoryInUse);
template std::unique_ptr<Backend<double>> make_host_backend<double>(int, MemoryInUse);
template std::unique_ptr<Backend<std::complex<double>>> make_host_backend<std::complex<double>>(int, MemoryInUse);
template std::unique_ptr<Backend<std::complex<float>>> make_host_backend<std::complex<float>>(int, MemoryInUse);

}  // namespace hetlu::backends
