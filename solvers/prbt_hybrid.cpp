// PRBT on the device; see prbt_device.hpp.
#include <algorithm>
#include <complex>

#include "hetlu/detail/staging_slot.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/device_refinement.hpp"
#include "solvers/hybrid_lu.hpp"
#include "solvers/prbt_device.hpp"

namespace hetlu::variants {

using backends::Queue;

template <class T>
PrbtDevice<T>::PrbtDevice(const Plan& plan, int n, const T* A, int lda, int np, T* Ar, int ldar,
                          const kernels::Butterfly<T>& U, const kernels::Butterfly<T>& V)
    : plan_(plan),
      n_(n),
      A_(A),
      lda_(lda),
      np_(np),
      Ar_(Ar),
      ldar_(ldar),
      U_(U),
      V_(V),
      lock_(backends::lock_devices(plan.devices)),
      device_(backends::backend<T>(plan.devices.front())) {}

template <class T>
void PrbtDevice<T>::upload_and_randomize(kernels::LineScan<T>* scan, int nrhs) {
  factors_ = device_.allocate(np_, np_);
  try {
    original_ = device_.allocate(np_, np_);
    // The solves' and refinement's buffers now: where they cannot be had, the factors come back
    // and the CPUs solve (once the factors stayed, the CPUs could only start over).
    residual_.reserve(device_, n_, std::max(1, nrhs));
    solve_work_ = device_.allocate(np_, std::max(1, nrhs));
  } catch (const DeviceOutOfMemory& e) {
    original_ = {};
    solve_work_ = {};
    residual_ = {};
    note_ = std::string("solve and refinement on the CPUs: ") + e.what();
  }
  auto* first = solves_on_device() ? &original_ : &factors_;
  staging_ = std::make_unique<backends::Staging<T>>(
      device_, np_, detail::staging_slot_columns(np_, np_, plan_.nb, plan_.cpu_block_columns > 0, sizeof(T)));
  try {
    // A as it is, then diag(A, s I)'s padding.
    staging_->to_device(Queue::to_device, n_, n_, A_, lda_, first->data(), first->ld, [scan](int j, const T* x, int) {
      scan->column(j, x);
      return true;
    });
    upload_padding(*staging_, n_, np_, A_, lda_, *first);
    device_.wait(Queue::compute, device_.record(Queue::to_device));
    if (solves_on_device())
      device_.copy_on_device(Queue::compute, np_, np_, original_.data(), original_.ld, factors_.data(), factors_.ld);
    device_.butterflies_two_sided(Queue::compute, np_, U_.values.data(), V_.values.data(), factors_.data(),
                                  factors_.ld);
    device_.synchronize();  // Ar (host) is the driver's workspace from here on
  } catch (...) {
    try {  // nothing may still read Ar once this throws
      device_.synchronize();
    } catch (...) {
    }
    throw;
  }
}

template <class T>
int PrbtDevice<T>::factor() {
  std::vector<int> identity(np_);
  HybridLu<T, decltype(&genp_panel<T>)> lu(device_, Matrix<T>{np_, np_, ldar_, Ar_}, plan_.nb, plan_.cpu_block_columns,
                                           identity.data(), /*pivoting=*/false, genp_panel<T>, &factors_,
                                           staging_.get());
  if (solves_on_device()) lu.leave_factors_on_device();
  return lu.run();
}

template <class T>
void PrbtDevice<T>::triangular_solves(int nrhs, T* W, int ldw, Transpose trans) {
  solve_with_device_factors(device_, *staging_, factors_, np_, nrhs, W, ldw, trans, solve_work_);
}

template <class T>
double PrbtDevice<T>::residual(int n, int nrhs, const T* X, int ldx, const T* B, int ldb, T* R, int ldr) {
  return residual_(device_, *staging_, original_, n, nrhs, X, ldx, B, ldb, R, ldr);
}

template class PrbtDevice<float>;
template class PrbtDevice<double>;
template class PrbtDevice<std::complex<float>>;
template class PrbtDevice<std::complex<double>>;

}  // namespace hetlu::variants
