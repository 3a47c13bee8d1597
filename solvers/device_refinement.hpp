// The two steps of refinement with the factors and A in device memory, shared by PRBT's device path
// (prbt_device.hpp) and mixed precision's (mixed_device.hpp): only right-hand sides, solutions and
// residuals cross the link, O(n nrhs) a step, each through the caller's staging slots.
#pragma once

#include <algorithm>
#include <vector>

#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/staging.hpp"

namespace hetlu::variants {

// W <- (L U)^-1 W (trans: (L U)^-T or ^-H) for the n x ncols W in host memory, with L (unit lower)
// and U on the device; `work` (n rows) grows to ncols columns where it has fewer, never shrinks: a
// condition estimate's single columns between B's steps allocate (and cudaFree waits) nothing.
template <class T>
void solve_with_device_factors(backends::Backend<T>& device, backends::Staging<T>& staging,
                               const backends::DeviceMatrix<T>& LU, int n, int ncols, T* W, int ldw, Transpose trans,
                               backends::DeviceMatrix<T>& work) {
  using backends::Queue;
  if (n == 0 || ncols == 0) return;
  if (work.cols < ncols || work.rows != n) work = device.allocate(n, ncols);
  staging.to_device(Queue::to_device, n, ncols, W, ldw, work.data(), work.ld);
  device.wait(Queue::compute, device.record(Queue::to_device));
  if (trans == Transpose::no) {
    device.trsm_lower_unit(Queue::compute, n, ncols, LU.data(), LU.ld, work.data(), work.ld);
    device.trsm_upper(Queue::compute, n, ncols, LU.data(), LU.ld, work.data(), work.ld);
  } else {  // (L U)^-T = L^-T U^-T: U's first
    device.trsm_upper(Queue::compute, n, ncols, LU.data(), LU.ld, work.data(), work.ld, trans);
    device.trsm_lower_unit(Queue::compute, n, ncols, LU.data(), LU.ld, work.data(), work.ld, trans);
  }
  device.wait(Queue::to_host, device.record(Queue::compute));
  staging.to_host(Queue::to_host, n, ncols, work.data(), work.ld, W, ldw);
  device.synchronize();
  staging.finish_all();
}

// R <- B - A X for the leading n x n block of A in device memory; returns the componentwise
// backward error of X. Its device buffers grow to the widest nrhs asked and stay.
template <class T>
class DeviceResidual {
 public:
  // Device buffers for n x nrhs now: where they cannot be had, DeviceOutOfMemory before any step.
  void reserve(backends::Backend<T>& device, int n, int nrhs) {
    if (x_.cols >= nrhs && x_.rows == n) return;
    x_ = device.allocate(n, nrhs), r_ = device.allocate(n, nrhs), w_ = device.allocate(n, nrhs);
    row_shares_.resize(static_cast<std::size_t>(std::max(1, n)) * nrhs);
  }

  double operator()(backends::Backend<T>& device, backends::Staging<T>& staging, const backends::DeviceMatrix<T>& A,
                    int n, int nrhs, const T* X, int ldx, const T* B, int ldb, T* R, int ldr) {
    using backends::Queue;
    reserve(device, n, nrhs);
    const int ldw = std::max(1, n);
    staging.to_device(Queue::to_device, n, nrhs, X, ldx, x_.data(), x_.ld);
    staging.to_device(Queue::to_device, n, nrhs, B, ldb, r_.data(), r_.ld);
    device.wait(Queue::compute, device.record(Queue::to_device));
    device.residual(Queue::compute, n, nrhs, A.data(), A.ld, x_.data(), x_.ld, r_.data(), r_.ld, w_.data(), w_.ld);
    device.wait(Queue::to_host, device.record(Queue::compute));
    staging.to_host(Queue::to_host, n, nrhs, r_.data(), r_.ld, R, ldr);
    staging.to_host(Queue::to_host, n, nrhs, w_.data(), w_.ld, row_shares_.data(), ldw);
    device.synchronize();
    staging.finish_all();
    return accuracy::largest_row_omega(n, nrhs, row_shares_.data(), ldw);
  }

 private:
  backends::DeviceMatrix<T> x_, r_, w_;
  std::vector<T> row_shares_;
};

}  // namespace hetlu::variants
