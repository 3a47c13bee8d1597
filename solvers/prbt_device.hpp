// PRBT on the device (the hybrid target). The caller's matrix crosses the link once, straight from
// its memory (the zero-line checks, finiteness and ||A||_1 read each column as the upload packs
// it), and is padded with the identity there. On the device
// one copy stays as it is, for refinement's residuals, and a second is randomized (U^T A V) and
// factored by hybrid GENP, with the panel on the CPUs or on the device as the plan says. The
// factors stay in device memory: the triangular solves and the residuals run there too. Only
// right-hand sides, solutions and residuals cross the link, O(n nrhs) a step, and the butterflies
// on them are applied on the host, where they are O(n nrhs) as well.
//
// When device memory holds only one copy, the factors come back to the host and the solve and
// refinement run on the CPUs (solves_on_device() is false; note() says why).
//
// The object holds the backend's lock from construction to destruction: nothing else may run a
// hybrid solve on it meanwhile (a fallback to GEPP waits until the object is gone).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "solvers/backend.hpp"
#include "solvers/butterfly.hpp"
#include "solvers/device_refinement.hpp"
#include "solvers/staging.hpp"

namespace hetlu::variants {

// diag(A, s I)'s padding of the np x np device matrix M whose leading n x n block holds A, queued
// through `staging` on the upload queue: the rows below A zero, the columns right of it s I's
// (np - n < 4 of each), s = padding_value_as<T> of the caller's A (lda), read only where np > n.
template <class T, class Source>
void upload_padding(backends::Staging<T>& staging, int n, int np, const Source* A, int lda,
                    const backends::DeviceMatrix<T>& M) {
  const int pad = np - n;
  if (pad <= 0) return;
  std::vector<T> zeros(static_cast<std::size_t>(pad) * n, T(0)), identity(static_cast<std::size_t>(np) * pad, T(0));
  const T s = kernels::padding_value_as<T>(n, A, lda);
  for (int c = 0; c < pad; ++c) identity[n + c + static_cast<std::size_t>(c) * np] = s;
  staging.to_device(backends::Queue::to_device, pad, n, zeros.data(), pad, M.at(n, 0), M.ld);
  staging.to_device(backends::Queue::to_device, np, pad, identity.data(), np, M.at(0, n), M.ld);
}

template <class T>
class PrbtDevice {
 public:
  // A: the caller's n x n matrix, which goes up as it is, padded on the device with the identity
  // to np x np (np a multiple of 4); Ar: np x np host workspace for the driver (it holds the
  // factors when they come back to the host), never read.
  PrbtDevice(const Plan& plan, int n, const T* A, int lda, int np, T* Ar, int ldar, const kernels::Butterfly<T>& U,
             const kernels::Butterfly<T>& V);
  PrbtDevice(const PrbtDevice&) = delete;
  PrbtDevice& operator=(const PrbtDevice&) = delete;

  // Sends the matrix to the device and randomizes it there (copies and allocations included); each
  // column of A into `scan` as the upload packs it. nrhs: the right-hand sides the solves will take,
  // whose device buffers are had now or the solves run on the CPUs.
  void upload_and_randomize(kernels::LineScan<T>* scan, int nrhs);
  // Hybrid GENP of the randomized matrix; returns the first exactly-zero pivot, or 0.
  int factor();

  bool solves_on_device() const { return original_.data() != nullptr; }
  const std::string& note() const { return note_; }

  // W <- (L U)^-1 W (trans = yes: (L U)^-T W) for the np x nrhs W in host memory, with the factors
  // on the device.
  void triangular_solves(int nrhs, T* W, int ldw, Transpose trans = Transpose::no);

  // refine()'s residual: R <- B - A X for the leading n x n block of the matrix kept on the device
  // (the original A); returns the componentwise backward error.
  double residual(int n, int nrhs, const T* X, int ldx, const T* B, int ldb, T* R, int ldr);

 private:
  const Plan plan_;
  const int n_;
  const T* A_;
  const int lda_;
  const int np_;
  T* Ar_;
  const int ldar_;
  const kernels::Butterfly<T>&U_, &V_;
  std::vector<std::unique_lock<std::mutex>> lock_;
  backends::Backend<T>& device_;
  backends::DeviceMatrix<T> factors_, original_;
  backends::DeviceMatrix<T> solve_work_;  // had at upload for the right-hand sides
  DeviceResidual<T> residual_;
  std::string note_;
  // Every copy between host and device goes through these slots (np rows, a block column wide);
  // last, so that it waits for the device before the device memory above goes.
  std::unique_ptr<backends::Staging<T>> staging_;
};

}  // namespace hetlu::variants
