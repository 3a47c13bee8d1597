// Mixed precision on one device; see mixed_device.hpp.
#include "solvers/mixed_device.hpp"

#include <omp.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <string>

#include "hetlu/detail/env_choice.hpp"
#include "hetlu/detail/staging_slot.hpp"
#include "solvers/checks.hpp"
#include "solvers/device_refinement.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/hybrid_lu.hpp"
#include "solvers/hybrid_panels.hpp"
#include "solvers/lu.hpp"
#include "solvers/prbt_device.hpp"
#include "solvers/randomized_solve.hpp"
#include "solvers/workspace.hpp"

namespace hetlu::variants {

using backends::Queue;

template <class T>
bool MixedDevice<T>::applies(const Plan& low_plan) {
  return low_plan.target == Target::hybrid && low_plan.devices.size() == 1;
}

template <class T>
bool MixedDevice<T>::rounds_on_device(const Plan& low_plan) {
  // HETLU_MIXED_ROUNDING=host (read once; default unset: on the device): the host rounds A, as with
  // d > 0, to time the two ways in one run (device_run.sh's mixed_host_rounding stage). GEPP and
  // CALU only: PRBT randomizes the whole of A before GENP begins, so A goes up whole in any case.
  static const bool host_rounds = detail::env_choice("HETLU_MIXED_ROUNDING", {"host", "device"}, "device") == "host";
  if (!applies(low_plan)) return false;
  return low_plan.solver == Solver::prbt || (low_plan.cpu_block_columns == 0 && !host_rounds);
}

template <class T>
MixedDevice<T>::MixedDevice(const Plan& low_plan, int n, const T* A, int lda)
    : plan_(low_plan),
      n_(n),
      np_(low_plan.solver == Solver::prbt ? kernels::prbt_padded_order(n) : n),
      A_(A),
      lda_(lda),
      lock_((checks::plan(low_plan), backends::lock_devices(low_plan.devices))),
      low_(backends::backend<Low>(low_plan.devices.front())),
      high_(backends::backend<T>(low_plan.devices.front())) {
  if (low_plan.solver == Solver::prbt)
    U_ = kernels::Butterfly<Low>::prbt_left(np_), V_ = kernels::Butterfly<Low>::prbt_right(np_);
}

template <class T>
MixedDevice<T>::~MixedDevice() {
  if (upload_.valid()) upload_.wait();
}

template <class T>
void MixedDevice<T>::upload_matrix() {
  // The packing's threads (copy_block is parallel): half the cores beside a device that factors
  // its own panels (d = 0: the CPUs mostly wait), one beside CPU panels, which are the critical path.
  omp_set_num_threads(plan_.cpu_block_columns > 0 ? 1 : std::max(1, omp_get_max_threads() / 2));
  high_staging_->to_device(Queue::to_device, n_, n_, A_, lda_, original_.data(), original_.ld);
}

// Thrown by the column source where an entry of A lies beyond single's range: the factorization
// stops there (ITER -2; the double solver answers), not after factoring the rest.
struct OutsideSingle {};

template <class T>
void MixedDevice<T>::upload_and_round(int c0, int cols, Low* device, int ldd, InputCheck check) {
  const typename backends::Staging<T>::ColumnVisitor visit = [&](int j, const T* x, int) {
    scan_->column(c0 + j, x);
    return (check != InputCheck::finite || scan_->column_finite(c0 + j)) && scan_->column_fits(c0 + j);
  };
  if (!high_staging_->to_device(Queue::to_device, n_, cols, A_ + static_cast<long long>(c0) * lda_, lda_,
                                original_.at(0, c0), original_.ld, visit)) {
    if (check == InputCheck::finite)
      checks::finite("A", n_, n_, A_, lda_);  // names the first entry that is not finite (any column), and throws
    throw OutsideSingle{};
  }
  low_.wait(Queue::to_device, high_.record(Queue::to_device));
  low_.round_from_wide(Queue::to_device, n_, cols, original_.at(0, c0), original_.ld, device, ldd);
}

template <class T>
int MixedDevice<T>::factor_randomized(InputCheck check) {
  for (int i = 0; i < n_; ++i) ipiv_[i] = i + 1;
  // The packing also finds exactly zero rows and columns, which make A singular however it is
  // randomized (GENP would meet a zero pivot, or worse, a tiny one).
  kernels::LineScan<T> lines(n_, n_);
  const typename backends::Staging<T>::ColumnVisitor visit = [&](int j, const T* x, int) {
    scan_->column(j, x);
    lines.column(j, x);
    return (check != InputCheck::finite || scan_->column_finite(j)) && scan_->column_fits(j);
  };
  if (!high_staging_->to_device(Queue::to_device, n_, n_, A_, lda_, original_.data(), original_.ld, visit)) {
    if (check == InputCheck::finite) checks::finite("A", n_, n_, A_, lda_);
    throw OutsideSingle{};
  }
  if (!lines.nonsingular_lines()) return n_;  // the double solver finds where
  low_.wait(Queue::compute, high_.record(Queue::to_device));
  low_.round_from_wide(Queue::compute, n_, n_, original_.data(), original_.ld, factors_.data(), factors_.ld);
  // diag(A, s I), s from A's exponents as PRBT's CPU path takes it from the rounded A (an entry
  // rounded across a power of two aside), within single's range.
  upload_padding(*low_staging_, n_, np_, A_, lda_, factors_);
  low_.wait(Queue::compute, low_.record(Queue::to_device));
  low_.butterflies_two_sided(Queue::compute, np_, U_->values.data(), V_->values.data(), factors_.data(), factors_.ld);
  // GENP's host matrix: where the CPUs factor block columns (d > 0), they come back there.
  kernels::Workspace<Low> host(static_cast<std::size_t>(np_) * np_);
  std::vector<int> unused(np_);
  HybridLu<Low, decltype(&genp_panel<Low>)> lu(
      low_, Matrix<Low>{np_, np_, np_, host.data()}, panel_width_within(plan_.nb, np_, np_), plan_.cpu_block_columns,
      unused.data(), /*pivoting=*/false, genp_panel<Low>, &factors_, low_staging_.get());
  lu.leave_factors_on_device();
  return lu.run();
}

template <class T>
std::optional<int> MixedDevice<T>::factor(Low* a, int nrhs, InputCheck check) {
  const bool randomized = plan_.solver == Solver::prbt;
  const int nb = panel_width_within(plan_.nb, np_, np_);
  const bool per_step = plan_.cpu_block_columns > 0;
  const bool round_here = a == nullptr;
  if (round_here != rounds_on_device(plan_))
    throw InvalidArgument(round_here ? "mixed precision: A is rounded on the device only on one device, with the panel "
                                       "there (d = 0) or for PRBT"
                          : plan_.solver == Solver::prbt
                              ? "mixed precision: PRBT's A is rounded on the device"
                              : "mixed precision: with the panel on the device (d = 0), the device rounds A");
  // The caller lets the object go at once: the destructor waits for the upload, the members free the
  // device memory.
  auto out_of_memory = [&](const DeviceOutOfMemory& e) {
    note_ = std::string(
                "refinement on the CPUs: the device cannot hold A in double, the single factors and the refinement's "
                "buffers together: ") +
            e.what();
    return std::nullopt;
  };
  try {
    // Everything refinement keeps, taken first; the single matrix HybridLu allocates is tried (and
    // freed) before A's upload begins, so that a device too small for it is known at once (PRBT's
    // is its own, kept).
    original_ = high_.allocate(n_, n_);
    residual_.reserve(high_, n_, std::max(1, nrhs));
    solve_work_ =
        low_.allocate(np_, std::max(solvers::mixed_certificate_seeded_probes, nrhs));  // the certificate's too
    if (randomized)
      factors_ = low_.allocate(np_, np_);
    else
      low_.allocate(n_, n_);
    high_staging_ = std::make_unique<backends::Staging<T>>(
        high_, np_, detail::staging_slot_columns(np_, np_, nb, /*per_step=*/false, sizeof(T)));
    low_staging_ = std::make_unique<backends::Staging<Low>>(
        low_, np_, detail::staging_slot_columns(np_, np_, nb, per_step, sizeof(Low)));
  } catch (const DeviceOutOfMemory& e) {
    return out_of_memory(e);
  }
  if (round_here)
    scan_ = std::make_unique<kernels::RoundingScan<T>>(n_);
  else
    upload_ = std::async(std::launch::async, [this] { upload_matrix(); });
  try {
    ipiv_.assign(n_, 0);
    const int info = randomized ? factor_randomized(check) : with_hybrid_panel<Low>(plan_, [&](auto panel) {
      HybridLu<Low, decltype(panel)> lu(low_, Matrix<Low>{n_, n_, n_, a}, nb, plan_.cpu_block_columns, ipiv_.data(),
                                        /*pivoting=*/true, panel, nullptr, low_staging_.get());
      lu.leave_factors_on_device();
      if (round_here)
        lu.upload_from([&](int c0, int cols, Low* device, int ldd) { upload_and_round(c0, cols, device, ldd, check); });
      const int result = lu.run();
      factors_ = lu.device_factors();
      return result;
    });
    if (upload_.valid()) upload_.get();
    // Refinement's residuals read A in double on the double backend's compute queue.
    high_.wait(Queue::compute, high_.record(Queue::to_device));
    if (scan_) scanned_ = scan_->result();
    return info;
  } catch (const DeviceOutOfMemory& e) {
    return out_of_memory(e);
  } catch (const OutsideSingle&) {
    // HybridLu waited for the device; PRBT's upload stopped at the batch holding the entry, with the
    // batches before it still on their way: drained here. The packing read A only up to the entry: ||A||_1, which the
    // double solver's condition estimate takes, from a pass over the whole of it (with the columns not sent, the
    // estimate was up to n times too large, and "singular to working precision" unsaid).
    high_.synchronize();
    scanned_ = kernels::scan_matrix(n_, A_, lda_);
    return 0;
  }
}

template <class T>
template <class F>
void MixedDevice<T>::apply_inverse(backends::Backend<F>& device, backends::Staging<F>& staging,
                                   const backends::DeviceMatrix<F>& factors, backends::DeviceMatrix<F>& work,
                                   const std::optional<kernels::Butterfly<F>>& U,
                                   const std::optional<kernels::Butterfly<F>>& V, F* W, int ldw, int ncols,
                                   Transpose trans) {
  if (n_ == 0 || ncols == 0) return;
  if (U) {  // V (L U)^-1 U^T on the padded order: the butterflies on the host (O(n ncols)), the triangles there
    auto triangular = [&](F* X, int ldx, int columns, Transpose how) {
      solve_with_device_factors(device, staging, factors, np_, columns, X, ldx, how, work);
    };
    std::vector<F> padded;
    kernels::apply_randomized_inverse(*U, *V, n_, ncols, W, ldw, trans, padded, triangular);
    return;
  }
  // A = P^T L U: P's interchanges on the host (O(n ncols)), the triangles on the device.
  if (trans == Transpose::no) kernels::laswp(ncols, W, ldw, 0, n_, ipiv_.data());
  solve_with_device_factors(device, staging, factors, n_, ncols, W, ldw, trans, work);
  if (trans != Transpose::no) kernels::laswp_reverse(ncols, W, ldw, 0, n_, ipiv_.data());
}

template <class T>
void MixedDevice<T>::solve(Low* W, int ldw, int ncols, Transpose trans) {
  apply_inverse(low_, *low_staging_, factors_, solve_work_, U_, V_, W, ldw, ncols, trans);
}

template <class T>
double MixedDevice<T>::residual(int nrhs, const T* X, int ldx, const T* B, int ldb, T* R, int ldr) {
  return residual_(high_, *high_staging_, original_, n_, nrhs, X, ldx, B, ldb, R, ldr);
}

template <class T>
bool MixedDevice<T>::prepare_gmres() {
  if (wide_factors_.data()) return true;
  try {
    auto wide = high_.allocate(np_, np_);
    wide_work_ = high_.allocate(np_, 1), vector_ = high_.allocate(n_, 1), product_ = high_.allocate(n_, 1);
    zero_ = high_.allocate(n_, 1);
    wide_factors_ = std::move(wide);
  } catch (const DeviceOutOfMemory& e) {
    wide_work_ = vector_ = product_ = zero_ = {};
    note_ =
        std::string("GMRES-based refinement: the device cannot hold the single factors widened to double: ") + e.what();
    return false;
  }
  if (U_) wide_U_ = kernels::widened<T>(*U_), wide_V_ = kernels::widened<T>(*V_);
  const std::vector<T> zeros(n_, T(0));
  high_.copy_to_device(Queue::compute, n_, 1, zeros.data(), n_, zero_.data(), zero_.ld);
  high_.synchronize();  // `zeros` may go
  low_.synchronize();   // the factors, made on the single backend's queues, are final
  low_.widen_to_wide(Queue::compute, np_, np_, factors_.data(), factors_.ld, wide_factors_.data(), wide_factors_.ld);
  high_.wait(Queue::compute, low_.record(Queue::compute));
  high_.synchronize();
  return true;
}

template <class T>
void MixedDevice<T>::apply_preconditioned(const T* v, T* w) {
  high_staging_->to_device(Queue::to_device, n_, 1, v, n_, vector_.data(), vector_.ld);
  high_.wait(Queue::compute, high_.record(Queue::to_device));
  // product <- 0 - A v: Backend's GEMM subtracts; the sign is restored on the host.
  high_.copy_on_device(Queue::compute, n_, 1, zero_.data(), zero_.ld, product_.data(), product_.ld);
  high_.gemm_minus(Queue::compute, n_, 1, n_, original_.data(), original_.ld, vector_.data(), vector_.ld,
                   product_.data(), product_.ld);
  high_.wait(Queue::to_host, high_.record(Queue::compute));
  high_staging_->to_host(Queue::to_host, n_, 1, product_.data(), product_.ld, w, n_);
  high_.synchronize();
  high_staging_->finish_all();
  for (int i = 0; i < n_; ++i) w[i] = -w[i];
  precondition(w);
}

template <class T>
void MixedDevice<T>::precondition(T* w) {
  apply_inverse(high_, *high_staging_, wide_factors_, wide_work_, wide_U_, wide_V_, w, n_, 1, Transpose::no);
}

template class MixedDevice<double>;
template class MixedDevice<std::complex<double>>;

}  // namespace hetlu::variants
