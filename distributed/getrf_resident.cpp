// The seed's GPU-resident ScaLAPACK LU (scalapack-gpu-lu-qr-du.txt §IV-A, Algorithm 1 with its
// second option), on hetlu's Backend: each rank's local part of the matrix lives on its device for
// the whole factorization and the link carries only panels, pivot rows and the two broadcast blocks.
//
// Per step j (a block column of width jb), every rank of the grid:
//   1. the panel's process column brings its local rows j.. of the panel to the CPUs, and
//      ScaLAPACK's p?getf2 factors it there (its pivots, as p?getf2 leaves them, are on every rank
//      at this step's local offset: p?laswp reads them there);
//   2. p?laswp applies the interchanges left of the panel on the CPUs, where those columns stay;
//   3. right of the panel, only the rows the pivots touch come to the CPUs; p?laswp swaps them
//      (MPI between process rows) and p?trsm makes the U block row, and they go back;
//   4. BLACS broadcasts the panel's L along each process row and the U block row down each process
//      column; each rank uploads both and updates its trailing matrix with one GEMM on its device.
// The host copy of A is complete at the end: each block column comes back once, as a panel, and
// never changes on the device after that; p?getrs then solves on the CPUs.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "distributed/blacs_grid.hpp"
#include "distributed/scalapack_calls.hpp"
#include "hetlu/distributed.hpp"
#include "solvers/backend.hpp"
#include "solvers/copy_block.hpp"

namespace hetlu::distributed {
namespace {

using backends::Backend;
using backends::Queue;

void check_descriptor(int n, const int* desc, const char* name, int local_rows) {
  auto bad = [&](const std::string& why) {
    return InvalidArgument(std::string("device-resident p?getrf: ") + name + ": " + why);
  };
  if (!desc) throw bad("a null descriptor");
  if (desc[0] != 1) throw bad("not a block-cyclic descriptor (DTYPE " + std::to_string(desc[0]) + ")");
  if (desc[field_mb] != desc[field_nb] || desc[field_nb] < 1)
    throw bad("square blocks are needed (MB = " + std::to_string(desc[field_mb]) +
              ", NB = " + std::to_string(desc[field_nb]) + ")");
  if (desc[field_rsrc] != 0 || desc[field_csrc] != 0) throw bad("the first block must be on process (0, 0)");
  if (desc[field_m] < n) throw bad("M = " + std::to_string(desc[field_m]) + " is less than n = " + std::to_string(n));
  if (desc[field_lld] < std::max(1, local_rows))
    throw bad("LLD = " + std::to_string(desc[field_lld]) + " is less than the local rows " +
              std::to_string(local_rows));
}

// What p?getrs asks of B beside A (its argument checks), asked before A is factored: refused after,
// the call failed with A already overwritten by its factors (nrhs 5 with desc_b's N 2).
void check_right_hand_sides(int n, int nrhs, const int* desc_a, const int* desc_b) {
  auto bad = [](const std::string& why) { return InvalidArgument("device-resident p?gesv: desc_b: " + why); };
  if (desc_b[0] != 1) throw bad("not a block-cyclic descriptor (DTYPE " + std::to_string(desc_b[0]) + ")");
  if (desc_b[field_ctxt] != desc_a[field_ctxt]) throw bad("its BLACS context is not desc_a's");
  if (desc_b[field_mb] != desc_a[field_nb])
    throw bad("MB = " + std::to_string(desc_b[field_mb]) +
              " must be desc_a's NB = " + std::to_string(desc_a[field_nb]));
  if (desc_b[field_rsrc] != desc_a[field_rsrc]) throw bad("its first block row is not on desc_a's process row");
  if (desc_b[field_m] < n)
    throw bad("M = " + std::to_string(desc_b[field_m]) + " is less than n = " + std::to_string(n));
  if (desc_b[field_n] < nrhs)
    throw bad("N = " + std::to_string(desc_b[field_n]) + " is less than nrhs = " + std::to_string(nrhs));
  if (desc_b[field_nb] < 1) throw bad("NB = " + std::to_string(desc_b[field_nb]) + " must be >= 1");
  int P = 0, Q = 0, row = -1, col = -1;
  Cblacs_gridinfo(desc_b[field_ctxt], &P, &Q, &row, &col);
  if (row < 0) return;
  if (desc_b[field_csrc] < 0 || desc_b[field_csrc] >= Q)
    throw bad("CSRC = " + std::to_string(desc_b[field_csrc]) + " is not a process column of the " + std::to_string(P) +
              " x " + std::to_string(Q) + " grid");
  const int local_rows = local_count(desc_b[field_m], std::max(1, desc_b[field_mb]), row, P);
  if (desc_b[field_lld] < std::max(1, local_rows))
    throw bad("LLD = " + std::to_string(desc_b[field_lld]) + " is less than the local rows " +
              std::to_string(local_rows));
}

// Every rank of the grid throws when one failed (its own message; the others `otherwise`), so that
// none waits for it in a collective.
void agree_on_failure(int context, const Failure& failure, const std::string& otherwise) {
  distributed::agree_on_failure(context, failure, otherwise, "device-resident p?getrf: ");
}

// Seconds of this rank's phases, wall clock.
class PhaseClock {
 public:
  explicit PhaseClock(double& into) : into_(into), start_(MPI_Wtime()) {}
  ~PhaseClock() { into_ += MPI_Wtime() - start_; }

 private:
  double& into_;
  double start_;
};

template <class T>
class ResidentLu {
 public:
  ResidentLu(int n, T* A, const int* desc, int* ipiv, Backend<T>& device, ResidentPhases& phases)
      : n_(n), A_(A), desc_(desc), ipiv_(ipiv), device_(device), phases_(phases) {
    Cblacs_gridinfo(desc[field_ctxt], &P_, &Q_, &row_, &col_);
    nb_ = desc[field_nb];
    lld_ = desc[field_lld];
    rows_ = local_count(n, nb_, row_, P_);
    cols_ = local_count(n, nb_, col_, Q_);
  }

  ~ResidentLu() {  // nothing queued may outlive the memory it reads
    try {
      device_.synchronize();
    } catch (...) {
    }
  }

  int run() {
    // A rank whose device cannot hold its part fails every rank, not only itself (the others
    // would wait for it in the first broadcast).
    Failure failure;
    failure.unless([&] { upload_matrix(); });
    agree_on_failure(desc_[field_ctxt], failure, "another rank's device could not hold its part");
    try {
      for (int j = 1; j <= n_; j += nb_) {  // global, 1-based, as ScaLAPACK counts
        const int jb = std::min(nb_, n_ - j + 1);
        // The last step's uploads read the host copy and the receive buffers, which this step
        // rewrites; its GEMM may go on meanwhile.
        if (uploads_done_) device_.host_wait(uploads_done_);
        factor_panel(j, jb);
        interchange_left(j, jb);
        if (j + jb <= n_) {
          interchange_right_and_solve_row(j, jb);
          update_trailing(j, jb);
        }
      }
      device_.synchronize();
    } catch (const InvalidArgument&) {
      throw;  // ScaLAPACK refused an argument: every rank alike
    } catch (const std::exception& e) {
      // A device failing on one rank mid-way (memory is taken before the loop): the others wait in
      // ScaLAPACK's or BLACS's collectives, which nothing but an abort releases.
      std::fprintf(stderr, "hetlu: error: device-resident p?getrf, grid process (%d, %d): %s; aborting the job\n", row_,
                   col_, e.what());
      Cblacs_abort(desc_[field_ctxt], 1);
      throw;
    }
    for (const auto& [from, to] : updates_) phases_.update += device_.elapsed_seconds(from, to);
    return first_zero_pivot();
  }

 private:
  // LAPACK's info: the first k with U(k, k) exactly zero (0: none), from the diagonal in the host
  // copy, final once its panel is factored; every rank learns it. (p?getf2's own info said so on a
  // process row holding no row of a 1 x 1 matrix on a 2 x 1 grid: "[[5]] is singular".)
  int first_zero_pivot() const {
    int first = n_ + 1;
    for (int k = 0; k < n_ && first > n_; ++k) {  // global, 0-based; the first block on process (0, 0)
      const int block = k / nb_;
      if (block % P_ != row_ || block % Q_ != col_) continue;
      const int local_row = (block / P_) * nb_ + k % nb_, local_col = (block / Q_) * nb_ + k % nb_;
      if (*host(local_row, local_col) == T(0)) first = k + 1;
    }
    Cigamn2d(desc_[field_ctxt], "All", " ", 1, 1, &first, 1, nullptr, nullptr, -1, -1, -1);
    return first == n_ + 1 ? 0 : first;
  }

  T* host(int local_row, int local_col) const { return A_ + local_row + static_cast<std::size_t>(local_col) * lld_; }
  T* device(int local_row, int local_col) const { return matrix_.at(local_row, local_col); }
  void count_link(double elements) { phases_.link_bytes += elements * sizeof(T); }

  void upload_matrix() {
    PhaseClock clock(phases_.upload);
    matrix_ = device_.allocate(std::max(1, rows_), std::max(1, cols_));
    L_ = device_.allocate(std::max(1, rows_), nb_);
    U_ = device_.allocate(nb_, std::max(1, cols_));
    l_buffer_.resize(static_cast<std::size_t>(std::max(1, rows_)) * nb_);  // no allocation inside the loop
    u_buffer_.resize(static_cast<std::size_t>(nb_) * std::max(1, cols_));
    // A step touches at most its own nb rows and the nb its pivots name.
    const int touched = std::max(1, std::min(rows_, 2 * nb_));
    touched_ = device_.allocate_ints(touched);
    touched_staged_ = std::static_pointer_cast<int>(device_.allocate_pinned(sizeof(int) * touched));
    gathered_ = device_.allocate(touched, std::max(1, cols_));
    gathered_host_.resize(static_cast<std::size_t>(touched) * std::max(1, cols_));
    if (rows_ > 0 && cols_ > 0)
      device_.copy_to_device(Queue::compute, rows_, cols_, A_, lld_, matrix_.data(), matrix_.ld);
    device_.synchronize();
    count_link(double(rows_) * cols_);
  }

  // 1. The panel to the CPUs (its process column), p?getf2 there (every rank calls it).
  void factor_panel(int j, int jb) {
    PhaseClock clock(phases_.panel);
    const int panel_col = ((j - 1) / nb_) % Q_;
    const int r0 = local_count(j - 1, nb_, row_, P_);
    if (col_ == panel_col && rows_ > r0) {
      const int c0 = local_count(j - 1, nb_, col_, Q_);
      device_.copy_to_host(Queue::compute, rows_ - r0, jb, device(r0, c0), matrix_.ld, host(r0, c0), lld_);
      device_.synchronize();  // also the previous step's update, which wrote this panel
      count_link(double(rows_ - r0) * jb);
    }
    const int info = scalapack_getf2(n_ - j + 1, jb, A_, j, j, desc_, ipiv_);
    if (info < 0)
      throw InvalidArgument("device-resident p?getrf: p?getf2: " + illegal_argument(-info, p_getf2_arguments));
  }

  // 2. Left of the panel the columns are final on the CPUs: p?laswp there.
  void interchange_left(int j, int jb) {
    if (j == 1) return;
    PhaseClock clock(phases_.interchanges);
    scalapack_laswp(j - 1, A_, 1, desc_, j, j + jb - 1, ipiv_);
  }

  // The local rows (ascending, once each) of this process row that step j's interchanges touch:
  // the step's own rows j..j+jb-1 and the rows its pivots name (global, 1-based, on every rank
  // at the step's local offset, where p?getf2 left them and p?laswp reads them).
  std::vector<int> touched_rows(int j, int jb) const {
    const int offset = local_count(j - 1, nb_, row_, P_);
    std::vector<int> rows;
    auto add = [&](int global) {
      const int g = global - 1;
      if ((g / nb_) % P_ == row_) rows.push_back((g / (nb_ * P_)) * nb_ + g % nb_);
    };
    for (int t = 0; t < jb; ++t) add(j + t), add(ipiv_[offset + t]);
    std::sort(rows.begin(), rows.end());
    rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
    return rows;
  }

  // 3. Right of the panel: the touched rows down, p?laswp and p?trsm on the CPUs, the rows back up.
  // The rows are gathered into one block on the device and cross the link in one copy each way
  // (Backend::gather_rows): one copy per run of consecutive rows paid the link's latency up to
  // 2 nb times a step, the pivots' rows lying apart.
  void interchange_right_and_solve_row(int j, int jb) {
    PhaseClock clock(phases_.interchanges);
    const int c1 = local_count(j + jb - 1, nb_, col_, Q_), right = cols_ - c1;
    const std::vector<int> rows = right > 0 ? touched_rows(j, jb) : std::vector<int>{};
    const int count = static_cast<int>(rows.size());
    T* gathered = gathered_host_.data();
    if (count > 0) {
      std::copy(rows.begin(), rows.end(), touched_staged_.get());
      device_.copy_ints_to_device(Queue::compute, count, touched_staged_.get(), touched_.get());
      device_.gather_rows(Queue::compute, count, right, device(0, c1), matrix_.ld, touched_.get(), gathered_.data(),
                          gathered_.ld);
      device_.copy_to_host(Queue::compute, count, right, gathered_.data(), gathered_.ld, gathered, count);
      device_.synchronize();
      kernels::scatter_rows(count, right, gathered, count, rows.data(), host(0, c1), lld_);
    }
    scalapack_laswp(n_ - j - jb + 1, A_, j + jb, desc_, j, j + jb - 1, ipiv_);
    scalapack_trsm_lower_unit(jb, n_ - j - jb + 1, A_, j, j, j + jb, desc_);
    if (count > 0) {
      kernels::gather_rows(count, right, host(0, c1), lld_, rows.data(), gathered, count);
      device_.copy_to_device(Queue::compute, count, right, gathered, count, gathered_.data(), gathered_.ld);
      device_.scatter_rows(Queue::compute, count, right, gathered_.data(), gathered_.ld, touched_.get(), device(0, c1),
                           matrix_.ld);
      uploads_done_ = device_.record(Queue::compute);
    }
    count_link(2.0 * count * right);
  }

  // 4. L along the process rows, U down the process columns, both up; the GEMM on the device.
  void update_trailing(int j, int jb) {
    const int panel_row = ((j - 1) / nb_) % P_, panel_col = ((j - 1) / nb_) % Q_;
    const int r0 = local_count(j - 1, nb_, row_, P_), c0 = local_count(j - 1, nb_, col_, Q_);  // the step's block
    const int r1 = local_count(j + jb - 1, nb_, row_, P_), c1 = local_count(j + jb - 1, nb_, col_, Q_);
    const int below = rows_ - r1, right = cols_ - c1;
    {
      PhaseClock clock(phases_.broadcasts);
      // Receive buffers: the host copy's own place would overwrite this rank's columns.
      if (below > 0 && Q_ > 1) {
        if (col_ == panel_col) {
          blacs_broadcast(desc_[field_ctxt], "Rowwise", true, below, jb, host(r1, c0), lld_, row_, panel_col);
        } else {
          blacs_broadcast(desc_[field_ctxt], "Rowwise", false, below, jb, l_buffer_.data(), below, row_, panel_col);
        }
      }
      if (right > 0 && P_ > 1) {
        if (row_ == panel_row) {
          blacs_broadcast(desc_[field_ctxt], "Columnwise", true, jb, right, host(r0, c1), lld_, panel_row, col_);
        } else {
          blacs_broadcast(desc_[field_ctxt], "Columnwise", false, jb, right, u_buffer_.data(), jb, panel_row, col_);
        }
      }
    }
    if (below == 0 || right == 0) return;
    // The panel's process column has L in place; the U block row's process row has U on its device.
    const bool own_l = col_ == panel_col, own_u = row_ == panel_row;
    const T* l = own_l ? host(r1, c0) : l_buffer_.data();
    device_.copy_to_device(Queue::compute, below, jb, l, own_l ? lld_ : below, L_.data(), L_.ld);
    count_link(double(below) * jb);
    const T* u_on_device = device(r0, c1);
    int u_ld = matrix_.ld;
    if (!own_u) {
      device_.copy_to_device(Queue::compute, jb, right, u_buffer_.data(), jb, U_.data(), U_.ld);
      count_link(double(jb) * right);
      u_on_device = U_.data(), u_ld = U_.ld;
    }
    uploads_done_ = device_.record(Queue::compute);
    const auto start = device_.record_timed(Queue::compute);
    device_.gemm_minus(Queue::compute, below, right, jb, L_.data(), L_.ld, u_on_device, u_ld, device(r1, c1),
                       matrix_.ld);
    updates_.emplace_back(start, device_.record_timed(Queue::compute));
  }

  int n_;
  T* A_;
  const int* desc_;
  int* ipiv_;
  Backend<T>& device_;
  ResidentPhases& phases_;
  int P_ = 1, Q_ = 1, row_ = 0, col_ = 0, nb_ = 1, lld_ = 1, rows_ = 0, cols_ = 0;
  backends::DeviceMatrix<T> matrix_, L_, U_;
  std::vector<T> l_buffer_, u_buffer_;
  // The rows a step's interchanges touch: their local indices (pinned, then on the device) and the
  // rows themselves, gathered, on both sides.
  std::shared_ptr<int> touched_, touched_staged_;
  backends::DeviceMatrix<T> gathered_;
  std::vector<T> gathered_host_;
  std::vector<std::pair<backends::EventPtr, backends::EventPtr>> updates_;
  backends::EventPtr uploads_done_;
};

}  // namespace

template <class T>
int getrf_resident(int n, T* A, const int* desc_a, int* ipiv, const Device& device, ResidentPhases* phases) {
  // A null descriptor has no grid to agree over: refused on this rank alone.
  if (!desc_a) throw InvalidArgument("device-resident p?getrf: desc_a is a null descriptor");
  if (desc_a[field_ctxt] < 0) return 0;  // a rank outside the grid, as ScaLAPACK: nothing to do
  int P = 0, Q = 0, row = -1, col = -1;
  Cblacs_gridinfo(desc_a[field_ctxt], &P, &Q, &row, &col);
  if (row < 0 || col < 0) return 0;  // outside the grid, as ScaLAPACK: nothing to do
  // What may fail on one rank alone (n, its local leading dimension, its device) fails every rank.
  Failure failure;
  backends::Backend<T>* backend = nullptr;
  std::vector<std::unique_lock<std::mutex>> locks;
  failure.unless([&] {
    if (n < 0) throw InvalidArgument("device-resident p?getrf: n = " + std::to_string(n) + " must be >= 0");
    // LLD against the local rows of all M rows, as ScaLAPACK checks it (M > n with an LLD for n
    // passed here and aborted the job in p?getf2).
    check_descriptor(n, desc_a, "desc_a",
                     local_count(std::max(0, desc_a[field_m]), std::max(1, desc_a[field_nb]), row, P));
    if (desc_a[field_n] < n)
      throw InvalidArgument("device-resident p?getrf: desc_a: N = " + std::to_string(desc_a[field_n]) +
                            " is less than n = " + std::to_string(n));
    if (n > 0) {
      backend = &backends::backend<T>(device);
      locks = backends::lock_devices(DeviceSet(DeviceList{device}));
    }
  });
  agree_on_failure(desc_a[field_ctxt], failure, "another rank's arguments or device were refused");
  // Each rank checked its own descriptor; the grid's collectives need them the same (NB 4 on one
  // rank and 3 on the others hung a 2 x 2 grid and aborted a 1 x 3 one in PBLAS).
  // So does the precision (psgesv beside pdgesv corrupted the heap).
  agree_on_values(desc_a[field_ctxt], with_global_fields({n, static_cast<int>(sizeof(T))}, {desc_a}),
                  "device-resident p?getrf: n, the precision and desc_a's M, N, MB, NB and source process");
  ResidentPhases local;
  ResidentPhases& into = phases ? *phases : local;
  if (n == 0) return 0;
  return ResidentLu<T>(n, A, desc_a, ipiv, *backend, into).run();
}

template <class T>
int gesv_resident(int n, int nrhs, T* A, const int* desc_a, int* ipiv, T* B, const int* desc_b, const Device& device,
                  int threads_per_rank, ResidentPhases* phases) {
  // Arguments refused on one rank alone fail every rank of the grid (none waits in getrf's collectives).
  Failure failure;
  failure.unless([&] {
    if (nrhs < 0) throw InvalidArgument("device-resident p?gesv: nrhs = " + std::to_string(nrhs) + " must be >= 0");
    if (nrhs > 0 && !desc_b) throw InvalidArgument("device-resident p?gesv: desc_b is a null descriptor");
    check_local_arrays(A, desc_a, B, desc_b, "device-resident p?gesv");
    check_systems_apart(n, nrhs, A, 1, 1, desc_a, B, 1, 1, desc_b, ipiv, sizeof(T), "device-resident p?gesv");
    check_threads_per_rank(threads_per_rank, "device-resident p?gesv");
    // A's first block where the resident LU needs it, before B is checked against it (B's local
    // rows counted from a source A may not have was a misleading "LLD ... less than the local rows").
    if (desc_a && (desc_a[field_rsrc] != 0 || desc_a[field_csrc] != 0))
      throw InvalidArgument("device-resident p?gesv: desc_a: the first block must be on process (0, 0)");
    if (nrhs > 0 && desc_a) check_right_hand_sides(n, nrhs, desc_a, desc_b);
    check_finite_part("A", n, n, A, 1, 1, desc_a, "device-resident p?gesv");
    check_finite_part("B", n, nrhs, B, 1, 1, desc_b, "device-resident p?gesv");
  });
  if (!desc_a) throw InvalidArgument("device-resident p?gesv: desc_a is a null descriptor");
  distributed::agree_on_failure(desc_a[field_ctxt], failure, "another rank's arguments were refused",
                                "device-resident p?gesv: ");
  // p?getrs's collectives need B's view the same on every rank too; every rank of the grid takes
  // part (-1 for what a null desc_b, nrhs = 0 there, does not say).
  agree_on_values(desc_a[field_ctxt], with_global_fields({nrhs}, {desc_b}),
                  "device-resident p?gesv: nrhs and desc_b's M, N, MB, NB and source process");
  const BlasThreads threads(threads_per_rank);
  ResidentPhases local;
  ResidentPhases& into = phases ? *phases : local;
  const int info = getrf_resident(n, A, desc_a, ipiv, device, &into);
  if (info != 0 || n == 0 || nrhs == 0) return info;
  PhaseClock clock(into.solve);
  const int solved = scalapack_getrs(n, nrhs, A, desc_a, ipiv, B, desc_b);
  if (solved < 0)
    throw InvalidArgument("device-resident p?gesv: p?getrs: " + illegal_argument(-solved, p_getrs_arguments));
  return 0;
}

template int getrf_resident<double>(int, double*, const int*, int*, const Device&, ResidentPhases*);
template int getrf_resident<float>(int, float*, const int*, int*, const Device&, ResidentPhases*);
template int gesv_resident<double>(int, int, double*, const int*, int*, double*, const int*, const Device&, int,
                                   ResidentPhases*);
template int gesv_resident<float>(int, int, float*, const int*, int*, float*, const int*, const Device&, int,
                                  ResidentPhases*);

}  // namespace hetlu::distributed
