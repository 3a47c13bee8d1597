// The hybrid blocked LU that GEPP, CALU and PRBT's GENP share: CPUs and a device (any Backend)
// work on one factorization. The variants differ only in how the CPUs factor a panel.
//
// Panel on the CPUs, d >= 1 block columns on the CPUs (async-calu §3, Algorithm 2; with d = 1 it is
// MAGMA's hybrid GEPP with look-ahead, async-calu Algorithm 1):
//   - the CPUs own a window of d block columns [K, K + d); the device owns the block columns right
//     of it, resident in device memory;
//   - step K: the CPUs factor panel K and send it to the device; the device applies its row
//     interchanges, block row of U and trailing GEMM to its columns, block column K + d first,
//     which it then sends back to the CPUs (the window moves right by one block column) while it
//     updates the rest; the CPUs meanwhile update their window with panel K, column K + 1 first,
//     and factor panel K + 1 (look-ahead);
//   - once fewer than d block columns remain, the device has nothing left and drops out.
// Every block column passes through the CPUs' window, so the factors end on the host; the row
// interchanges left of each panel are applied there at the end.
//
// Panel on the device (d = 0): the whole matrix stays on the device; the device factors each
// panel (Backend::getrf_panel) and updates the rest; the factors come back at the end. This is the
// plan for a device so much faster than the CPUs that a CPU panel would stall it.
//
// The host backend is a device made of this machine's cores. The cores are partitioned, never
// shared: its team has host_backend_threads() of them and the CPUs' side the rest (on two cores, one
// each), and the CPUs' side runs its BLAS on exactly its share for the whole factorization
// (CpuThreads). Sharing them instead (the CPUs' BLAS on every core beside the team) ran three
// threads on two cores and measured slower at every d than the CPUs alone, a contention no model
// term prices; with a partition the host backend behaves as a separate, slower device, and the
// model (model::with_host_backend) prices the two shares as what they are.
//
// Transfers (#17): the caller's matrix is never page-locked. Every copy goes through a few pinned
// staging slots of one block column each (solvers/staging.hpp), allocated once per plan (the cuda
// backend recycles them); the device's columns go up a slot at a time, packing one while the last
// is copied. Each panel's pivots go up from pinned memory with the panel, and the device applies
// them from device memory. With the panel on the device, its pivots and infos stay there until the
// end: no step waits for the device to read them, so the device's queue never drains.
//
// A caller that solves on the device (PRBT) asks for the factors to stay there
// (leave_factors_on_device): each finished block column then goes up whole, its U rows included,
// the last d at the end, and with d = 0 nothing comes back.
#pragma once

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <optional>
#include <vector>

#include "hetlu/detail/staging_slot.hpp"
#include "solvers/backend.hpp"
#include "solvers/blocked_lu.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/staging.hpp"

namespace hetlu::variants {

// The calling thread's OpenMP thread count set to `threads` while this lives, then restored:
// OpenBLAS's OpenMP build sizes each call made outside a parallel region by omp_get_max_threads().
class CpuThreads {
 public:
  explicit CpuThreads(int threads) : saved_(omp_get_max_threads()) { omp_set_num_threads(std::max(1, threads)); }
  ~CpuThreads() { omp_set_num_threads(saved_); }
  CpuThreads(const CpuThreads&) = delete;
  CpuThreads& operator=(const CpuThreads&) = delete;

 private:
  int saved_;
};

// PanelFactor: as for BlockedLu, int(int rows, int width, T* A, int lda, int* ipiv); a panel
// without pivoting writes the identity. `pivoting` tells the device panel (Backend::getrf_panel).
template <class T, class PanelFactor>
class HybridLu {
 public:
  // resident: the matrix is already in device memory (m x n), its host copy A_ is only a workspace
  // (PRBT randomizes on the device); otherwise A_ holds it. staging: the caller's slots (at least m
  // rows), else the run makes its own of one block column.
  HybridLu(backends::Backend<T>& device, const Matrix<T>& A, int nb, int cpu_block_columns, int* ipiv, bool pivoting,
           PanelFactor panel, const backends::DeviceMatrix<T>* resident = nullptr,
           backends::Staging<T>* staging = nullptr)
      : dev_(device),
        A_(A),
        nb_(std::max(1, nb)),
        d_(std::max(0, cpu_block_columns)),
        ipiv_(ipiv),
        pivoting_(pivoting),
        panel_(panel),
        resident_(resident != nullptr),
        staging_(staging) {
    if (resident) dA_ = *resident;
    k_ = std::min(A_.m, A_.n);
    blocks_ = (A_.n + nb_ - 1) / nb_;
    panels_ = (k_ + nb_ - 1) / nb_;
  }

  // The caller solves on the device: when run() returns, device_factors() holds the complete
  // factors (rows interchanged as on the host); with d = 0 they do not come back to the host.
  // Square matrices only.
  HybridLu& leave_factors_on_device() {
    if (A_.m != A_.n) throw InvalidArgument("hybrid LU: factors stay on the device for square matrices only");
    keep_on_device_ = true;
    return *this;
  }
  const backends::DeviceMatrix<T>& device_factors() const { return dA_; }

  int run() {
    if (k_ == 0) return 0;
    using backends::Queue;
    if (!resident_) dA_ = dev_.allocate(A_.m, A_.n);
    if (!staging_) {
      own_staging_ = std::make_unique<backends::Staging<T>>(
          dev_, A_.m, detail::staging_slot_columns(A_.m, A_.n, nb_, d_ > 0, sizeof(T)));
      staging_ = own_staging_.get();
    }
    device_pivots_ = dev_.allocate_ints(k_ + panels_);  // each panel's pivots, then each one's info
    staged_pivots_ = std::static_pointer_cast<int>(dev_.allocate_pinned(sizeof(int) * (k_ + panels_)));
    try {
      return d_ == 0 ? device_panels() : cpu_panels();
    } catch (...) {
      // Nothing may still run on dA_ or on the caller's A once this returns.
      try {
        dev_.synchronize();
      } catch (...) {
      }
      throw;
    }
  }

 private:
  using Queue = backends::Queue;

  int col(int block) const { return std::min(A_.n, block * nb_); }
  int panel_width(int K) const { return std::min(nb_, k_ - K * nb_); }

  // ---- the CPUs' side ---------------------------------------------------------------------------

  int factor_host_panel(int K) { return factor_panel(A_, ipiv_, K * nb_, panel_width(K), panel_); }

  // Panel K's interchanges, block row of U and trailing GEMM applied to host columns [c0, c1).
  void update_host(int K, int c0, int c1) { update_columns(A_, ipiv_, K * nb_, panel_width(K), c0, c1 - c0); }

  // The same on the device's copy of columns [c0, c1), on the compute queue.
  void update_device(int K, int c0, int c1) {
    if (c1 <= c0) return;
    const int j = K * nb_, jb = panel_width(K), w = c1 - c0;
    if (pivoting_) dev_.laswp(Queue::compute, w, dA_.at(0, c0), dA_.ld, j, j + jb, device_pivots_.get() + j);
    dev_.trsm_lower_unit(Queue::compute, jb, w, dA_.at(j, j), dA_.ld, dA_.at(j, c0), dA_.ld);
    if (A_.m - j - jb > 0)
      dev_.gemm_minus(Queue::compute, A_.m - j - jb, w, jb, dA_.at(j + jb, j), dA_.ld, dA_.at(j, c0), dA_.ld,
                      dA_.at(j + jb, c0), dA_.ld);
  }

  void download_block(int J) {
    dev_.wait(Queue::to_host, dev_.record(Queue::compute));
    arrived_[J] = staging_->to_host(Queue::to_host, A_.m, col(J + 1) - col(J), dA_.at(0, col(J)), dA_.ld,
                                    A_.at(0, col(J)), A_.lda);
  }

  // Block column J in the CPUs' hands (unpacked from its staging slot); thread-safe.
  void wait_arrival(int J) { staging_->finish(arrived_[J]); }

  // The pivots of the CPUs' panels up to `last`, not sent yet, to the device (relative to each
  // panel, as the device's laswp reads them), from pinned memory on the to_device queue.
  void send_pivots(int last) {
    if (!pivoting_ || last < pivots_sent_) return;
    const int first = pivots_sent_ * nb_, end = std::min(k_, (last + 1) * nb_);
    for (int i = first; i < end; ++i) staged_pivots_.get()[i] = ipiv_[i] - i / nb_ * nb_;
    dev_.copy_ints_to_device(Queue::to_device, end - first, staged_pivots_.get() + first, device_pivots_.get() + first);
    pivots_sent_ = last + 1;
  }

  int cpu_panels() {
    const int d = std::min(d_, blocks_);
    arrived_.assign(blocks_, 0);
    if (resident_) {  // the CPUs' first d block columns come from the device
      dev_.wait(Queue::to_host, dev_.record(Queue::compute));
      staging_->finish(staging_->to_host(Queue::to_host, A_.m, col(d), dA_.data(), dA_.ld, A_.data, A_.lda));
    } else if (d < blocks_) {  // the device's columns: uploaded once, resident from then on
      staging_->to_device(Queue::to_device, A_.m, A_.n - col(d), A_.at(0, col(d)), A_.lda, dA_.at(0, col(d)), dA_.ld);
      dev_.wait(Queue::compute, dev_.record(Queue::to_device));
    }
    // The host backend's team runs on this machine's cores too: the CPUs' side keeps the rest.
    const int cpu_threads =
        std::max(1, omp_get_max_threads() - (dev_.kind() == BackendKind::host ? backends::host_backend_threads() : 0));
    // One thread left: its BLAS runs single-threaded for the whole factorization. With more, the
    // CPUs' BLAS calls run inside their parallel region (single-threaded per thread) but for a few
    // (the first panel, the last update), which keep the process's count: OpenBLAS's OpenMP build
    // holds one count for the process and frees per-thread buffers when a call changes it, which a
    // concurrent solve in another thread may be using. A count of one never changes it.
    std::optional<CpuThreads> cpu_share;
    if (cpu_threads == 1) cpu_share.emplace(1);
    int info = factor_host_panel(0);
    for (int K = 0; K < panels_; ++K) {
      const int j = K * nb_, jb = panel_width(K);
      const int first_device_block = K + d;
      if (first_device_block < blocks_) {
        const int top = keep_on_device_ ? 0 : j;  // the device's copy of U rows is stale otherwise
        staging_->to_device(Queue::to_device, A_.m - top, jb, A_.at(top, j), A_.lda, dA_.at(top, j), dA_.ld);
        send_pivots(K);
        dev_.wait(Queue::compute, dev_.record(Queue::to_device));
        update_device(K, col(first_device_block), col(first_device_block + 1));
        download_block(first_device_block);  // the window moves right by one block column
        update_device(K, col(first_device_block + 1), A_.n);
      }
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
        wait_arrival(next);
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
    dev_.synchronize();
    staging_->finish_all();
    swap_left_columns(A_, k_, nb_, ipiv_);
    return info;
  }

  // The block columns that were still in the CPUs' window at the end (square: the last d) go to
  // the device, and the device applies each panel's interchanges left of it, as
  // swap_left_columns does on the host.
  void send_last_block_columns(int d) {
    const int c = col(std::max(0, blocks_ - d));
    staging_->to_device(Queue::to_device, A_.m, A_.n - c, A_.at(0, c), A_.lda, dA_.at(0, c), dA_.ld);
    send_pivots(panels_ - 1);
    dev_.wait(Queue::compute, dev_.record(Queue::to_device));
    if (pivoting_)
      for (int K = 1; K < panels_; ++K)
        dev_.laswp(Queue::compute, K * nb_, dA_.data(), dA_.ld, K * nb_, K * nb_ + panel_width(K),
                   device_pivots_.get() + K * nb_);
  }

  // ---- everything on the device -----------------------------------------------------------------

  int device_panels() {
    if (!resident_) {
      staging_->to_device(Queue::to_device, A_.m, A_.n, A_.data, A_.lda, dA_.data(), dA_.ld);
      dev_.wait(Queue::compute, dev_.record(Queue::to_device));
    }
    int* pivots = device_pivots_.get();
    int* infos = pivots + k_;
    for (int K = 0; K < panels_; ++K) {
      const int j = K * nb_, jb = panel_width(K);
      dev_.getrf_panel(Queue::compute, A_.m - j, jb, dA_.at(j, j), dA_.ld, pivots + j, infos + K, pivoting_);
      if (pivoting_ && j > 0) dev_.laswp(Queue::compute, j, dA_.data(), dA_.ld, j, j + jb, pivots + j);
      update_device(K, j + jb, A_.n);
    }
    // The pivots and infos come back once, behind the last panel's update, not a step at a time.
    dev_.copy_ints_to_host(Queue::compute, k_ + panels_, pivots, staged_pivots_.get());
    if (!keep_on_device_) {
      dev_.wait(Queue::to_host, dev_.record(Queue::compute));
      staging_->to_host(Queue::to_host, A_.m, A_.n, dA_.data(), dA_.ld, A_.data, A_.lda);
    }
    dev_.synchronize();
    staging_->finish_all();
    return pivots_and_info_from_device();
  }

  // LAPACK's info (the first zero pivot) and ipiv (whole-matrix rows) from the device's panels.
  int pivots_and_info_from_device() {
    const int* got = staged_pivots_.get();
    int info = 0;
    for (int K = 0; K < panels_; ++K) {
      const int j = K * nb_, jb = panel_width(K), panel_info = got[k_ + K];
      if (panel_info < 0) throw Error("hybrid LU: the device's getrf rejected argument " + std::to_string(-panel_info));
      if (info == 0 && panel_info > 0) info = panel_info + j;
      for (int i = j; i < j + jb; ++i) ipiv_[i] = j + (pivoting_ ? got[i] : i - j + 1);
    }
    return info;
  }

  backends::Backend<T>& dev_;
  Matrix<T> A_;
  int nb_, d_;
  int* ipiv_;
  bool pivoting_;
  PanelFactor panel_;
  bool resident_;
  bool keep_on_device_ = false;
  int k_ = 0, blocks_ = 0, panels_ = 0;
  backends::DeviceMatrix<T> dA_;
  std::shared_ptr<int> device_pivots_, staged_pivots_;  // k pivots, then one info per panel
  int pivots_sent_ = 0;                                 // panels whose pivots the device has
  std::vector<std::uint64_t> arrived_;                  // per block column: its download's ticket
  backends::Staging<T>* staging_;
  // Last: goes first, waiting for the device before anything it copies into or out of goes.
  std::unique_ptr<backends::Staging<T>> own_staging_;
};

// Runs the hybrid LU on the plan's backend (its lock held), returning info.
template <class T, class PanelFactor>
int hybrid_lu(const Plan& plan, int m, int n, T* A, int lda, int* ipiv, bool pivoting, PanelFactor panel) {
  auto lock = backends::lock_backend(plan.backend);
  auto& device = backends::backend<T>(plan.backend);
  return HybridLu<T, PanelFactor>(device, Matrix<T>{m, n, lda, A}, plan.nb, plan.cpu_block_columns, ipiv, pivoting,
                                  panel)
      .run();
}

}  // namespace hetlu::variants
