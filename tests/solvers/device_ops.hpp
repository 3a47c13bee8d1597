// Backend operations whose answers the backend tests of every precision bring back to the host.
#pragma once

#include <memory>
#include <utility>
#include <vector>

#include "solvers/backend.hpp"
#include "solvers/scalar.hpp"

namespace hetlu::test_support {

// Round trip: the rows x cols `host` to the device, op(dev, device_matrix) on its compute queue,
// back to the host.
template <class T, class Op>
std::vector<T> round_trip(backends::Backend<T>& dev, std::vector<T> host, int rows, int cols, Op op) {
  using backends::Queue;
  auto d = dev.allocate(rows, cols);
  dev.copy_to_device(Queue::to_device, rows, cols, host.data(), rows, d.data(), d.ld);
  dev.wait(Queue::compute, dev.record(Queue::to_device));
  op(dev, d);
  dev.wait(Queue::to_host, dev.record(Queue::compute));
  dev.copy_to_host(Queue::to_host, rows, cols, d.data(), d.ld, host.data(), rows);
  dev.synchronize();
  return host;
}

// R = B - A X and each row's share of omega, W, as the device computes them (A n x n, X and B
// n x nrhs, all with leading dimension n).
template <class T>
std::pair<std::vector<T>, std::vector<T>> residual_on(backends::Backend<T>& dev, int n, int nrhs,
                                                      const std::vector<T>& A, const std::vector<T>& X,
                                                      const std::vector<T>& B) {
  using backends::Queue;
  auto dA = dev.allocate(n, n), dX = dev.allocate(n, nrhs), dR = dev.allocate(n, nrhs), dW = dev.allocate(n, nrhs);
  dev.copy_to_device(Queue::to_device, n, n, A.data(), n, dA.data(), dA.ld);
  dev.copy_to_device(Queue::to_device, n, nrhs, X.data(), n, dX.data(), dX.ld);
  dev.copy_to_device(Queue::to_device, n, nrhs, B.data(), n, dR.data(), dR.ld);
  dev.wait(Queue::compute, dev.record(Queue::to_device));
  dev.residual(Queue::compute, n, nrhs, dA.data(), dA.ld, dX.data(), dX.ld, dR.data(), dR.ld, dW.data(), dW.ld);
  dev.wait(Queue::to_host, dev.record(Queue::compute));
  std::vector<T> r(static_cast<std::size_t>(n) * nrhs), w(r.size());
  dev.copy_to_host(Queue::to_host, n, nrhs, dR.data(), dR.ld, r.data(), n);
  dev.copy_to_host(Queue::to_host, n, nrhs, dW.data(), dW.ld, w.data(), n);
  dev.synchronize();
  return {r, w};
}

// Backend::getrf_panel (with pivoting) of the m x n block at d (leading dimension ld), on the
// compute queue; its pivots into ipiv (n), its info returned.
template <class T>
int panel_lu_on(backends::Backend<T>& dev, int m, int n, T* d, int ld, std::vector<int>& ipiv) {
  using backends::Queue;
  auto ints = dev.allocate_ints(n + 1);
  auto staged = std::static_pointer_cast<int>(dev.allocate_pinned(sizeof(int) * (n + 1)));
  dev.getrf_panel(Queue::compute, m, n, d, ld, ints.get(), ints.get() + n, true);
  dev.copy_ints_to_host(Queue::compute, n + 1, ints.get(), staged.get());
  dev.synchronize();
  ipiv.assign(staged.get(), staged.get() + n);
  return staged.get()[n];
}

// Backend::widen_to_wide of `narrow` (ld x cols, of which the leading ld - 1 x cols - 1 block is
// widened) into a wide matrix of leading dimension ld + 3 preset to `unset`, brought back with
// leading dimension ld: the block holds each entry exactly, the rest `unset`.
template <class Low>
std::vector<scalar::wide_t<Low>> widened_on(BackendKind kind, const std::vector<Low>& narrow, int ld, int cols,
                                            scalar::wide_t<Low> unset) {
  using backends::Queue;
  using Wide = scalar::wide_t<Low>;
  auto& low = backends::backend<Low>(kind);
  auto& high = backends::backend<Wide>(kind);
  auto from = low.allocate(ld, cols);
  auto to = high.allocate(ld + 3, cols);  // another leading dimension than from's
  std::vector<Wide> out(static_cast<std::size_t>(ld) * cols, unset);
  low.copy_to_device(Queue::compute, ld, cols, narrow.data(), ld, from.data(), from.ld);
  high.copy_to_device(Queue::compute, ld, cols, out.data(), ld, to.data(), to.ld);
  low.wait(Queue::compute, high.record(Queue::compute));
  low.widen_to_wide(Queue::compute, ld - 1, cols - 1, from.data(), from.ld, to.data(), to.ld);
  high.wait(Queue::compute, low.record(Queue::compute));
  high.copy_to_host(Queue::compute, ld, cols, to.data(), to.ld, out.data(), ld);
  high.synchronize();
  low.synchronize();
  return out;
}

}  // namespace hetlu::test_support
