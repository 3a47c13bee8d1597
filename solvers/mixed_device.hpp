// Mixed precision on one device (#15 item 5): the single factors and A in double both stay in the
// device's memory, as PRBT's factors and A do (prbt_device.hpp), so that a refinement step moves
// O(n nrhs) across the link. Before, the single factors came back (n^2 single) and the CPUs read
// them and A (n^2 double) at every step: on the H100 machine a mixed solve at n = 16384 took 1.51 s
// against 0.28 s for the hybrid double solve (bench/results/2026-11-26-h100-session25.md).
//   - With the panel on the device (d = 0), A goes up once, in double, beside the factorization's
//     first steps (HybridLu::upload_from), and each batch is rounded to single where it lands
//     (Backend::round_from_wide): the host only packs A into its staging slots, and the input check
//     and the refinement's norms ride on that packing (kernels::RoundingScan). Before, the host
//     rounded A in a pass of its own (0.38 s of a 1.38 s solve at n = 32768 on the H100) and both
//     copies crossed the link.
//   - With d > 0 the CPUs factor panels from host memory: the host rounds A to single (mixed_gesv.cpp's
//     pass, which also checks A and takes its norms), hybrid GEPP or CALU factors that copy as the
//     plan says, and A in double goes up beside the factorization, from a second host thread through
//     its own staging slots on the double backend's queues (the single factorization's upload and
//     steps run on the single backend's).
//   - Either way the factors stay on the device (HybridLu::leave_factors_on_device) and the pivots
//     come back.
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
#include "solvers/rounding_scan.hpp"
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
  // Whether A goes up in double and the device rounds it (d = 0; factor(nullptr, ...)).
  static bool rounds_on_device(const Plan& low_plan);

  // A: the caller's n x n matrix (lda), read by the upload until factor() returns.
  MixedDevice(const Plan& low_plan, int n, const T* A, int lda);
  ~MixedDevice();
  MixedDevice(const MixedDevice&) = delete;
  MixedDevice& operator=(const MixedDevice&) = delete;

  // Factors A in single on the device and takes the device buffers that refinement of nrhs
  // right-hand sides needs; the pivots stay here (pivots()) until the caller takes them. `a`: A
  // rounded to single by the host (n x n, leading dimension n; the factorization's workspace from
  // here), or null where rounds_on_device: A then goes up in double and is rounded there, scan()
  // holds what its packing found, and with check finite an entry that is not finite throws
  // (checks::finite's error) before any column past it goes up; an entry beyond single's range
  // stops the factorization there (scan().fits false, its norms of the whole of A: the caller answers
  // ITER -2, whatever info says; with check finite, the whole of A was checked first). Returns the single factorization's
  // LAPACK info, or nothing where the device cannot hold all of it (note() says why; a host copy in
  // `a` is then to be rounded again, since the factorization may have begun).
  std::optional<int> factor(Low* a, int nrhs, InputCheck check = InputCheck::none);
  const std::vector<int>& pivots() const { return ipiv_; }
  const kernels::RoundedMatrix& scan() const { return scanned_; }
  const std::string& note() const { return note_; }

  // W <- (P^T L U)^-1 W (trans: its transpose or conjugate transpose) for the n x ncols W in host
  // memory, with the single factors on the device.
  void solve(Low* W, int ldw, int ncols, Transpose trans = Transpose::no);
  // R <- B - A X with A in double on the device; returns the componentwise backward error of X.
  double residual(int nrhs, const T* X, int ldx, const T* B, int ldb, T* R, int ldr);

 private:
  void upload_matrix();
  // HybridLu's column source where the device rounds: columns [c0, c0 + cols) of A up in double
  // (into original_) and rounded into `device`.
  void upload_and_round(int c0, int cols, Low* device, int ldd, InputCheck check);

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
  std::unique_ptr<kernels::RoundingScan<T>> scan_;  // the packing's, where the device rounds
  kernels::RoundedMatrix scanned_;
  // Every copy goes through these slots; last but the upload, so that they wait for the device
  // before the device memory above goes.
  std::unique_ptr<backends::Staging<Low>> low_staging_;
  std::unique_ptr<backends::Staging<T>> high_staging_;
  std::future<void> upload_;  // A in double on its way up; waited for before anything above goes
};

}  // namespace hetlu::variants
