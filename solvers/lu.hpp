// Front ends of the LU solvers: check arguments, then dispatch on the plan's solver and target.
// Column-major storage, LAPACK conventions: ipiv is 1-based, info > 0 is the 1-based index of the
// first exactly-zero pivot (the factorization is finished anyway, U is singular).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetlu/types.hpp"
#include "solvers/scaled_norm.hpp"

namespace hetlu {

namespace backends {
template <class T>
class Backend;
}  // namespace backends

// How busy each processor of a hybrid factorization was: the wall-clock time, and each one's busy
// time (the CPUs first, then each device in the plan's order) with the block columns dealt to it
// (the CPUs: their d). The average idle ratio is heterogeneous-column-block §4's balance metric.
struct ProcessorLoad {
  std::string name;
  int block_columns = 0;
  double busy_seconds = 0;
};
struct LoadBalance {
  double seconds = 0;
  std::vector<ProcessorLoad> processors;
  // The panel on the one device (d = 0): where the device's time went, from timed events in its
  // queues ("upload, beside the first steps", "factorization", "download after it"), and the host's own
  // share before and after them ("host: ..."); empty otherwise.
  std::vector<std::pair<std::string, double>> phases;
  // The mean over the processors of (seconds - busy) / seconds; 0 without a time.
  double average_idle_ratio() const {
    if (seconds <= 0 || processors.empty()) return 0;
    double idle = 0;
    for (const auto& p : processors) idle += seconds - p.busy_seconds;
    return idle / (seconds * static_cast<double>(processors.size()));
  }
};

// What a solve did beyond LAPACK's info: refinement steps, the componentwise backward error when
// it was computed, whether PRBT fell back to GEPP (and why), and where the time went.
struct SolveDetails {
  int refinement_steps = 0;
  std::optional<double> backward_error;
  bool fell_back_to_gepp = false;
  std::string note;
  // The reciprocal 1-norm condition number of A, where the solver estimated it (PRBT, to tell a
  // singular A from one its randomization made ill-conditioned; or of GEPP's factors after a fallback).
  std::optional<double> rcond;
  // Seconds per phase, in order, e.g. PRBT on a device: "upload and randomization",
  // "factorization", "condition estimate", "solve and refinement".
  std::vector<std::pair<std::string, double>> phase_seconds;
};

}  // namespace hetlu

namespace hetlu::solvers {

// P A = L U of the m x n matrix A, in place. Returns info.
// On the hybrid target, *balance gets each processor's busy time when given.
template <class T>
int getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv, InputCheck check = InputCheck::finite,
          LoadBalance* balance = nullptr);

// Solves A X = B (or A^T X = B) with the factors from getrf; B (n x nrhs) is overwritten by X.
template <class T>
void getrs(const Plan& plan, Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb,
           InputCheck check = InputCheck::finite);
// getrs' argument checks alone (sizes, pointers, pivots in [1, n], B finite where `check` asks):
// InvalidArgument naming the first bad one.
template <class T>
void check_getrs_arguments(const Plan& plan, int n, int nrhs, const T* LU, int lda, const int* ipiv, const T* B,
                           int ldb, InputCheck check = InputCheck::finite);

// Solves A X = B. GEPP and CALU: getrf then getrs (A overwritten by its factors), refined when
// plan.refinement asks. PRBT: A is left unchanged, ipiv is the identity, always refined.
// Returns info; when info > 0, B is left untouched.
template <class T>
int gesv(const Plan& plan, int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb,
         InputCheck check = InputCheck::finite, SolveDetails* details = nullptr);

// `batch` independent n x n systems: system i's A at A + i * stride_a, its pivots at
// ipiv + i * stride_ipiv, its B at B + i * stride_b; each overwritten as gesv overwrites them,
// info[i] its LAPACK info. In parallel across the batch, one system per thread at a time, with
// partial pivoting. Arguments are already checked. With check = finite, a system whose A or B holds
// a NaN or Inf is left as it is, info[i] = -3 (A) or -6 (B), as LAPACK numbers gesv's arguments.
template <class T>
void gesv_batched(int batch, int n, int nrhs, T* A, int lda, std::int64_t stride_a, int* ipiv, std::int64_t stride_ipiv,
                  T* B, int ldb, std::int64_t stride_b, int* info, InputCheck check = InputCheck::none);

// A batch's system before it is solved, under `check`: -3 where A holds a NaN or Inf, -6 where B
// does (LAPACK's numbers of gesv's arguments; the system is then left as it is), else 0.
template <class T>
int batch_input_info(int n, int nrhs, const T* a, int lda, const T* b, int ldb, InputCheck check);

// The same on one device (#14 item 5: cuBLAS's batched LU on a GPU, the batch on a host backend's
// team), the caller's arrays in host memory: in chunks, each packed into page-locked memory, up,
// solved there and back (solvers/gesv_batched_device.cpp). The caller holds the device's lock.
// chunk_bytes: a chunk's systems in page-locked and device memory at most (or one system, where
// one is larger); the default is large enough that a GPU's batched kernels fill it (4000 systems of
// n = 64 in double) and small enough that the first call's page-locking (the cuda backend recycles
// the buffer after it) stays short. A device that cannot hold a chunk gets smaller ones; one that
// cannot hold one system throws DeviceOutOfMemory. In complex, cuBLAS pivots on the modulus |z|,
// LAPACK on |re| + |im|: where they disagree a GPU's pivots differ from LAPACK's (both partial
// pivoting; an H100 showed it, 2026-11-27).
inline constexpr std::int64_t batch_chunk_bytes = std::int64_t(128) << 20;
template <class T>
void gesv_batched_on(backends::Backend<T>& device, int batch, int n, int nrhs, T* A, int lda, std::int64_t stride_a,
                     int* ipiv, std::int64_t stride_ipiv, T* B, int ldb, std::int64_t stride_b, int* info,
                     InputCheck check = InputCheck::none, std::int64_t chunk_bytes = batch_chunk_bytes);

// The same for a C-ordered stack, as NumPy holds one: A (batch, n, n) and B (batch, n, nrhs)
// row-major and left as they are, X (batch, n, nrhs) row-major gets the solutions (a singular
// system's X is undefined). Each thread transposes its system into a buffer of its own.
template <class T>
void gesv_batched_row_major(int batch, int n, int nrhs, const T* A, const T* B, T* X, int* info);

// What a mixed-precision solve did: LAPACK's ITER (>= 0 refinement steps, < 0 why the double
// solver answered), and how many steps of each refinement it took.
struct MixedDetails {
  int iter = 0;
  int classical_steps = 0;               // corrections solved with the single factors
  int gmres_steps = 0;                   // corrections solved by GMRES preconditioned with them
  int gmres_iterations = 0;              // GMRES's iterations over all of those
  int certify_steps = 0;                 // safeguards.certify: refinement steps of the probe vector (PRBT's always)
  double first_contraction = 0;          // safeguards: the first step's residual ratio, where it was slow
  double condition_estimate = 0;         // safeguards: kappa_1(A) from the single factors, where estimated
  std::optional<double> backward_error;  // safeguards: omega of the refined X
  // safeguards.certify: 1 / kappa_1(A) estimated, an upper bound: ||s||_1 / (||A||_1 ||A^-1 s||_1)
  // as the certificate saw it where X was taken, dgecon's estimate from the double factors where the
  // double solver answered (0: not estimated); near_singular: neither certificate held (ITER -1).
  double rcond = 0;
  bool near_singular = false;
  // ||A||_1, from the pass that rounded A to single (0 where it did not run); its exponent is 64 where
  // the sums overflow a finite A (kernels::overflow_safe_norm).
  kernels::ScaledNorm a_norm1;
  // The hybrid target on one device: the single factors and A stayed on the device and refinement
  // ran there (solvers/mixed_device.hpp); else why not, where it was tried.
  bool refined_on_device = false;
  bool device_memory_ran_out = false;  // during refinement there: ITER -1, the double solver answered
  std::string note;
  std::vector<std::pair<std::string, double>> phase_seconds;  // seconds per phase, in order
};

// The seed of the mixed certificate's fixed probe at order n (mixed_gesv.cpp, certified()); the
// tests build matrices against it.
inline unsigned mixed_certificate_probe_seed(int n) {
  return 2029u + static_cast<unsigned>(n);
}
// The probes it solves as one block after the fixed one: a device path sizes its solves' buffer for
// them beside the right-hand sides.
inline constexpr int mixed_certificate_seeded_probes = 3;

// What the mixed path checks beyond dsgesv's semantics: all off for the drop-in's dsgesv_ (with
// GEPP), the omegas on by default (double_accuracy), all on for precision auto.
struct MixedSafeguards {
  // Where the first classical step fails to halve the residual, the double solver answers at once
  // (ITER = -1); where it shrinks it by less than 100x, kappa_1(A) is estimated (Hager-Higham from
  // the single factors: a few O(n^2) solves) and above this the double solver answers. 0: neither.
  double max_condition = 0;
  // Once LAPACK's normwise test passes, the same steps go on while the componentwise backward error
  // omega exceeds this and still halves, as dgerfs refines (at most 5 more steps), so that X is as
  // accurate componentwise as refinement makes it. 0: LAPACK's test alone.
  double target_omega = 0;
  // An X whose omega, after that, still exceeds this is no answer: ITER = -31, the double solver
  // answers. 0: not checked.
  double max_omega = 0;
  // Once X is taken, check that A is not singular to double's working precision, which refinement
  // of B's system cannot see (a singular but consistent system converges to one of its solutions):
  // the single factors see A well-conditioned from a fixed random vector and from vectors seeded
  // by what they gave for it, or classical refinement of one of those contracts at every step
  // (mixed_gesv.cpp, certified()). Where neither, the double solver
  // answers (ITER -1; -31 where B's refinement stalled first: GMRES is skipped, as its answer could
  // not be checked) and its factors' estimate tells how singular A is. false: X as refinement left it.
  bool certify = false;
  // Where the double solver answered, dgecon's estimate from its factors (details.rcond): 15 % of a
  // double solve, paid only where mixed precision failed. With certify, it is made anyway where the
  // certificate failed (near_singular), which is when an answer's bound alone cannot tell.
  bool estimate_after_fallback = false;

  // Safeguards that refine on while omega is above (n + 1) u of T (double or complex double) and
  // halves, take no answer above accuracy::tolerance (30 (n + 1) u), certify, and estimate after a
  // fallback: what hetlu::mixed_gesv does by default (Options::mixed_double_accuracy). PRBT's
  // answers get the omegas and the certificate always.
  template <class T>
  static MixedSafeguards double_accuracy(int n);
};

// Which routines factor and solve in mixed_gesv: the plans' (hetlu's solvers), or, below the
// small-matrix crossover, the BLAS library's own getrf and getrs (vendor::, hetlu's loops up to
// order 32) for GEPP's single LU and the double fallback's: no task graph or thread wake-up where a
// call costs microseconds (dsgesv_ at n = 4 took 8 us through the planned GEPP, OpenBLAS's 0.6).
// What the library declines (entries near the range's ends, pivots without reciprocals) the plans
// do.
enum class LuRoutines { planned, blas_library };

// X from a single-precision factorization of A (low_plan: its solver, at single precision) refined
// in double, as LAPACK's dsgesv and zcgesv, with GMRES-based refinement where the classical one
// stalls (see mixed_gesv.cpp); T is double or complex<double>. A is left unchanged unless the
// single path fails and the double solver, at high_plan, factors it. Returns the double solver's
// info (0 when the single path answered). Arguments are already checked, except A's finiteness:
// with `check` finite (default) it is tested on the pass that rounds A to single, and a NaN or Inf
// in A throws before anything is written, naming the entry (checks::finite). time_phases (default
// on): details.phase_seconds timed; off, no clock is read (Options::measure_time off: the drop-in's
// dsgesv_, where four laps cost 15 % of a call at n = 2).
template <class T>
int mixed_gesv(const Plan& low_plan, const Plan& high_plan, int n, int nrhs, T* A, int lda, int* ipiv, const T* B,
               int ldb, T* X, int ldx, MixedDetails& details, const MixedSafeguards& safeguards = {},
               InputCheck check = InputCheck::finite, LuRoutines routines = LuRoutines::planned,
               bool time_phases = true);

// LAPACK's dgetrf from the BLAS library (OpenBLAS), the reference hetlu is measured against.
int reference_getrf(int m, int n, double* A, int lda, int* ipiv);

}  // namespace hetlu::solvers
