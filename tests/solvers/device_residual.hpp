// Backend::residual's answer brought back to the host, for the backend tests of every precision.
#pragma once

#include <utility>
#include <vector>

#include "solvers/backend.hpp"

namespace hetlu::test_support {

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

}  // namespace hetlu::test_support
