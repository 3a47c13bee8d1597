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
//   - PRBT: A goes up whole, in double (the packing checks it, takes its norms and finds exactly
//     zero rows and columns), the device rounds it to single, pads it to diag(A, s I) and randomizes
//     it (U^T A V, Backend::butterflies_two_sided), and hybrid GENP factors it at the plan's d, with
//     no interchanges to make. A correction: U^T on the host (O(n)), the two TRSMs on the device,
//     V on the host. GENP's growth in single costs more refinement steps than GEPP's (README).
// Where the device cannot hold A in double, the single factors and the refinement's buffers together,
// factor() returns nothing and note() says why: the caller factors as before and refines on the CPUs.
//   - GMRES-based refinement, where classical refinement stalls (mixed_gesv.cpp: with LAPACK's test
//     alone, as the drop-in's dsgesv_ asks; hetlu's certificate, PRBT's always, hands a stall to the
//     double solver), runs here too: the single factors are widened to double where they lie
//     (Backend::widen_to_wide, once, n^2 doubles more of device memory), and each GMRES iteration
//     computes A v on the device (a GEMV with A in double) and brings it back, then applies M^-1 as a
//     correction does, in double: P or the butterflies on the host (O(n)), the two triangular solves
//     on the device. The CPUs would read A and the widened factors (16 n^2 bytes) per iteration; the
//     device reads them at its memory's rate, and only vectors cross the link. Where TF32's or
//     single's factors are too coarse for classical refinement (kappa(A) u_low near 1: random
//     matrices of order 16384 with TF32 stalled in 2026-11-26's run), Carson and Higham's analysis has
//     GMRES converge far beyond; on a GPU that is not yet measured (device_run.sh's tf32_random). Where
//     the device cannot hold the widened factors, prepare_gmres() says why and the double solver answers.
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
#include "solvers/butterfly.hpp"
#include "solvers/device_refinement.hpp"
#include "solvers/rounding_scan.hpp"
#include "solvers/scalar.hpp"
#include "solvers/staging.hpp"

namespace hetlu::variants {

template <class T>  // double or complex<double>
class MixedDevice {
 public:
  using Low = scalar::low_t<T>;

  // Whether a mixed solve at low_plan refines on its device: the hybrid target on one device.
  static bool applies(const Plan& low_plan);
  // Whether A goes up in double and the device rounds it (factor(nullptr, ...)): GEPP and CALU at
  // d = 0, PRBT always.
  static bool rounds_on_device(const Plan& low_plan);

  // A: the caller's n x n matrix (lda), read by the upload until factor() returns.
  MixedDevice(const Plan& low_plan, int n, const T* A, int lda);
  ~MixedDevice();
  MixedDevice(const MixedDevice&) = delete;
  MixedDevice& operator=(const MixedDevice&) = delete;

  // Factors A in single on the device and takes the device buffers that refinement of nrhs
  // right-hand sides needs; the pivots (PRBT: the identity) stay here (pivots()) until the caller
  // takes them. PRBT's info is positive also where A has an exactly zero row or column. `a`: A
  // rounded to single by the host (n x n, leading dimension n; the factorization's workspace from
  // here), or null where rounds_on_device: A then goes up in double and is rounded there, scan()
  // holds what its packing found, and with check finite an entry that is not finite throws
  // (checks::finite's error) before any column past it goes up; an entry beyond single's range
  // stops the factorization there (scan().fits false, its norms of the whole of A: the caller answers
  // ITER -2, whatever info says; with check finite, the whole of A was checked first). Returns the single
  // factorization's LAPACK info, or nothing where the device cannot hold all of it (note() says why; a host copy in `a`
  // is then to be rounded again, since the factorization may have begun).
  std::optional<int> factor(Low* a, int nrhs, InputCheck check = InputCheck::none);
  const std::vector<int>& pivots() const { return ipiv_; }
  const kernels::RoundedMatrix& scan() const { return scanned_; }
  bool randomized() const { return U_.has_value(); }  // PRBT's butterflies and GENP
  const std::string& note() const { return note_; }

  // W <- M^-1 W (trans: M^-T, M^-H) for the n x ncols W in host memory, M the single factors on the
  // device: P^T L U, or PRBT's U^-T L U V^-1.
  void solve(Low* W, int ldw, int ncols, Transpose trans = Transpose::no);
  // R <- B - A X with A in double on the device; returns the componentwise backward error of X.
  double residual(int nrhs, const T* X, int ldx, const T* B, int ldb, T* R, int ldr);

  // GMRES-based refinement's operators, with M the single factors applied in double. prepare_gmres()
  // first: it widens the factors on the device, once; false where the device cannot hold them
  // (note() says why; nothing else changed).
  bool prepare_gmres();
  // w <- M^-1 A v (n values each, host memory; v and w may be the same).
  void apply_preconditioned(const T* v, T* w);
  // w <- M^-1 w.
  void precondition(T* w);

 private:
  void upload_matrix();
  // HybridLu's column source where the device rounds: columns [c0, c0 + cols) of A up in double
  // (into original_) and rounded into `device`.
  void upload_and_round(int c0, int cols, Low* device, int ldd, InputCheck check);
  // PRBT's factor(): A up, rounded, padded, randomized and factored by GENP on the device.
  int factor_randomized(InputCheck check);
  // W <- M^-1 W in F (Low: the factors; T: widened), with `device`'s factors and staging slots.
  template <class F>
  void apply_inverse(backends::Backend<F>& device, backends::Staging<F>& staging,
                     const backends::DeviceMatrix<F>& factors, backends::DeviceMatrix<F>& work,
                     const std::optional<kernels::Butterfly<F>>& U, const std::optional<kernels::Butterfly<F>>& V, F* W,
                     int ldw, int ncols, Transpose trans);

  const Plan plan_;
  const int n_;
  const int np_;  // the factors' order: n, or PRBT's padded order
  const T* A_;
  const int lda_;
  std::vector<int> ipiv_;
  std::vector<std::unique_lock<std::mutex>> lock_;
  backends::Backend<Low>& low_;
  backends::Backend<T>& high_;
  backends::DeviceMatrix<Low> factors_, solve_work_;
  backends::DeviceMatrix<T> original_;
  std::optional<kernels::Butterfly<Low>> U_, V_;  // PRBT's, the same as its CPU path's (Butterfly::prbt_left)
  // prepare_gmres(): the factors and butterflies in double, a solve's work, v, A v, and a zero vector.
  backends::DeviceMatrix<T> wide_factors_, wide_work_, vector_, product_, zero_;
  std::optional<kernels::Butterfly<T>> wide_U_, wide_V_;
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
