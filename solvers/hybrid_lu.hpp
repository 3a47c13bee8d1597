// The hybrid blocked LU that GEPP, CALU and PRBT's GENP share: CPUs and one or several devices
// (any Backend) work on one factorization. The variants differ only in how the CPUs factor a panel.
//
// Panel on the CPUs, d >= 1 block columns on the CPUs (async-calu §3, Algorithm 2; with d = 1 and
// one device it is MAGMA's hybrid GEPP with look-ahead, async-calu Algorithm 1):
//   - the CPUs own a window of d block columns [K, K + d); the block columns right of it are dealt
//     to the devices (detail::deal_block_columns: in proportion to plan.device_shares, or equally)
//     and are resident in their memory;
//   - step K: the CPUs factor panel K and send it to every device that still owns a block column;
//     each applies its row interchanges, block row of U and trailing GEMM to its own columns. The
//     owner of block column K + d updates that one first and sends it back to the CPUs (the window
//     moves right by one block column) while it updates the rest; the CPUs meanwhile update their
//     window with panel K, column K + 1 first, and factor panel K + 1 (look-ahead);
//   - a device drops out once it has sent back its last block column (one dealt none is idle).
// Every block column passes through the CPUs' window, so the factors end on the host; the row
// interchanges left of each panel are applied there at the end. One device is the list of one: it
// owns every block column right of the window, as MAGMA's and async-calu's single device does.
//
// Each device's memory holds only what it needs (#16): two panel slots (panel K + 1 goes up while
// panel K is still read) and its own block columns, packed in order, so that the ones it still
// owns at any step are contiguous and each step is one laswp, TRSM and GEMM per device. A device
// of several that cannot hold its share throws DeviceOutOfMemory naming it.
//
// Several devices with d = 0: each device factors the panels of its own block columns and the CPUs
// pass them on (owner_panels, heterogeneous-column-block §3).
//
// Panel on the device (d = 0, one device): the whole matrix stays on the device; the device
// factors each panel (Backend::getrf_panel) and updates the rest; the factors come back at the end.
// This is the plan for a device so much faster than the CPUs that a CPU panel would stall it. PRBT
// on one device (resident matrix, factors left there) holds the whole matrix on it too.
//
// The host backend is a device made of this machine's cores. The cores are partitioned, never
// shared: each host backend's team has its threads, the CPUs' side the rest (at least one), and the
// CPUs' side runs its BLAS on exactly its share for the whole factorization (CpuThreads). Sharing
// them instead (the CPUs' BLAS on every core beside the team) ran three threads on two cores and
// measured slower at every d than the CPUs alone, a contention no model term prices; with a
// partition the host backend behaves as a separate, slower device, and the model
// (model::with_host_backend) prices the two shares as what they are.
//
// Transfers (#17): the caller's matrix is never page-locked. Every copy goes through a few pinned
// staging slots of one block column each (solvers/staging.hpp), allocated once per plan (the cuda
// backend recycles them); the device's columns go up a slot at a time, packing one while the last
// is copied. Each panel's pivots go up from pinned memory with the panel, and the device applies
// them from device memory. With the panel on the device, its pivots and infos stay there until the
// end: no step waits for the device to read them, so the device's queue never drains.
//
// A caller that solves on the device (PRBT, one device) asks for the factors to stay there
// (leave_factors_on_device): each finished block column then goes up whole, its U rows included,
// the last d at the end, and with d = 0 nothing comes back.
//
// Busy and idle time (heterogeneous-column-block §4's average idle ratio): each device's compute
// queue is timed from when a step's panel has arrived to when its update is done (timed events),
// and, where a device factors panels on its panel queue (several devices, d = 0), each panel, the
// overlaps counted once; the CPUs are idle while the look-ahead waits for a block column and while they wait for the
// devices at the end. balance() reports it after run().
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "hetlu/detail/deal_columns.hpp"
#include "hetlu/detail/env_choice.hpp"
#include "hetlu/detail/staging_slot.hpp"
#include "hetlu/detail/statistics.hpp"
#include "hetlu/detail/stopwatch.hpp"
#include "solvers/backend.hpp"
#include "solvers/blas_threads.hpp"
#include "solvers/blocked_lu.hpp"
#include "solvers/checks.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/kernel_timer.hpp"
#include "solvers/lu.hpp"
#include "solvers/scalar.hpp"
#include "solvers/staging.hpp"

namespace hetlu::variants {

// The calling thread's OpenMP thread count set to `threads` while this lives, then restored:
// OpenBLAS's OpenMP build sizes each call made outside a parallel region by omp_get_max_threads().
class CpuThreads {
 public:
  explicit CpuThreads(int threads) : saved_(omp_get_max_threads()) {
    omp_set_num_threads(kernels::within_openmp_team_limits(threads));
  }
  ~CpuThreads() { omp_set_num_threads(saved_); }
  CpuThreads(const CpuThreads&) = delete;
  CpuThreads& operator=(const CpuThreads&) = delete;

 private:
  int saved_;
};

// One device of a hybrid run: its backend, the block columns dealt to it and where they live in its
// memory, its copy of the pivots, its staging slots and its timed steps.
template <class T>
struct DeviceWork {
  backends::Backend<T>* dev = nullptr;
  std::vector<int> blocks;    // the block columns dealt to it, ascending
  std::size_t returned = 0;   // blocks[0 .. returned) have gone back to the CPUs (d = 0: are left of the panel)
  bool whole_matrix = false;  // memory holds the m x n matrix at its own columns (one device)
  backends::DeviceMatrix<T> mem;
  std::vector<int> local;  // compact layout: each block column's first column in mem, -1 if not its own
  std::shared_ptr<int> pivots, staged_pivots;  // k pivots, then one info per panel
  int pivots_sent = 0;                         // panels [0, pivots_sent) have their pivots on the device
  std::vector<char> factored_here;             // several devices, d = 0: the panels this device factored
  backends::Staging<T>* staging = nullptr;
  std::unique_ptr<backends::Staging<T>> own_staging;
  backends::EventPtr slot_read[2];  // compact: the last step that read each panel slot
  std::vector<std::pair<backends::EventPtr, backends::EventPtr>> busy;  // timed steps on its compute queue

  bool owns_more() const { return returned < blocks.size(); }
};

// PanelFactor: as for BlockedLu, int(int rows, int width, T* A, int lda, int* ipiv); a panel
// without pivoting writes the identity. `pivoting` tells the device panel (Backend::getrf_panel).
template <class T, class PanelFactor>
class HybridLu {
 public:
  // devices: one or several (each once); shares: their shares of the block columns right of the
  // CPUs' d (empty: equal). resident: the matrix is already in the one device's memory (m x n), its
  // host copy A_ is only a workspace (PRBT randomizes on the device); otherwise A_ holds it.
  // staging: the caller's slots for the one device (at least m rows), else the run makes its own of
  // one block column per device.
  HybridLu(std::vector<backends::Backend<T>*> devices, const Matrix<T>& A, int nb, int cpu_block_columns, int* ipiv,
           bool pivoting, PanelFactor panel, std::vector<double> shares = {},
           const backends::DeviceMatrix<T>* resident = nullptr, backends::Staging<T>* staging = nullptr)
      : A_(A),
        nb_(std::max(1, nb)),
        d_(std::max(0, cpu_block_columns)),
        ipiv_(ipiv),
        pivoting_(pivoting),
        panel_(panel),
        shares_(std::move(shares)),
        resident_(resident != nullptr) {
    if (devices.empty()) throw InvalidArgument("hybrid LU: no device");
    const bool several = devices.size() > 1;
    if (several && (resident || staging))
      throw InvalidArgument("hybrid LU: a resident matrix or the caller's staging needs a single device");
    work_.resize(devices.size());
    for (std::size_t i = 0; i < devices.size(); ++i) work_[i].dev = devices[i];
    if (resident) work_[0].mem = *resident;
    work_[0].staging = staging;
    k_ = std::min(A_.m, A_.n);
    blocks_ = (A_.n + nb_ - 1) / nb_;
    panels_ = (k_ + nb_ - 1) / nb_;
  }
  HybridLu(backends::Backend<T>& device, const Matrix<T>& A, int nb, int cpu_block_columns, int* ipiv, bool pivoting,
           PanelFactor panel, const backends::DeviceMatrix<T>* resident = nullptr,
           backends::Staging<T>* staging = nullptr)
      : HybridLu(std::vector<backends::Backend<T>*>{&device}, A, nb, cpu_block_columns, ipiv, pivoting, panel, {},
                 resident, staging) {}

  // The caller solves on the (one) device: when run() returns, device_factors() holds the complete
  // factors (rows interchanged as on the host); with d = 0 they do not come back to the host.
  // Square matrices only.
  HybridLu& leave_factors_on_device() {
    if (A_.m != A_.n) throw InvalidArgument("hybrid LU: factors stay on the device for square matrices only");
    if (work_.size() > 1) throw InvalidArgument("hybrid LU: factors stay on a device only with a single device");
    keep_on_device_ = true;
    return *this;
  }
  const backends::DeviceMatrix<T>& device_factors() const { return work_[0].mem; }

  // The one device's columns put in place by the caller rather than packed from the host's A, with
  // the panel on the device (d = 0): put(c0, cols, device, ldd) queues columns [c0, c0 + cols) into
  // `device` (the device's copy of column c0) on the device's to_device queue, or on another queue
  // that it waits for there; it may throw. Mixed precision takes A up in double and rounds it there
  // (mixed_device.hpp); the host's A_ is then not read at all (its data may be null).
  using ColumnSource = std::function<void(int c0, int cols, T* device, int ldd)>;
  HybridLu& upload_from(ColumnSource put) {
    if (work_.size() > 1 || d_ > 0 || resident_)
      throw InvalidArgument("hybrid LU: a column source needs one device with the panel on it (d = 0)");
    source_ = std::move(put);
    return *this;
  }

  // run() first checks that every entry of the host's A is finite (checks::finite's error where one
  // is not), or, where the one device takes A up beside the steps (d = 0), as each block column is
  // packed for its upload; nothing reaches the caller's A before every column has passed. Not for a
  // resident matrix, whose host A is only a workspace: its callers check what they upload.
  HybridLu& check_input(InputCheck check) {
    check_ = check;
    return *this;
  }

  int run() {
    if (k_ == 0) return 0;
    detail::Stopwatch clock;
    try {
      deal();
      if (check_ == InputCheck::finite && !checks_while_uploading()) checks::finite("A", A_.m, A_.n, A_.data, A_.lda);
      for (std::size_t i = 0; i < work_.size(); ++i) prepare(i);
      // The host's own share of a call, beside the device-timed phases (d = 0): on the H100 0.03 to
      // 0.11 s a call lay outside upload, factorization and download (2026-11-26).
      setup_seconds_ = clock.seconds();
      const int info = d_ > 0 ? cpu_panels() : single() ? device_panels() : owner_panels();
      record_balance(clock.lap());
      return info;
    } catch (...) {
      // Nothing may still run on device memory or on the caller's A once this returns.
      for (auto& w : work_) try {
          w.dev->synchronize();
        } catch (...) {
        }
      throw;
    }
  }

  // After run(): the wall-clock time and each processor's busy time, the CPUs first.
  const LoadBalance& balance() const { return balance_; }

 private:
  using Queue = backends::Queue;

  int col(int block) const { return std::min(A_.n, block * nb_); }
  int width(int block) const { return col(block + 1) - col(block); }
  int panel_width(int K) const { return std::min(nb_, k_ - K * nb_); }

  // ---- setting up -------------------------------------------------------------------------------

  // Block columns [d, blocks) to the devices; the device holds the whole matrix where only one can.
  void deal() {
    const int d = std::min(d_, blocks_);
    owner_.assign(blocks_, -1);
    const auto dealt = detail::deal_block_columns(shares_, static_cast<int>(work_.size()), blocks_ - d);
    for (int J = d; J < blocks_; ++J) {
      owner_[J] = dealt[J - d];
      work_[owner_[J]].blocks.push_back(J);
    }
    // d = 0 and the deal gives one device every block column (a GPU far faster than a host backend
    // beside it): that device runs as the only one, in front, the others idle. The owner path would
    // pass each of its panels through the host for nobody (cuda,host:8 at 16384 with host:8 dealt
    // nothing: 0.425 s against 0.284 for the H100 alone, 2026-11-26).
    if (d_ == 0 && work_.size() > 1) {
      std::size_t owners = 0, sole = 0;
      for (std::size_t i = 0; i < work_.size(); ++i)
        if (!work_[i].blocks.empty()) ++owners, sole = i;
      if (owners == 1) {
        std::swap(work_[0], work_[sole]);
        for (int& o : owner_) o = 0;
        alone_ = true;
        swapped_with_ = sole;
      }
    }
    work_[0].whole_matrix = single() && (resident_ || keep_on_device_ || d_ == 0);
  }
  // One device runs the factorization: the only one, or the one the deal gave everything (d = 0).
  bool single() const { return work_.size() == 1 || alone_; }
  // device_panels takes A up from the host: check_input's test rides on the packing.
  bool checks_while_uploading() const { return d_ == 0 && single() && !resident_; }

  // Memory, pivots and staging for device i; its columns go up, resident from then on.
  void prepare(std::size_t i) {
    auto& w = work_[i];
    auto& dev = *w.dev;
    if (w.blocks.empty() && !w.whole_matrix) return;  // dealt nothing: idle, holds nothing
    try {
      if (w.whole_matrix) {
        if (!resident_) w.mem = dev.allocate(A_.m, A_.n);
      } else {
        w.local.assign(blocks_, -1);
        int next = 2 * nb_;  // after the two panel slots
        for (int J : w.blocks) w.local[J] = next, next += width(J);
        w.mem = dev.allocate(A_.m, next);
      }
    } catch (const DeviceOutOfMemory& e) {
      if (work_.size() == 1) throw;
      // Numbered as the plan lists it (deal() may have brought a sole owner to the front).
      const std::size_t listed = i == 0 ? swapped_with_ : i == swapped_with_ ? 0 : i;
      throw DeviceOutOfMemory("device " + std::to_string(listed + 1) + " of " + std::to_string(work_.size()) + " (" +
                              dev.device_name() + "), dealt " + std::to_string(w.blocks.size()) +
                              " block columns: " + e.what());
    }
    if (!w.staging) {
      w.own_staging = std::make_unique<backends::Staging<T>>(
          dev, A_.m, detail::staging_slot_columns(A_.m, A_.n, nb_, d_ > 0 || !single(), sizeof(T)));
      w.staging = w.own_staging.get();
    }
    w.pivots = dev.allocate_ints(k_ + panels_);
    w.staged_pivots = std::static_pointer_cast<int>(dev.allocate_pinned(sizeof(int) * (k_ + panels_)));
    w.factored_here.assign(panels_, 0);
    if ((d_ == 0 && single()) || resident_) return;  // device_panels uploads; a resident matrix is there
    // Runs of consecutive block columns go up in one staged copy each.
    for (std::size_t a = 0; a < w.blocks.size();) {
      std::size_t b = a + 1;
      while (b < w.blocks.size() && w.blocks[b] == w.blocks[b - 1] + 1) ++b;
      const int c0 = col(w.blocks[a]), c1 = col(w.blocks[b - 1] + 1);
      w.staging->to_device(Queue::to_device, A_.m, c1 - c0, A_.at(0, c0), A_.lda, column(w, c0), w.mem.ld);
      a = b;
    }
    dev.wait(Queue::compute, dev.record(Queue::to_device));
  }

  // Device memory of global column c on device w (one of its own, or any with the whole matrix).
  T* column(DeviceWork<T>& w, int c) const {
    if (w.whole_matrix) return w.mem.at(0, c);
    const int J = c / nb_;
    return w.mem.at(0, w.local[J] + (c - col(J)));
  }
  // Row j of panel K's first column on device w: its own place, or its slot (two, alternating).
  T* panel_on(DeviceWork<T>& w, int K) const {
    const int j = K * nb_;
    if (w.whole_matrix) return w.mem.at(j, j);
    if (!w.factored_here.empty() && w.factored_here[K]) return column(w, j) + j;  // its own block column
    return w.mem.at(j, (K % 2) * nb_);
  }

  // ---- the CPUs' side ---------------------------------------------------------------------------

  int factor_host_panel(int K) { return factor_panel(A_, ipiv_, K * nb_, panel_width(K), panel_); }

  // Panel K's interchanges, block row of U and trailing GEMM applied to host columns [c0, c1).
  void update_host(int K, int c0, int c1) { update_columns(A_, ipiv_, K * nb_, panel_width(K), c0, c1 - c0); }

  // The same on device w's own block columns blocks[first .. last) (contiguous in its memory), or
  // with the whole matrix on it, on global columns [first, last); on the compute queue.
  void update_device(DeviceWork<T>& w, int K, int c0, int c1) {
    if (c1 <= c0) return;
    auto& dev = *w.dev;
    const int j = K * nb_, jb = panel_width(K), cols = c1 - c0, ld = w.mem.ld;
    T* C = column(w, c0);
    const T* L = panel_on(w, K);
    if (pivoting_)
      timed("interchanges", Queue::compute,
            [&] { dev.laswp(Queue::compute, cols, C, ld, j, j + jb, w.pivots.get() + j); });
    timed("TRSM", Queue::compute, [&] { dev.trsm_lower_unit(Queue::compute, jb, cols, L, ld, C + j, ld); });
    if (A_.m - j - jb > 0)
      timed("GEMM", Queue::compute,
            [&] { dev.gemm_minus(Queue::compute, A_.m - j - jb, cols, jb, L + jb, ld, C + j, ld, C + j + jb, ld); });
  }
  // Queues `work` on q, between timed events when HETLU_TIME_KERNELS asked for them (kernel_timer.hpp).
  template <typename F>
  void timed(const char* what, Queue q, F&& work) {
    if (kernel_timer_)
      kernel_timer_->time(what, q, std::forward<F>(work));
    else
      work();
  }
  // Device w's own block columns blocks[first .. end()) (each a run in its memory), updated.
  void update_own(DeviceWork<T>& w, int K, std::size_t first) {
    if (first >= w.blocks.size()) return;
    update_device(w, K, col(w.blocks[first]), col(w.blocks[first]) + own_width(w, first));
  }
  // Columns of blocks[first .. end()), which lie side by side in the device's memory.
  int own_width(const DeviceWork<T>& w, std::size_t first) const {
    int cols = 0;
    for (std::size_t b = first; b < w.blocks.size(); ++b) cols += width(w.blocks[b]);
    return cols;
  }

  // Block column J back to the CPUs from its owner, behind everything queued on its compute queue.
  void download_block(int J) {
    auto& w = work_[owner_[J]];
    w.dev->wait(Queue::to_host, w.dev->record(Queue::compute));
    arrived_[J] =
        w.staging->to_host(Queue::to_host, A_.m, width(J), column(w, col(J)), w.mem.ld, A_.at(0, col(J)), A_.lda);
  }

  // Block column J in the CPUs' hands (unpacked from its staging slot); thread-safe.
  void wait_arrival(int J) {
    if (J < blocks_ && owner_[J] >= 0) work_[owner_[J]].staging->finish(arrived_[J]);
  }

  // The pivots of the CPUs' panels up to `last`, not sent yet, to device w (relative to each panel,
  // as the device's laswp reads them), from pinned memory on the to_device queue.
  // Panels the device factored itself (several devices, d = 0) have theirs there already.
  void send_pivots(DeviceWork<T>& w, int last) {
    if (!pivoting_ || last < w.pivots_sent) return;
    int* staged = w.staged_pivots.get();
    for (int K = w.pivots_sent; K <= last;) {
      if (w.factored_here[K]) {
        ++K;
        continue;
      }
      int end_panel = K;  // a run of panels it did not factor, in one copy
      while (end_panel + 1 <= last && !w.factored_here[end_panel + 1]) ++end_panel;
      const int first = K * nb_, end = std::min(k_, (end_panel + 1) * nb_);
      for (int i = first; i < end; ++i) staged[i] = ipiv_[i] - i / nb_ * nb_;
      w.dev->copy_ints_to_device(Queue::to_device, end - first, staged + first, w.pivots.get() + first);
      K = end_panel + 1;
    }
    w.pivots_sent = last + 1;
  }

  // Step K on device w: panel K up, its update of the device's own block columns, block column K + d
  // first and back to the CPUs when it is the device's.
  void device_step(DeviceWork<T>& w, int K, int d) {
    auto& dev = *w.dev;
    const int j = K * nb_, jb = panel_width(K);
    const int top = keep_on_device_ ? 0 : j;  // the device's copy of U rows is stale otherwise
    if (!w.whole_matrix && w.slot_read[K % 2]) dev.wait(Queue::to_device, w.slot_read[K % 2]);
    T* slot = w.whole_matrix ? w.mem.at(top, j) : w.mem.at(top, (K % 2) * nb_);
    w.staging->to_device(Queue::to_device, A_.m - top, jb, A_.at(top, j), A_.lda, slot, w.mem.ld);
    send_pivots(w, K);
    dev.wait(Queue::compute, dev.record(Queue::to_device));
    auto started = dev.record_timed(Queue::compute);
    const int leaving = K + d;
    if (w.blocks[w.returned] == leaving) {
      update_device(w, K, col(leaving), col(leaving + 1));
      download_block(leaving);  // the window moves right by one block column
      ++w.returned;
    }
    update_own(w, K, w.returned);
    w.busy.emplace_back(std::move(started), dev.record_timed(Queue::compute));
    if (!w.whole_matrix) w.slot_read[K % 2] = dev.record(Queue::compute);
  }

  int cpu_panels() {
    const int d = std::min(d_, blocks_);
    arrived_.assign(blocks_, 0);
    if (resident_) {  // the CPUs' first d block columns come from the device
      auto& w = work_[0];
      w.dev->wait(Queue::to_host, w.dev->record(Queue::compute));
      w.staging->finish(w.staging->to_host(Queue::to_host, A_.m, col(d), w.mem.data(), w.mem.ld, A_.data, A_.lda));
    }
    // Host backends' teams run on this machine's cores too: the CPUs' side keeps the rest.
    int teams = 0;
    for (const auto& w : work_)
      if (w.dev->kind() == BackendKind::host && (!w.blocks.empty() || w.whole_matrix)) teams += w.dev->cpu_threads();
    const int cpu_threads = std::max(1, omp_get_max_threads() - teams);
    // One thread left: its BLAS runs single-threaded for the whole factorization. With more, the
    // CPUs' BLAS calls run inside their parallel region (single-threaded per thread) but for a few
    // (the first panel, the last update), which keep the process's count: OpenBLAS's OpenMP build
    // holds one count for the process and frees per-thread buffers when a call changes it, which a
    // concurrent solve in another thread may be using. A count of one never changes it.
    std::optional<CpuThreads> cpu_share;
    if (cpu_threads == 1) cpu_share.emplace(1);
    int info = factor_host_panel(0);
    for (int K = 0; K < panels_; ++K) {
      // The owner of block column K + d goes first: the CPUs wait for what it sends back.
      if (K + d < blocks_) device_step(work_[owner_[K + d]], K, d);
      for (auto& w : work_)
        if (w.owns_more() && (K + d >= blocks_ || &w != &work_[owner_[K + d]])) device_step(w, K, d);
      // The CPUs' window: block columns K + 1 .. K + d - 1 (K + d, if it came back, is updated).
      const int next = K + 1;
      const bool factor_next = next < panels_;
      const int window_end = std::min(K + d, blocks_);
      const int first_other = factor_next ? next + 1 : next;
      std::atomic<int> claim{first_other};
      int next_info = 0;
      std::exception_ptr failure;  // an exception may not leave an OpenMP region
      auto guarded = [&](auto&& work) {
        try {
          work();
        } catch (...) {
#pragma omp critical(hetlu_hybrid_failure)
          if (!failure) failure = std::current_exception();
        }
      };
      auto lookahead = [&] {
        detail::Stopwatch waited;
        wait_arrival(next);
        cpu_idle_ += waited.lap();
        if (next < window_end) update_host(K, col(next), col(next + 1));
        next_info = factor_host_panel(next);
      };
      auto others = [&] {
        for (int J = claim++; J < window_end; J = claim++) {
          wait_arrival(J);
          update_host(K, col(J), col(J + 1));
        }
      };
      if (cpu_threads == 1 || window_end - first_other <= 0) {
        if (factor_next) lookahead();
        others();
      } else {
#pragma omp parallel num_threads(cpu_threads)
        {
          if (omp_get_thread_num() == 0 && factor_next) guarded(lookahead);
          guarded(others);
        }
        if (failure) std::rethrow_exception(failure);
      }
      if (info == 0) info = next_info;
    }
    // A wide matrix: the last panel's block column may be wider than the panel.
    const int last = panels_ - 1;
    update_host(last, k_, std::min(A_.n, col(last + 1)));
    // Block columns that never reached the window (wide matrices) come back updated.
    for (int J = std::max(d, last + d + 1); J < blocks_; ++J) download_block(J);
    if (keep_on_device_) send_last_block_columns(d);
    finish_on_host();
    return info;
  }

  // Every device done and every download unpacked (the wait is the CPUs' idle time), then the
  // interchanges left of each panel on the host.
  void finish_on_host() {
    detail::Stopwatch waited;
    for (auto& w : work_) w.dev->synchronize();
    for (auto& w : work_)
      if (w.staging) w.staging->finish_all();
    cpu_idle_ += waited.lap();
    swap_left_columns(A_, k_, nb_, ipiv_);
  }

  // The block columns that were still in the CPUs' window at the end (square: the last d) go to
  // the one device, and the device applies each panel's interchanges left of it, as
  // swap_left_columns does on the host.
  void send_last_block_columns(int d) {
    auto& w = work_[0];
    auto& dev = *w.dev;
    const int c = col(std::max(0, blocks_ - d));
    w.staging->to_device(Queue::to_device, A_.m, A_.n - c, A_.at(0, c), A_.lda, w.mem.at(0, c), w.mem.ld);
    send_pivots(w, panels_ - 1);
    dev.wait(Queue::compute, dev.record(Queue::to_device));
    if (pivoting_)
      for (int K = 1; K < panels_; ++K)
        dev.laswp(Queue::compute, K * nb_, w.mem.data(), w.mem.ld, K * nb_, K * nb_ + panel_width(K),
                  w.pivots.get() + K * nb_);
  }

  // ---- several devices, d = 0: the owner of each block column factors its panel ------------------

  // heterogeneous-column-block §3 as its seed describes it: every block column is dealt to a device
  // and stays there; the owner of block column K factors panel K where it lies (Backend::getrf_panel)
  // and sends the block column and its pivots to the host, which passes the panel to every other
  // device that still owns a block column right of it; each updates its own. Look-ahead: the owner
  // of block column K + 1 takes panel K first, updates that block column, factors panel K + 1 and
  // sends it before its other updates. With a GPU much faster than the CPUs this keeps its panels on
  // the GPU (with the CPUs' panel, cuda,host:8 ran 5.8x slower than the H100 alone, 2026-11-26). The
  // CPUs only pass panels: the balance lists the devices alone.
  int owner_panels() {
    arrived_.assign(blocks_, 0);
    panel_back_.assign(panels_, nullptr);
    panel_factored_.assign(panels_, nullptr);
    // The host's own copies (copy_block) keep to the cores the host backends' teams leave it.
    int teams = 0;
    for (const auto& w : work_)
      if (w.dev->kind() == BackendKind::host && !w.blocks.empty()) teams += w.dev->cpu_threads();
    CpuThreads host_share(std::max(1, omp_get_max_threads() - teams));
    int info = 0;
    auto& first = work_[owner_[0]];
    auto started = first.dev->record_timed(Queue::compute);
    factor_and_send(0);
    first.busy.emplace_back(std::move(started), first.dev->record_timed(Queue::compute));
    for (int K = 0; K < panels_; ++K) {
      const int found = receive_panel(K);
      if (info == 0) info = found;
      const int next = K + 1 < panels_ ? owner_[K + 1] : -1;
      if (next >= 0) owner_step(work_[next], K, true);
      for (int i = 0; i < static_cast<int>(work_.size()); ++i)
        if (i != next) owner_step(work_[i], K, false);
    }
    for (int J = panels_; J < blocks_; ++J) download_block(J);  // a wide matrix's block columns right of the last panel
    finish_on_host();
    return info;
  }

  // Panel K on its owner, in its queues: factored where it lies (the rest of its block column too,
  // for a wide matrix's last), then the block column (final but for later panels' interchanges,
  // applied on the host at the end) and the panel's pivots and info to the host.
  // On the panel queue, after what the compute queue has done to the block column so far: a GPU
  // factors it beside the rest of the step's update (device_panels' look-ahead); the owner's next
  // step waits for it (owner_step).
  void factor_and_send(int K) {
    auto& w = work_[owner_[K]];
    auto& dev = *w.dev;
    const int j = K * nb_, jb = panel_width(K);
    dev.wait(Queue::panel, dev.record(Queue::compute));
    auto began = dev.record_timed(Queue::panel);
    dev.getrf_panel(Queue::panel, A_.m - j, jb, column(w, j) + j, w.mem.ld, w.pivots.get() + j, w.pivots.get() + k_ + K,
                    pivoting_);
    panel_factored_[K] = dev.record_timed(Queue::panel);
    w.busy.emplace_back(std::move(began), panel_factored_[K]);  // beside the compute queue's steps
    w.factored_here[K] = 1;
    if (col(K + 1) > j + jb) {  // a wide matrix's last block column: the rest of it, with this panel
      dev.wait(Queue::compute, panel_factored_[K]);
      update_device(w, K, j + jb, col(K + 1));
    }
    // The pivots first, behind the panel alone: the host waits for them alone where no other device
    // needs the panel. The block column follows behind the compute queue too (download_block).
    dev.wait(Queue::to_host, panel_factored_[K]);
    dev.copy_ints_to_host(Queue::to_host, jb, w.pivots.get() + j, w.staged_pivots.get() + j);
    dev.copy_ints_to_host(Queue::to_host, 1, w.pivots.get() + k_ + K, w.staged_pivots.get() + k_ + K);
    panel_back_[K] = dev.record(Queue::to_host);
    download_block(K);
  }

  // Whether a device other than block column K's owner owns a block column right of it.
  bool others_need_panel(int K) const {
    for (std::size_t i = 0; i < work_.size(); ++i)
      if (static_cast<int>(i) != owner_[K] && !work_[i].blocks.empty() && work_[i].blocks.back() > K) return true;
    return false;
  }

  // Panel K's pivots in the host's ipiv, and the panel in its A where another device needs it
  // (otherwise its block column is unpacked later, the slots recycled or at the end); returns its
  // LAPACK info (whole-matrix).
  int receive_panel(int K) {
    auto& w = work_[owner_[K]];
    detail::Stopwatch waited;
    w.dev->host_wait(panel_back_[K]);
    if (others_need_panel(K)) wait_arrival(K);
    cpu_idle_ += waited.lap();
    const int j = K * nb_, jb = panel_width(K);
    const int* got = w.staged_pivots.get();
    const int panel_info = got[k_ + K];
    if (panel_info < 0)
      throw Error("hybrid LU: " + w.dev->device_name() + "'s getrf rejected argument " + std::to_string(-panel_info));
    for (int i = j; i < j + jb; ++i) ipiv_[i] = j + (pivoting_ ? got[i] : i - j + 1);
    return panel_info > 0 ? panel_info + j : 0;
  }

  // Step K on device w: panel K up (unless w factored it), then its update of w's block columns right
  // of it; with factor_next (w owns block column K + 1), that one first and panel K + 1 factored.
  void owner_step(DeviceWork<T>& w, int K, bool factor_next) {
    while (w.owns_more() && w.blocks[w.returned] <= K) ++w.returned;  // final once their panel is factored
    if (!w.owns_more()) return;
    auto& dev = *w.dev;
    const int j = K * nb_, jb = panel_width(K);
    const bool own_panel = w.factored_here[K] != 0;
    if (own_panel) {
      dev.wait(Queue::compute, panel_factored_[K]);
    } else {
      if (w.slot_read[K % 2]) dev.wait(Queue::to_device, w.slot_read[K % 2]);
      w.staging->to_device(Queue::to_device, A_.m - j, jb, A_.at(j, j), A_.lda, w.mem.at(j, (K % 2) * nb_), w.mem.ld);
      send_pivots(w, K);
      dev.wait(Queue::compute, dev.record(Queue::to_device));
    }
    auto started = dev.record_timed(Queue::compute);
    std::size_t first = w.returned;
    if (factor_next) {
      update_device(w, K, col(K + 1), col(K + 2));
      factor_and_send(K + 1);
      ++first;
    }
    update_own(w, K, first);
    w.busy.emplace_back(std::move(started), dev.record_timed(Queue::compute));
    if (!own_panel) w.slot_read[K % 2] = dev.record(Queue::compute);
  }

  // ---- everything on the (one) device -----------------------------------------------------------

  // Look-ahead on the device: step K updates block column K + 1 first, then panel K + 1 is
  // factored on the panel queue while the compute queue updates the rest with panel K; step K + 1
  // waits for it. Without it each panel (cuSOLVER's getrf of a tall panel costs about 5 us per column
  // whatever its height, 2.4 ms a step at n = 32768 on an H100) stalled the device between updates.
  // The factors come back in two parts: the rows of block column K down to its panel's last row
  // are final once step K is done (later interchanges move only rows below), so they go to the host
  // during the factorization, a step later; the rows below (L, which later panels' interchanges
  // still move) come back at the end: 0.114 s of a 0.960 s factorization at n = 32768 on an H100
  // (2026-11-27). With HETLU_L_STRIPS=1 (l_strips_requested) row block K of L left of panel K, final
  // once step K has swapped it, also goes down a step later, a strip of jb rows, and only L below the
  // panels' last strip sent comes back at the end. Not yet the default: no GPU has timed it, and the
  // model prices the default (device_run.sh's strips stage times both in one call). The early
  // downloads have slots of their own, a block column (or a strip) each and early_download_slots of
  // each: the host, which queues the steps and unpacks the downloads, waits for a free slot only
  // behind the download of that many steps before, so the device always has steps queued (with the
  // two bulk slots it waited for the device to go idle at every step).
  // The upload runs beside the first steps instead of before them (it took 0.164 s of 1.13 at
  // n = 32768 on the H100, 2026-11-26): block columns go up in order, upload_ahead a step, and the
  // device waits for each batch a step after it left; each step updates only the block columns
  // already up, and a batch that arrives later first catches up with the panels factored before it,
  // left-looking (their interchanges, a TRSM with their L and one GEMM: the same flops, and wide
  // ones). Its phase spans the first copy to the last, the steps between included.
  static constexpr int early_download_slots = 3;
  // HETLU_L_STRIPS=1 (read at each factorization; default unset: off): L by row blocks during the
  // steps, above.
  static bool l_strips_requested() {
    return detail::env_choice("HETLU_L_STRIPS", {"0", "1"}, "0") == "1";
  }
  static constexpr int upload_ahead = detail::upload_ahead_block_columns;
  static_assert(upload_ahead >= 2, "step 0 updates block column 1, which must be up before it");
  int device_panels() {
    auto& w = work_[0];
    auto& dev = *w.dev;
    backends::EventPtr upload_began, upload_ended;
    int caught = resident_ ? blocks_ : 0;  // block columns [0, caught) are up and have `applied` panels
    int uploaded = caught;                 // [caught, uploaded) are going up (`in_flight`)
    int applied = 0;                       // panels whose updates the columns up have (or have queued)
    backends::EventPtr in_flight;
    auto upload_through = [&](int last) {  // block columns up to `last` on their way up
      last = std::min(last, blocks_ - 1);
      if (uploaded > last) return;
      if (!upload_began) upload_began = dev.record_timed(Queue::to_device);
      const int c0 = col(uploaded), c1 = col(last + 1);
      const typename backends::Staging<T>::ColumnVisitor finite = [](int, const T* x, int rows) {
        return scalar::all_finite(x, rows);
      };
      if (source_) {
        source_(c0, c1 - c0, w.mem.at(0, c0), w.mem.ld);
      } else if (!w.staging->to_device(Queue::to_device, A_.m, c1 - c0, A_.at(0, c0), A_.lda, w.mem.at(0, c0), w.mem.ld,
                                       check_ == InputCheck::finite ? finite : nullptr)) {
        checks::finite("A", A_.m, c1, A_.data, A_.lda);  // names the first entry that is not finite, and throws
        throw InvalidArgument("A changed while it was read: an entry is not finite");
      }
      in_flight = upload_ended = dev.record_timed(Queue::to_device);
      uploaded = last + 1;
    };
    auto catch_up_in_flight = [&] {  // the device waits for them only here, a step after they left
      if (uploaded == caught) return;
      dev.wait(Queue::compute, in_flight);
      timed("catching up the columns just up", Queue::compute,
            [&] { catch_up(w, applied, col(caught), col(uploaded)); });
      caught = uploaded;
    };
    upload_through(upload_ahead - 1);  // the first panel's block columns
    catch_up_in_flight();
    upload_through(2 * upload_ahead - 1);  // beside the first panel and step 0
    const bool download = !keep_on_device_;
    std::optional<backends::Staging<T>> early, strips;
    if (download && panels_ > 1) {
      early.emplace(dev, A_.m, std::min(nb_, A_.n), early_download_slots, /*downloads_only=*/true);
      if (l_strips_requested()) strips.emplace(dev, nb_, k_, early_download_slots, /*downloads_only=*/true);
    }
    int* pivots = w.pivots.get();
    int* infos = pivots + k_;
    // Block columns [0, downloaded_early) are on their way down to their panel's last row (with
    // strips, row blocks [0, downloaded_early) of L left of their panel too). With the input checked
    // on the upload, none goes before the last column has passed (A stays as it was
    // where the check fails); those held back then go two a step, oldest first, so that the host,
    // waiting for a free slot, stays a step and a half ahead of the device (the rest at the end).
    int downloaded_early = 0;
    auto download_early = [&](int through) {  // block columns up to `through`, their steps queued
      if (!early || (check_ == InputCheck::finite && uploaded < blocks_) || downloaded_early > through) return;
      dev.wait(Queue::to_host, dev.record(Queue::compute));
      for (int sent = 0; sent < 2 && downloaded_early <= through; ++sent, ++downloaded_early) {
        download_rows(w, *early, downloaded_early, 0, downloaded_early * nb_ + panel_width(downloaded_early));
        if (strips) download_strip(w, *strips, downloaded_early);
      }
    };
    if (KernelTimer<T>::wanted()) kernel_timer_.emplace(dev);
    auto started = dev.record_timed(Queue::compute);
    timed("panels", Queue::compute, [&] {
      dev.getrf_panel(Queue::compute, A_.m, panel_width(0), w.mem.data(), w.mem.ld, pivots, infos, pivoting_);
    });
    backends::EventPtr panel_factored;  // of panel K, on the panel queue (K >= 1)
    for (int K = 0; K < panels_; ++K) {
      const int j = K * nb_, jb = panel_width(K);
      if (panel_factored) dev.wait(Queue::compute, panel_factored);
      download_early(K - 1);  // block column K - 1 down to panel K - 1's last row (and any held back)
      if (pivoting_ && j > 0)
        timed("interchanges", Queue::compute,
              [&] { dev.laswp(Queue::compute, j, w.mem.data(), w.mem.ld, j, j + jb, pivots + j); });
      const int up = col(caught);  // this step updates the columns up (K + 1 among them); later ones catch up
      if (K + 1 < panels_) {
        const int next = K + 1, top = next * nb_;
        update_device(w, K, j + jb, std::min(up, col(next + 1)));
        dev.wait(Queue::panel, dev.record(Queue::compute));
        timed("panels", Queue::panel, [&] {
          dev.getrf_panel(Queue::panel, A_.m - top, panel_width(next), w.mem.at(top, top), w.mem.ld, pivots + top,
                          infos + next, pivoting_);
        });
        panel_factored = dev.record(Queue::panel);
        update_device(w, K, col(next + 1), up);
      } else {
        update_device(w, K, j + jb, up);
      }
      applied = K + 1;
      // The block columns that went up beside this step catch up with panels 0 .. K behind its
      // updates (K + 2 among them, for step K + 1), and the next ones start up.
      catch_up_in_flight();
      upload_through((K + 3) * upload_ahead - 1);
    }
    catch_up_in_flight();
    upload_through(blocks_ - 1);  // a wide matrix's last block columns, if still on the host
    catch_up_in_flight();
    w.busy.emplace_back(started, dev.record_timed(Queue::compute));
    const auto factored = w.busy.back().second;
    // The pivots and infos come back once, behind the last panel's update, not a step at a time.
    dev.copy_ints_to_host(Queue::compute, k_ + panels_, pivots, w.staged_pivots.get());
    backends::EventPtr download_began;
    if (download) {
      dev.wait(Queue::to_host, factored);
      download_began = dev.record_timed(Queue::to_host);
      // What is left: the block columns held back, the last panel's down to its last row, each
      // panel's block column below its panel (L; with strips, from the first row block not sent),
      // and those right of the last panel (a wide matrix) whole.
      for (int J = downloaded_early; J + 1 < panels_; ++J) download_rows(w, *w.staging, J, 0, J * nb_ + panel_width(J));
      download_rows(w, *w.staging, panels_ - 1, 0, k_);
      const int strips_end = strips ? downloaded_early * nb_ : 0;
      for (int K = 0; K < panels_; ++K)
        download_rows(w, *w.staging, K, std::max(K * nb_ + panel_width(K), strips_end), A_.m);
      for (int J = panels_; J < blocks_; ++J) download_rows(w, *w.staging, J, 0, A_.m);
    }
    const auto download_ended = download ? dev.record_timed(Queue::to_host) : nullptr;
    detail::Stopwatch waited;
    dev.synchronize();
    const double device_done = waited.seconds();
    w.staging->finish_all();
    if (early) early->finish_all();
    if (strips) strips->finish_all();
    const double unpacked = waited.seconds() - device_done;
    cpu_idle_ += waited.lap();
    phases_.clear();
    phases_.emplace_back("host: memory and slots before the first copy", setup_seconds_);
    if (upload_began)
      phases_.emplace_back("upload, beside the first steps", dev.elapsed_seconds(upload_began, upload_ended));
    phases_.emplace_back("factorization", dev.elapsed_seconds(started, factored));
    if (download) phases_.emplace_back("download after it", dev.elapsed_seconds(download_began, download_ended));
    phases_.emplace_back("host: unpacking the last slots", unpacked);
    if (kernel_timer_) {
      for (auto& sum : kernel_timer_->sums()) phases_.push_back(std::move(sum));
      kernel_timer_.reset();
    }
    return pivots_and_info_from_device();
  }

  // Columns [c0, c1) of device w (the whole matrix on it), just up, brought level with the first
  // `panels` panels on the compute queue (left-looking): their row interchanges in order, U's rows
  // by a TRSM with their unit lower triangle, and the rows below by one GEMM with their L.
  void catch_up(DeviceWork<T>& w, int panels, int c0, int c1) {
    if (panels <= 0 || c1 <= c0) return;
    auto& dev = *w.dev;
    const int cols = c1 - c0, ld = w.mem.ld, top = std::min(k_, panels * nb_);
    T* C = w.mem.at(0, c0);
    if (pivoting_)
      for (int K = 0; K < panels; ++K)
        dev.laswp(Queue::compute, cols, C, ld, K * nb_, K * nb_ + panel_width(K), w.pivots.get() + K * nb_);
    dev.trsm_lower_unit(Queue::compute, top, cols, w.mem.data(), ld, C, ld);
    if (A_.m > top) dev.gemm_minus(Queue::compute, A_.m - top, cols, top, w.mem.at(top, 0), ld, C, ld, C + top, ld);
  }

  // Rows [r0, r1) of block column J from device w (the whole matrix on it) to the host through
  // `staging`, on the to_host queue (the caller orders it behind the compute that wrote them);
  // unpacked by the staging's finish.
  void download_rows(DeviceWork<T>& w, backends::Staging<T>& staging, int J, int r0, int r1) {
    if (r1 <= r0 || width(J) <= 0) return;
    staging.to_host(Queue::to_host, r1 - r0, width(J), w.mem.at(r0, col(J)), w.mem.ld, A_.at(r0, col(J)), A_.lda);
  }
  // Row block J of L, left of panel J (one slot of the strips' staging: nb rows by k columns).
  void download_strip(DeviceWork<T>& w, backends::Staging<T>& staging, int J) {
    const int top = J * nb_, rows = panel_width(J);
    if (top <= 0 || rows <= 0) return;
    staging.to_host(Queue::to_host, rows, top, w.mem.at(top, 0), w.mem.ld, A_.at(top, 0), A_.lda);
  }

  // LAPACK's info (the first zero pivot) and ipiv (whole-matrix rows) from the device's panels.
  int pivots_and_info_from_device() {
    const int* got = work_[0].staged_pivots.get();
    int info = 0;
    for (int K = 0; K < panels_; ++K) {
      const int j = K * nb_, jb = panel_width(K), panel_info = got[k_ + K];
      if (panel_info < 0) throw Error("hybrid LU: the device's getrf rejected argument " + std::to_string(-panel_info));
      if (info == 0 && panel_info > 0) info = panel_info + j;
      for (int i = j; i < j + jb; ++i) ipiv_[i] = j + (pivoting_ ? got[i] : i - j + 1);
    }
    return info;
  }

  // ---- busy and idle ----------------------------------------------------------------------------

  void record_balance(double seconds) {
    balance_ = {};
    balance_.seconds = seconds;
    balance_.phases = phases_;
    if (d_ > 0 || single())  // several devices with d = 0: the CPUs only pass panels on
      balance_.processors.push_back({"CPUs", std::min(d_, blocks_), std::max(0.0, seconds - cpu_idle_)});
    for (auto& w : work_) {
      // Offsets from its first timed step: its panel queue's steps overlap its compute queue's.
      std::vector<std::pair<double, double>> steps;
      if (!w.busy.empty())
        for (const auto& [from, to] : w.busy)
          steps.emplace_back(w.dev->elapsed_seconds(w.busy.front().first, from),
                             w.dev->elapsed_seconds(w.busy.front().first, to));
      const double busy = detail::covered_length(std::move(steps));
      balance_.processors.push_back({w.dev->device_name(), static_cast<int>(w.whole_matrix ? blocks_ : w.blocks.size()),
                                     std::min(busy, seconds)});
    }
    // The devices in the plan's order.
    const std::size_t first = balance_.processors.size() - work_.size();
    if (swapped_with_ > 0) std::swap(balance_.processors[first], balance_.processors[first + swapped_with_]);
  }

  Matrix<T> A_;
  int nb_, d_;
  int* ipiv_;
  bool pivoting_;
  PanelFactor panel_;
  std::vector<double> shares_;
  double setup_seconds_ = 0;  // run(): deal and prepare, on the host
  bool resident_;
  bool keep_on_device_ = false;
  ColumnSource source_;  // upload_from: the device's columns come from it, not from A_
  InputCheck check_ = InputCheck::none;
  bool alone_ = false;            // d = 0: the deal gave work_[0] every block column (deal())
  std::size_t swapped_with_ = 0;  // ... and it came to the front from there
  int k_ = 0, blocks_ = 0, panels_ = 0;
  std::vector<int> owner_;                          // per block column: its device, -1 for the CPUs' first d
  std::vector<std::uint64_t> arrived_;              // per block column: its download's ticket (its owner's staging)
  std::vector<backends::EventPtr> panel_back_;      // several devices, d = 0: each panel's pivots on the host
  std::vector<backends::EventPtr> panel_factored_;  // and each panel factored on its owner's panel queue
  double cpu_idle_ = 0;
  std::vector<std::pair<std::string, double>> phases_;  // d = 0: LoadBalance::phases
  std::optional<KernelTimer<T>> kernel_timer_;          // d = 0, one device, HETLU_TIME_KERNELS set
  LoadBalance balance_;
  // Last: goes first, waiting for each device before anything it copies into or out of goes.
  std::vector<DeviceWork<T>> work_;
};

// Runs the hybrid LU on the plan's devices (their locks held), returning info; the load balance
// into *balance when given.
template <class T, class PanelFactor>
int hybrid_lu(const Plan& plan, int m, int n, T* A, int lda, int* ipiv, bool pivoting, PanelFactor panel,
              LoadBalance* balance = nullptr, InputCheck check = InputCheck::none) {
  auto locks = backends::lock_devices(plan.devices);
  const auto copies = backends::device_copies(plan.devices);
  std::vector<backends::Backend<T>*> devices;
  for (std::size_t i = 0; i < plan.devices.size(); ++i)
    devices.push_back(&backends::backend<T>(plan.devices.list[i], copies[i]));
  HybridLu<T, PanelFactor> lu(devices, Matrix<T>{m, n, lda, A}, panel_width_within(plan.nb, m, n),
                              plan.cpu_block_columns, ipiv, pivoting, panel, plan.device_shares);
  const int info = lu.check_input(check).run();
  if (balance) *balance = lu.balance();
  return info;
}

}  // namespace hetlu::variants
