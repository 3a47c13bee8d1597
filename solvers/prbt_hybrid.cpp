// PRBT on the device; see prbt_device.hpp.
#include <algorithm>
#include <complex>

#include "hetlu/detail/staging_slot.hpp"
#include "solvers/accuracy.hpp"
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
void PrbtDevice<T>::upload_and_randomize() {
  factors_ = device_.allocate(np_, np_);
  try {
    original_ = device_.allocate(np_, np_);
  } catch (const DeviceOutOfMemory& e) {
    note_ = std::string("solve and refinement on the CPUs: ") + e.what();
  }
  auto* first = solves_on_device() ? &original_ : &factors_;
  staging_ = std::make_unique<backends::Staging<T>>(
      device_, np_, detail::staging_slot_columns(np_, np_, plan_.nb, plan_.cpu_block_columns > 0, sizeof(T)));
  try {
    // A as it is, then diag(A, s I)'s padding (kernels::padding_value): the rows below A zero, the
    // columns right of it s I's (np - n < 4 of each).
    staging_->to_device(Queue::to_device, n_, n_, A_, lda_, first->data(), first->ld);
    if (const int pad = np_ - n_; pad > 0) {
      std::vector<T> zeros(static_cast<std::size_t>(pad) * n_, T(0)),
          identity(static_cast<std::size_t>(np_) * pad, T(0));
      const T s = kernels::padding_value(n_, A_, lda_);
      for (int c = 0; c < pad; ++c) identity[n_ + c + static_cast<std::size_t>(c) * np_] = s;
      staging_->to_device(Queue::to_device, pad, n_, zeros.data(), pad, first->at(n_, 0), first->ld);
      staging_->to_device(Queue::to_device, np_, pad, identity.data(), np_, first->at(0, n_), first->ld);
    }
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
  if (solve_work_.cols != nrhs) solve_work_ = device_.allocate(np_, nrhs);
  auto& w = solve_work_;
  staging_->to_device(Queue::to_device, np_, nrhs, W, ldw, w.data(), w.ld);
  device_.wait(Queue::compute, device_.record(Queue::to_device));
  if (trans == Transpose::no) {
    device_.trsm_lower_unit(Queue::compute, np_, nrhs, factors_.data(), factors_.ld, w.data(), w.ld);
    device_.trsm_upper(Queue::compute, np_, nrhs, factors_.data(), factors_.ld, w.data(), w.ld);
  } else {
    device_.trsm_upper(Queue::compute, np_, nrhs, factors_.data(), factors_.ld, w.data(), w.ld, trans);
    device_.trsm_lower_unit(Queue::compute, np_, nrhs, factors_.data(), factors_.ld, w.data(), w.ld, trans);
  }
  device_.wait(Queue::to_host, device_.record(Queue::compute));
  staging_->to_host(Queue::to_host, np_, nrhs, w.data(), w.ld, W, ldw);
  device_.synchronize();
  staging_->finish_all();
}

template <class T>
double PrbtDevice<T>::residual(int n, int nrhs, const T* X, int ldx, const T* B, int ldb, T* R, int ldr) {
  if (x_.cols != nrhs) {
    x_ = device_.allocate(n, nrhs), r_ = device_.allocate(n, nrhs), w_ = device_.allocate(n, nrhs);
    row_shares_.resize(static_cast<std::size_t>(std::max(1, n)) * nrhs);
  }
  const int ldw = std::max(1, n);
  staging_->to_device(Queue::to_device, n, nrhs, X, ldx, x_.data(), x_.ld);
  staging_->to_device(Queue::to_device, n, nrhs, B, ldb, r_.data(), r_.ld);
  device_.wait(Queue::compute, device_.record(Queue::to_device));
  device_.residual(Queue::compute, n, nrhs, original_.data(), original_.ld, x_.data(), x_.ld, r_.data(), r_.ld,
                   w_.data(), w_.ld);
  device_.wait(Queue::to_host, device_.record(Queue::compute));
  staging_->to_host(Queue::to_host, n, nrhs, r_.data(), r_.ld, R, ldr);
  staging_->to_host(Queue::to_host, n, nrhs, w_.data(), w_.ld, row_shares_.data(), ldw);
  device_.synchronize();
  staging_->finish_all();
  return accuracy::largest_row_omega(n, nrhs, row_shares_.data(), ldw);
}

template class PrbtDevice<float>;
template class PrbtDevice<double>;
template class PrbtDevice<std::complex<float>>;
template class PrbtDevice<std::complex<double>>;

}  // namespace hetlu::variants
