// Mixed precision on one device (#15 item 5): the single factors and A in double both stay in the
// device's memory, as PRBT's factors and A do (prbt_device.hpp), so that a refinement step moves
// O(n nrhs) across the link. Before, the single factors came back (n^2 single) and the CPUs read
// them and A (n^2 double) at every step: on the H100 machine a mixed solve at n = 16384 took 1.51 s
// against 0.28 s for the hybrid double solve (bench/results/2026-11-26-h100-session25.md).
//   - The host rounds A to single (mixed_gesv.cpp's pass, which also checks A and takes its norms),
//     and hybrid GEPP or CALU factors that copy as the plan says, the factors left on the device
//     (HybridLu::leave_factors_on_device); the pivots come back.
//   - A in double goes up beside the factorization, from a second host thread through its own
//     staging slots on the double backend's queues (the single factorization's upload and steps run
//     on the single backend's).
//   - A correction: the right-hand sides permuted on the host, up in single, two TRSMs, back. A
//     residual: X and B up in double, Backend::residual (R and each row's share of omega), back.
// Where the device cannot hold A in double, the single factors and the refinement's buffers together,
// factor() returns nothing and note() says why: the caller factors as before and refines on the CPUs. GMRES-based
// refinement is not run on the device path (it needs the factors widened to double and a GEMV with A per iteration,
// which on the CPUs cost more than the double hybrid solve it would save): the double solver answers where classical
// refinement stalls.
//
// The object holds the device's lock from construction to destruction: nothing else may run a
// hybrid solve on it meanwhile (the double solver's fallback waits until the object is gone).
#pragma once

#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "hetlu/types.hpp"
#include "solvers/backend.hpp"
#include "solvers/device_refinement.hpp"
#include "solvers/scalar.hpp"
#include "solvers/staging.hpp"

namespace hetlu::variants {

template <class T>  // double or complex<double>
class MixedDevice {
 public:
  using Low = scalar::low_t<T>;

  // Whether a mixed solve at low_plan refines on its device: the hybrid target on one device, GEPP
  // or CALU (PRBT's single factors are made on the CPU target only: lu_factors.hpp).
  static bool applies(const Plan& low_plan);

  // A: the caller's n x n matrix (lda), read by the upload until factor() returns.
  MixedDevice(const Plan& low_plan, int n, const T* A, int lda);
  ~MixedDevice();
  MixedDevice(const MixedDevice&) = delete;
  MixedDevice& operator=(const MixedDevice&) = delete;

  // Factors `a` (n x n, leading dimension n: A rounded to single; the factorization's workspace from
  // here) on the device while A goes up, the pivots into ipiv, and takes the device buffers that
  // refinement of nrhs right-hand sides needs. Returns the single factorization's LAPACK info, or
  // nothing where the device cannot hold all of it (note() says why; `a` is then to be rounded
  // again, since the factorization may have begun).
  std::optional<int> factor(Low* a, int* ipiv, int nrhs);
  const std::string& note() const { return note_; }

  // W <- (P^T L U)^-1 W (trans: its transpose or conjugate transpose) for the n x ncols W in host
  // memory, with the single factors on the device.
  void solve(Low* W, int ldw, int ncols, Transpose trans = Transpose::no);
  // R <- B - A X with A in double on the device; returns the componentwise backward error of X.
  double residual(int nrhs, const T* X, int ldx, const T* B, int ldb, T* R, int ldr);

 private:
  void upload_matrix();

  const Plan plan_;
  const int n_;
  const T* A_;
  const int lda_;
  std::vector<int> ipiv_;
  std::vector<std::unique_lock<std::mutex>> lock_;
  backends::Backend<Low>& low_;
  backends::Backend<T>& high_;
  backends::DeviceMatrix<Low> factors_, solve_work_;
  backends::DeviceMatrix<T> original_;
  DeviceResidual<T> residual_;
  std::string note_;
  // Every copy goes through these slots; last but the upload, so that they wait for the device
  // before the device memory above goes.
  std::unique_ptr<backends::Staging<Low>> low_staging_;
  std::unique_ptr<backends::Staging<T>> high_staging_;
  std::future<void> upload_;  // A in double on its way up; waited for before anything above goes
};

}  // namespace hetlu::variants
