// Mixed precision on one device; see mixed_device.hpp.
#include "solvers/mixed_device.hpp"

#include <omp.h>

#include <algorithm>
#include <complex>
#include <cstdlib>
#include <string>

#include "hetlu/detail/staging_slot.hpp"
#include "solvers/checks.hpp"
#include "solvers/device_refinement.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/hybrid_lu.hpp"
#include "solvers/hybrid_panels.hpp"

namespace hetlu::variants {

using backends::Queue;

template <class T>
bool MixedDevice<T>::applies(const Plan& low_plan) {
  return low_plan.target == Target::hybrid && low_plan.devices.size() == 1 && low_plan.solver != Solver::prbt;
}

template <class T>
bool MixedDevice<T>::rounds_on_device(const Plan& low_plan) {
  // HETLU_MIXED_ROUNDING=host (read once; default unset: on the device): the host rounds A, as with
  // d > 0, to time the two ways in one run (device_run.sh's mixed_host_rounding stage).
  static const bool host_rounds = [] {
    const char* value = std::getenv("HETLU_MIXED_ROUNDING");
    return value && std::string(value) == "host";
  }();
  return applies(low_plan) && low_plan.cpu_block_columns == 0 && !host_rounds;
}

template <class T>
MixedDevice<T>::MixedDevice(const Plan& low_plan, int n, const T* A, int lda)
    : plan_(low_plan),
      n_(n),
      A_(A),
      lda_(lda),
      lock_((checks::plan(low_plan), backends::lock_devices(low_plan.devices))),
      low_(backends::backend<Low>(low_plan.devices.front())),
      high_(backends::backend<T>(low_plan.devices.front())) {}

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
std::optional<int> MixedDevice<T>::factor(Low* a, int nrhs, InputCheck check) {
  const int nb = panel_width_within(plan_.nb, n_, n_);
  const bool per_step = plan_.cpu_block_columns > 0;
  const bool round_here = a == nullptr;
  if (round_here && !rounds_on_device(plan_))
    throw InvalidArgument("mixed precision: A is rounded on the device only with the panel there (d = 0)");
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
    // freed) before A's upload begins, so that a device too small for it is known at once.
    original_ = high_.allocate(n_, n_);
    residual_.reserve(high_, n_, std::max(1, nrhs));
    solve_work_ = low_.allocate(n_, std::max(1, nrhs));
    low_.allocate(n_, n_);
    high_staging_ = std::make_unique<backends::Staging<T>>(
        high_, n_, detail::staging_slot_columns(n_, n_, nb, /*per_step=*/false, sizeof(T)));
    low_staging_ = std::make_unique<backends::Staging<Low>>(
        low_, n_, detail::staging_slot_columns(n_, n_, nb, per_step, sizeof(Low)));
  } catch (const DeviceOutOfMemory& e) {
    return out_of_memory(e);
  }
  if (round_here)
    scan_ = std::make_unique<kernels::RoundingScan<T>>(n_);
  else
    upload_ = std::async(std::launch::async, [this] { upload_matrix(); });
  try {
    ipiv_.assign(n_, 0);
    const int info = with_hybrid_panel<Low>(plan_, [&](auto panel) {
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
    // HybridLu waited for the device. The packing read A only up to the entry: ||A||_1, which the
    // double solver's condition estimate takes, from a pass over the whole of it (with the columns
    // not sent, the estimate was up to n times too large, and "singular to working precision" unsaid).
    scanned_ = kernels::scan_matrix(n_, A_, lda_);
    return 0;
  }
}

template <class T>
void MixedDevice<T>::solve(Low* W, int ldw, int ncols, Transpose trans) {
  if (n_ == 0 || ncols == 0) return;
  // A = P^T L U: P's interchanges on the host (O(n ncols)), the triangles on the device.
  if (trans == Transpose::no) kernels::laswp(ncols, W, ldw, 0, n_, ipiv_.data());
  solve_with_device_factors(low_, *low_staging_, factors_, n_, ncols, W, ldw, trans, solve_work_);
  if (trans != Transpose::no) kernels::laswp_reverse(ncols, W, ldw, 0, n_, ipiv_.data());
}

template <class T>
double MixedDevice<T>::residual(int nrhs, const T* X, int ldx, const T* B, int ldb, T* R, int ldr) {
  return residual_(high_, *high_staging_, original_, n_, nrhs, X, ldx, B, ldb, R, ldr);
}

template class MixedDevice<double>;
template class MixedDevice<std::complex<double>>;

}  // namespace hetlu::variants
