// hetlu's C++ API: auto-tuned LU factorization and solve.
//
// Each call resolves its plan (caller override > tuned entry in the database > model > built-in
// default), runs the solver, and reports the plan it used and where that plan came from.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetlu/types.hpp"

namespace hetlu {

struct Options {
  PlanOverrides overrides;
  Target target = Target::cpu;  // hybrid: CPUs and devices (overrides.devices, else a GPU, else host)
  std::string db_path;          // empty: $HETLU_DB, else $XDG_DATA_HOME/hetlu/tuning.db, else ~/.local/share/...
  bool use_database = true;     // false: skip the database (model, then default)
  CalibrationLevel min_level = CalibrationLevel::quick;  // tuned rows below this level are ignored
  InputCheck input_check = InputCheck::finite;           // none: NaN and Inf propagate, as in LAPACK
  // false: SolveReport's seconds and gflops stay 0 (and a mixed solve's phase_seconds empty). Two clock reads are a
  // third of a small-matrix call (n <= 4); the C API skips them when the caller asks for no report.
  bool measure_time = true;
  // true: getrf and gesv with GEPP on the CPU target and no override, below the small-matrix
  // crossover (small_matrix_crossover), go to the BLAS library's own LU, as the LAPACK drop-in's
  // calls do: no plan resolution, no database read, no allocation or thread wake-up; the report's
  // plan then says "small-matrix LU". The C API takes it when the caller asks for no report.
  bool small_matrix_path = false;
  // On the small path of getrf, getrs and gesv, up to order 32: hetlu's own loops (solvers/tiny_lu.hpp,
  // LAPACK's unblocked arithmetic, cheaper than the library's call). false: the BLAS library's
  // routines at every order, bit for bit as the library's callers get them (Python's hetlu.linalg:
  // SciPy's own tests compare lu_factor with the library's getrf exactly, and a Python call costs 50x
  // what the loops save). A batch (gesv_batched) takes the loops whatever this says.
  bool small_own_loops = true;
  // Mixed precision: once LAPACK's normwise test passes, refinement goes on while the componentwise
  // backward error omega is above (n + 1) u and halves, and an answer still above
  // accuracy_tolerance (30 (n + 1) u) is not taken: the double solver answers (ITER -31). LAPACK's
  // test alone passed an X with omega 2e-7 on a badly scaled A, six digits short of the double
  // solver's. false: that test alone, as dsgesv decides (the LAPACK drop-in's dsgesv_, zcgesv_).
  bool mixed_double_accuracy = true;
};

struct Resolution {
  Plan plan;
  std::vector<std::string> warnings;     // e.g. an unreadable database; the plan is still usable
  std::vector<std::string> explanation;  // the model's reasoning: rates, split, time (recommend --explain)
  double cpu_fraction = 1;               // hybrid: the CPUs' share of the block columns, d / N
  // The CPU threads the plan was resolved for: the calling thread's OpenMP threads (less the host
  // teams' on the hybrid target), as the solve runs on them; tuned plans answer for these only.
  int cpu_threads = 1;
  std::optional<double> predicted_gflops;
  // Where the plan was tuned at this very size: the median the tuner measured for it (before any
  // override). Precision auto compares these where both precisions were tuned.
  std::optional<double> measured_seconds;
};

// The plan hetlu would use for an m x n problem on this machine. Answers are cached per process
// (problem, database path, level), as MAGMA caches its block sizes; overrides apply on top.
// The target is options.target.
Resolution resolve_plan(Solver solver, Precision precision, int m, int n, const Options& options = {});

// The plan as one JSON object: every field by name, the panel's place, and where the plan came
// from (the form `hetlu recommend --json`, Python's plan dicts and the C API's strings share).
std::string plan_json(const Plan& plan);

// Forgets the cached answers, e.g. after a calibration in the same process.
void clear_plan_cache();

// The tuning database a call with these options reads: options.db_path, else the default (see
// Options::db_path); empty where options.use_database is false or no default can be formed.
std::string tuning_database_path(const Options& options = {});

// The order below which the LAPACK drop-in's getrf and gesv go to the BLAS library's own (its
// small-matrix LU has no plan, task graph or thread wake-up, and beats hetlu's there): measured by
// `hetlu calibrate` and `hetlu probe --db` (tuner::measure_getrf_crossover) and stored with the
// machine's probes, else default_small_matrix_crossover; HETLU_SMALL_MATRIX_CROSSOVER=N, where set,
// before either (0: every call through hetlu's solvers). Cached per process, precision and database.
struct SmallMatrixCrossover {
  int below = 0;
  PlanSource source = PlanSource::default_;  // override (the environment), tuned (measured) or default
  std::string detail;
};
// On the dev machine (2-core AMD EPYC, OpenBLAS 0.3.21) OpenBLAS's dgetrf took 0.17 us at n = 4
// against 4.5 through hetlu, and was still 1.07x faster at n = 512; hetlu's GEPP won from n = 1024.
inline constexpr int default_small_matrix_crossover = 512;
SmallMatrixCrossover small_matrix_crossover(Precision precision, const Options& options = {});
// Whether an m x n getrf goes to the BLAS library's LU under a crossover of order `below`: when it
// is less work than a square getrf of that order. A tall 10000 x 3 panel is less work than a 64 x 64
// matrix; compared by max(m, n), each new shape resolved a plan (3-5 ms, where OpenBLAS took
// microseconds).
bool below_small_matrix_crossover(int m, int n, int below);
// Whether getrs of order n with nrhs right-hand sides goes to the BLAS library's getrs (the
// small-matrix path) under that crossover: below it, and with one right-hand side up to the order
// where hetlu's blocked triangular solves win (2048), since hetlu's own path ends in the same getrs
// there, after building a report (1-3 % of the call at n = 512).
bool small_path_getrs(int n, int nrhs, int below);

// The small-matrix path: LAPACK's getrf or gesv of the BLAS library hetlu links, found in that
// library itself (a preloaded drop-in exporting the same names is never called back); no plan, no
// check, no allocation. False, with nothing done, when the BLAS library has no such routine.
// own_loops false: the library's routines at every order (Options::small_own_loops).
template <class T>
bool blas_library_getrf(int m, int n, T* A, int lda, int* ipiv, int* info, bool own_loops = true);
template <class T>
bool blas_library_gesv(int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, int* info, bool own_loops = true);
// The same for getrs with getrf's factors (up to order 32 hetlu's own loops, as for getrf): false,
// with nothing done, where an entry of ipiv lies outside [1, n] (the full way names it), U has a
// nonzero pivot below 1 / max (the library's solves multiply by reciprocals), or the library has
// no getrs.
template <class T>
bool blas_library_getrs(Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb,
                        bool own_loops = true);

// This machine as the probes see it without timing (topology, BLAS, GPUs); probed once per process.
const MachineProfile& this_machine();

struct SolveReport {
  Plan plan;
  int info = 0;  // LAPACK info: > 0 is the 1-based index of an exactly-zero pivot
  double seconds = 0;
  double gflops = 0;
  std::vector<std::string> warnings;
  int refinement_steps = 0;
  std::optional<double> backward_error;  // when the solve computed it (refinement)
  bool fell_back_to_gepp = false;        // PRBT could not finish on its own
  std::string note;                      // why it fell back, or why refinement stopped
  // gesv: seconds per phase, in order (e.g. "factorization", "solve and refinement").
  std::vector<std::pair<std::string, double>> phase_seconds;
  // solve_checked: whether X is finite with backward_error <= accuracy_tolerance<T>(n), and each
  // solver it tried with its omega (auto escalates until one is accurate).
  bool accurate = true;
  std::vector<std::string> attempts;
  std::string auto_choice;  // solve_checked, auto: why it started with the solver it did
  // The reciprocal 1-norm condition number of A, estimated where the solve did so: solve_checked
  // always (dgecon's estimate from the factors, of A equilibrated where it equilibrated, and never
  // above ||B_j||_1 / (||A||_1 ||X_j||_1), which X itself proves), PRBT's gesv always, mixed_gesv
  // and auto_precision_gesv's mixed path always: never above X's bound, and under
  // options.mixed_double_accuracy (the default) the certificate's estimate where mixed answered, or
  // dgecon's estimate from the double solver's factors where it did (auto's double solver estimates
  // only where the certificate failed: an estimate costs 15 % of a double solve); else X's bound.
  std::optional<double> rcond;
  // Wherever rcond was estimated (solve_checked, PRBT's gesv, the mixed path): rcond < eps (1.1e-16 in double, 6.0e-8
  // in single), A is singular to working precision, and X may have no correct digit however small its backward error:
  // dgesvx's info = n + 1. solve_checked also where rcond is within rcond_estimate_slack eps of it and
  // two steps of refinement with the residual in long double do not show X's error below 0.5 (they
  // do not contract, or estimate it above); dgerfs' forward_error there where a step is not finite.
  // `warnings` says so; the CLI exits 5.
  bool singular_to_working_precision = false;
  // solve_checked, where rcond < rcond_estimate_slack eps and X is accurate: dgerfs' forward error
  // bound, estimated (the largest over columns of ||X_j - A^-1 B_j||_inf / ||X_j||_inf, but for the
  // estimate). Below eps, at most 0.01 says X has digits and A is not called singular to working
  // precision (badly scaled columns: ||A^-1|| counts their spread, while GEPP's X does not feel it).
  std::optional<double> forward_error;
};

// The componentwise backward error omega above which hetlu calls a solution inaccurate:
// 30 (n + 1) eps (eps = 1.1e-16 in double, 6.0e-8 in single; 30 is LAPACK's test threshold).
template <class T>
double accuracy_tolerance(int n);

// The solver `--solver auto` means: the one whose plan (tuned, else modelled) predicts the least
// time for this problem on options.target; `why` says so.
Solver choose_solver(Precision precision, int m, int n, const Options& options, std::string* why);

// P A = L U in place, LAPACK getrf semantics (column-major, 1-based ipiv).
template <class T>
SolveReport getrf(Solver solver, int m, int n, T* A, int lda, int* ipiv, const Options& options = {});

// Solves A X = B or A^T X = B with the factors from getrf; B is overwritten by X.
template <class T>
SolveReport getrs(Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb,
                  const Options& options = {});

// Solves A X = B: A is overwritten by its LU factors, B by X (unless info > 0). PRBT factors a
// randomized copy and leaves A unchanged, ipiv zeroed (no L U of A exists; getrs refuses them).
template <class T>
SolveReport gesv(Solver solver, int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, const Options& options = {});

// Solves A X = B and checks the answer, as a user of hetlu (the CLI, Python) expects; A is left
// unchanged, B is overwritten by X. It computes omega (on A equilibrated by powers of two, where
// |A||x| cannot overflow); A with a row or column outside [smlnum, 1/smlnum] (smlnum = safe
// minimum / eps) is solved equilibrated, as dgesvx does, so that an all-subnormal A gives no Inf. With
// `solver` empty ("auto") it starts with the solver of least predicted time (choose_solver) and
// escalates while omega > accuracy_tolerance: the same solver with refinement, PRBT (which
// refines), GEPP with refinement, CALU with refinement; X is the most accurate answer found, and
// `attempts` lists each try. An explicit solver runs once, and once more with refinement where its
// answer fails the check and options.overrides.refinement is not set. info > 0 (exactly singular)
// ends it. B sharing an entry with A is refused (InvalidArgument): X is written into B.
template <class T>
SolveReport solve_checked(std::optional<Solver> solver, int n, int nrhs, const T* A, int lda, T* B, int ldb,
                          const Options& options = {});

// X (n x nrhs) with A X = B from a single-precision factorization of A by `solver` (GEPP, CALU, or
// PRBT's butterflies and GENP; plan: precision mixed, whose nb is the single factorization's),
// refined in double as LAPACK's dsgesv and zcgesv do, then by GMRES preconditioned with the single
// factors where classical refinement stalls: about twice the double solver's speed where A is not
// too ill-conditioned for it. Otherwise the double solver answers (GEPP for PRBT), A then overwritten
// by its factors. T: double or complex<double>. iter is dsgesv's ITER: >= 0 the refinement steps
// taken, -2 an entry outside single's range, -3 an exactly zero pivot in single, -31 refinement did
// not converge (detected after a few O(n^2) steps, not thirty) or, under
// options.mixed_double_accuracy (the default), an omega still above accuracy_tolerance once
// LAPACK's test passed; -1 under it too where the single factors cannot show A nonsingular in
// double (MixedSafeguards::certify). report.rcond estimates A's reciprocal condition number (SolveReport::rcond),
// and report.singular_to_working_precision says where it is below eps. B is left unchanged. The
// report's info is the double solver's; its note says how many steps of each refinement ran.
template <class T>
SolveReport mixed_gesv(Solver solver, int n, int nrhs, T* A, int lda, int* ipiv, const T* B, int ldb, T* X, int ldx,
                       int* iter, const Options& options = {});

// Precision auto (#15.3): X (n x nrhs) with A X = B in double (T: double or complex<double>) from
// the mixed path (mixed_gesv) where it is predicted faster and is safe, else from the double
// solver (gesv). The double solver answers, and report.auto_choice says why, when: the mixed path
// fell back on this process's last try at the same solver, target and order (for the next few
// such calls, then mixed is tried again); the model, from the measured single and double rates
// where calibrated, does not price mixed clearly below double; or the first refinement step from
// single shows it cannot converge (it does not halve the residual, or kappa_1(A) estimated from
// the single factors is beyond reach). Where mixed answers, refinement goes on, as dgerfs, until
// omega stops improving, and an omega above (n + 1) u is not taken; report.backward_error is that
// omega and report.plan.precision says which answered. The limits and why: api/auto_precision.cpp.
// A is left unchanged unless the double solver answers (then its factors, except PRBT's, as gesv),
// ipiv holds the answering factorization's pivots (zero for PRBT's double), B is left unchanged.
template <class T>
SolveReport auto_precision_gesv(Solver solver, int n, int nrhs, T* A, int lda, int* ipiv, const T* B, int ldb, T* X,
                                int ldx, const Options& options = {});

// Many independent n x n systems A_i X_i = B_i in one call (a NumPy stack, an assembly loop): system
// i's A at A + i * stride_a (leading dimension lda), its pivots at ipiv + i * stride_ipiv, its B at
// B + i * stride_b (ldb), each overwritten as LAPACK's gesv overwrites them; info[i] is its LAPACK
// info. Solved in parallel across the batch, each system with partial pivoting on one thread
// (hetlu's own loops up to order 32, the BLAS library's small-matrix gesv above). No plan: a system this small has
// nothing to tune but the batch's spread over the cores. Throws InvalidArgument naming a bad size, stride or null
// pointer (strides may not make systems overlap: each system after the last one's entries, or all stacked down the rows
// of one tall array), and, once the other systems are solved, BatchInputNotFinite naming the first system whose A or B
// holds a NaN or Inf (left as it is, info[i] = -3 for A, -6 for B, as LAPACK numbers gesv's arguments). options.target
// = hybrid runs the batch on one device (#14 item 5): overrides.devices' one, else a GPU where there is one (cuBLAS's
// getrfBatched and getrsBatched, real precisions), else the host backend's team; the systems go up and come back in
// chunks through page-locked memory. Any other override (nb, d, the panel...) is refused: a batch has no plan.
template <class T>
void gesv_batched(int batch, int n, int nrhs, T* A, int lda, std::int64_t stride_a, int* ipiv, std::int64_t stride_ipiv,
                  T* B, int ldb, std::int64_t stride_b, int* info, const Options& options = {});

// The reciprocal of A's 1-norm condition number, estimated from its LU factors (getrf's) as LAPACK's
// gecon estimates it (Hager and Higham: a few solves with A and A^T, O(n^2)); anorm is ||A||_1 of
// the original A. 0 when A is singular to working precision, 1 for n = 0.
template <class T>
double rcond_estimate(int n, const T* LU, int lda, const int* ipiv, double anorm);

// What a solution proves of rcond: ||A^-1||_1 >= ||X_j||_1 / ||B_j||_1 for each column j of
// A X = B, so rcond <= min_j ||B_j||_1 / (anorm ||X_j||_1) (anorm = ||A||_1); 1 where X is zero.
// A huge X (a singular A, B outside its range) shows here whatever an estimate says.
template <class T>
double rcond_bound(int n, int nrhs, const T* X, int ldx, const T* B, int ldb, double anorm);

// What a solve reports as rcond from the LU factors and pivots it left (GEPP, CALU) and its X:
// rcond_estimate, never above rcond_bound (anorm = ||A||_1 of the matrix factored).
template <class T>
double rcond_of_solution(int n, int nrhs, const T* LU, int lda, const int* ipiv, const T* X, int ldx, const T* B,
                         int ldb, double anorm);

// The scalings solve_checked applies to A (dgesvx's R and C, dgeequb's powers of two), as
// exponents, 0 where none applies: rows r_i = 2^rows[i] where the rows' largest magnitudes differ by
// more than about 10 or some row or column lies near an end of the range; columns c_j = 2^cols[j]
// only in the latter case (R A's small columns underflowed there). R A C y = R b, x = C y; R A's
// rcond bounds x's error (rows scaled 10^U(-12, 12): A's own rcond 6e-25 with x right to 1e-14,
// R A's 2e-3).
struct Equilibration {
  std::vector<int> rows, cols;
};
template <class T>
Equilibration equilibration(int n, const T* A, int lda);

// omega of X for A X = B as solve_checked measures it: invariant under the scalings above, so on
// R A C where entries would leave the range otherwise, in long double on A itself near the
// range's ends (|A| |x| overflowed double for a row of 1e300 and x of 1e10).
template <class T>
double equilibrated_backward_error(int n, int nrhs, const T* A, int lda, const T* X, int ldx, const T* B, int ldb);

// rcond of R A (anorm = ||R A||_1) from LU factors of R A C (getrf's, ipiv), C = 2^cols folded
// into dgecon's solves: ||(R A)^-1||_1 = ||C (R A C)^-1||_1. With cols all 0, rcond_estimate's.
template <class T>
double rcond_estimate_with_columns(int n, const T* LU, int lda, const int* ipiv, const std::vector<int>& cols,
                                   double anorm);

// Where report.rcond < eps (of T's precision): sets report.singular_to_working_precision and says
// so in report.warnings, as solve_checked does.
template <class T>
void check_working_precision_singularity(SolveReport& report);

// An rcond estimate is good to about a factor of 3, rarely 10, and a numerically singular A's lands
// near eps (its factors' rounding): below this many eps, solve_checked and
// judge_singularity_with_forward_error let dgerfs' forward error bound decide too.
inline constexpr double rcond_estimate_slack = 10;

// Whether rcond (an estimate, of T's precision) is below rcond_estimate_slack eps, where the estimate
// alone cannot say whether A is singular to working precision and X's forward error decides
// (judge_singularity_with_forward_error). Every caller that judges asks this; none restates it.
template <class T>
bool forward_error_decides(const std::optional<double>& rcond);

// The same verdict as solve_checked gives it, for an X solved otherwise (the distributed CLI, Python's
// hetlu.solve): where report.rcond < rcond_estimate_slack eps, dgerfs' forward error bound of X (A X =
// B, A n x n and unchanged), from GEPP's factors of A equilibrated as dgesvx's (R A C), goes in
// report.forward_error. Below eps, at most 0.01 says X has digits and A is not called singular to
// working precision (report.note says why); otherwise as check_working_precision_singularity. At or
// above eps, refinement of X decides as in solve_checked (SolveReport::singular_to_working_precision).
template <class T>
void judge_singularity_with_forward_error(SolveReport& report, int n, int nrhs, const T* A, int lda, const T* X,
                                          int ldx, const T* B, int ldb, const Options& options = {});

// Takes back what a solve said of A's singularity to working precision (the flag, its warning, the
// mixed path's "may be singular" note), where another verdict replaces it.
void clear_working_precision_singularity(SolveReport& report);

// Solves that need an n x n work array (PRBT, refinement's copy of A) keep the largest one between
// calls, so that repeated solves do not pay its page faults again (as MKL keeps its buffers).
// This gives it back to the system.
void release_workspace();

// Whether the hybrid target's `kind` of device can run on this machine (cuda: a build with CUDA and
// a usable GPU; host: always), and if not, why not.
bool backend_available(BackendKind kind, std::string* why = nullptr);
// The same for every device of a set (and that the set names at most one GPU this build drives,
// and that a host device's HETLU_HOST_BACKEND_THREADS and _MEMORY_MIB, where set, are valid).
bool devices_available(const DeviceSet& devices, std::string* why = nullptr);
// The devices a hybrid call runs on when its caller names none: a GPU where this build and machine
// have one, else the host backend.
DeviceSet default_devices();

// ---- calibration -------------------------------------------------------------------------------

struct CalibrationOptions {
  CalibrationLevel level = CalibrationLevel::quick;
  std::string db_path;                                  // empty: the default database
  std::string config_path;                              // empty: the built-in configs/calibration.yaml
  std::vector<int> sizes;                               // empty: the level's sizes
  std::vector<Solver> solvers;                          // empty: the level's solvers
  std::vector<Precision> precisions;                    // empty: the level's (double; mixed: the whole mixed solve)
  Target target = Target::cpu;                          // hybrid: tune d and nb (sizes: the level's hybrid_sizes)
  std::optional<DeviceSet> devices;                     // hybrid: empty means a GPU when present, else host
  double budget_seconds = 0;                            // > 0: start no new measurement after this long (resume later)
  bool retry_failed = false;                            // measure stored failed trials again
  std::function<void(const std::string&)> progress;     // one line per trial; may be empty
  std::function<void(int done, int at_most)> on_trial;  // configurations evaluated so far; may be empty
  // Polled between probes and timed runs; true stops the calibration with Interrupted (what was
  // stored is kept; a rerun resumes). Python's calibrate stops this way on Ctrl-C.
  std::function<bool()> stop_requested;
};

struct CalibrationEntry {
  Solver solver = Solver::gepp;
  int m = 0, n = 0;
  Plan plan;  // the best plan stored for this size
  double median_seconds = 0, gflops = 0;
  std::optional<double> predicted_seconds;
  int trials_measured = 0, trials_reused = 0, trials_failed = 0;
  int trials_pruned = 0;  // not timed: the model priced them far above the best measured
  // Not timed: the budget was spent first. The plan is the best of the rest; a rerun resumes.
  int trials_left_by_budget = 0;
};

// A solver and size that got no plan, and why: every trial failed, or (resumable) the budget was
// spent before any was measured.
struct MissingPlan {
  Solver solver = Solver::gepp;
  Precision precision = Precision::double_;
  int m = 0, n = 0;
  std::string why;
  bool resumable = false;
  int trials_left_by_budget = 0;  // configurations the budget left untimed (a rerun times them)
};

struct CalibrationReport {
  std::string db_path;
  std::string machine;  // the fingerprint the entries are stored under
  MachineProfile profile;
  std::vector<CalibrationEntry> entries;
  std::vector<MissingPlan> without_plan;
};

// Probes this machine, stores the probe results, tunes at the level's sizes (resuming: trials
// already stored are reused; failed ones are measured again when the environment that made them
// fail changed, or with retry_failed) and stores the best plans. Forgets this process's cached plans.
CalibrationReport calibrate(const CalibrationOptions& options);

}  // namespace hetlu
