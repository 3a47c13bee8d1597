// PRBT: randomize with recursive butterflies of depth 2 (A_r = U^T A V, O(n^2)), factor A_r without
// pivoting (GENP, the blocked LU driver with a non-pivoting panel), solve A_r y = U^T b, x = V y,
// then refine in working precision (hybrid-calu-prbt-gepp §2.2, §4.3). When refinement does not
// reach omega <= (n + 1) eps in 5 steps, or GENP meets an exactly zero pivot, the solve falls back
// to GEPP and says so. A matrix with an exactly zero row or column is singular whatever the
// randomization does: it goes to GEPP at once, which reports LAPACK's info. Randomization turns
// the exact zero pivot of any other singular matrix into a tiny one, and refinement then converges
// to a huge x of tiny backward error; so after GENP the 1-norm condition number is estimated (as
// dgecon, from the factors at hand) and a matrix singular to working precision (rcond < 10 u; dgesvx
// says rcond < eps) goes to GEPP too, which finds an exact zero pivot where there is one. On the hybrid target
// with one device the matrix, its factors and the refinement's residuals stay on the device
// (prbt_device.hpp), where the plan's d deals it block columns; where it deals none, PRBT runs as
// on the CPU target and the note says so.
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdio>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "solvers/blocked_lu.hpp"
#include "solvers/butterfly.hpp"
#include "solvers/checks.hpp"
#include "solvers/condition.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/hybrid_lu.hpp"
#include "solvers/phases.hpp"
#include "solvers/prbt_device.hpp"
#include "solvers/randomized_solve.hpp"
#include "solvers/refinement.hpp"
#include "solvers/variants.hpp"
#include "solvers/workspace.hpp"

namespace hetlu::variants {
namespace {

// PRBT leaves A unchanged and factors a randomized copy (or, falling back, GEPP's private copy):
// no L U of A exists for a getrs to use. Its pivots are zeroed, which getrs refuses, so that a
// caller reusing A and ipiv as LAPACK's gesv leaves them gets an error, not a wrong X with success.
void no_factors_of_a(int n, int* ipiv) {
  std::fill_n(ipiv, n, 0);
}

template <class T>
int gepp_fallback(const Plan& plan, int n, int nrhs, const T* A, int lda, int* ipiv, T* B, int ldb,
                  SolveDetails* details, const char* why, kernels::ScaledNorm a_norm = {}) {
  // Timed as phases of their own: on the H100 a single-precision fallback at n = 16384 spent 1.0 s
  // of its 1.4 outside the phases it printed, in this copy and the host's condition estimate.
  PhaseClock clock(details);
  kernels::Workspace<T> LU(static_cast<size_t>(std::max(1, n)) * n);  // no zeroing: the copy fills it
  kernels::copy_block(n, n, A, lda, LU.data(), std::max(1, n));
  clock.mark("copy for GEPP");
  Plan gepp = plan;
  gepp.solver = Solver::gepp;
  gepp.refinement = Refinement::working;
  if (details) {
    details->fell_back_to_gepp = true;
    details->note = why;
  }
  const std::size_t phases_before = details ? details->phase_seconds.size() : 0;
  const int info = lu_gesv(gepp, n, nrhs, LU.data(), std::max(1, n), ipiv, A, lda, B, ldb, details);
  // A fallback for a singular or unconverged A says how singular GEPP's factors find it (||A||_1 known).
  if (details)
    for (std::size_t i = phases_before; i < details->phase_seconds.size(); ++i)
      details->phase_seconds[i].first = "GEPP " + details->phase_seconds[i].first;
  if (details && info == 0 && a_norm.value > 0) {
    PhaseClock estimate_clock(details);
    details->rcond = a_norm.rcond(lu_reciprocal_condition(n, LU.data(), std::max(1, n), ipiv, a_norm.value));
    estimate_clock.mark("GEPP condition estimate");
  }
  no_factors_of_a(n, ipiv);  // GEPP's pivots belong to its copy's factors, gone with it
  return info;
}

// x = A^-1 b for each right-hand side b, then refinement; residual is refine()'s.
template <class T, class Triangular, class Residual>
RefinementResult solve_and_refine(const kernels::Butterfly<T>& U, const kernels::Butterfly<T>& V, int n, int nrhs,
                                  const T* B, int ldb, T* X, int ldx, Triangular& triangular, Residual&& residual) {
  std::vector<T> work;
  auto solve_in_place = [&](T* R, int ldr) {
    kernels::apply_randomized_inverse(U, V, n, nrhs, R, ldr, Transpose::no, work, triangular);
  };
  kernels::copy_block(n, nrhs, B, ldb, X, ldx);
  solve_in_place(X, ldx);
  return refine(n, nrhs, X, ldx, residual, solve_in_place);
}

// The reciprocal 1-norm condition number of A (n x n, ||A||_1 = anorm), estimated (as dgecon) from
// the randomized factors, with apply_randomized_inverse on one vector at a time.
template <class T, class Triangular>
double reciprocal_condition(const kernels::Butterfly<T>& U, const kernels::Butterfly<T>& V, int n,
                            kernels::ScaledNorm anorm, Triangular& triangular) {
  if (anorm.value == 0) return 0;
  std::vector<T> work;
  auto apply = [&](T* x, Transpose trans) {
    kernels::apply_randomized_inverse(U, V, n, 1, x, std::max(1, n), trans, work, triangular);
  };
  const double inverse_norm = kernels::inverse_norm1_estimate<T>(
      n, [&](T* x) { apply(x, Transpose::no); }, [&](T* x) { apply(x, Transpose::conjugate); });
  return inverse_norm > 0 ? anorm.rcond(1 / (anorm.value * inverse_norm)) : 0;
}

// Whether GENP's factors can solve A at all, asked where the condition estimate is low enough to
// be the factors' own: one solve of A y = s for a fixed s of random sizes and signs must leave
// ||s - A y||_inf <= contraction ||s||_inf. The estimate, a lower bound of ||A^-1|| computed
// through factors whose backward error exceeds A's smallest singular value, cannot see past that
// error: a column repeated up to noise of 1e-15 (n = 200) read as rcond 1e-15 to 2e-14 (true
// 7e-18), and B's refinement, which no null direction hinders when B lies in A's range, converged
// to an x wrong in every digit. A random s reaches the null direction: there the ratio came out
// 1.1 to 58 (12 seeds), where a solvable A's is about kappa times the factors' backward error
// (1e-3 for a random single-precision A, n = 130). residual(y, r): r = s - A y. A NaN or Inf in r
// certifies nothing.
template <class T, class Solve, class Residual>
bool certifies_nonsingular(int n, const std::vector<T>& s, double contraction, Solve&& solve_in_place,
                           Residual&& residual) {
  auto largest = [](const std::vector<T>& v) { return scalar::largest_magnitude(v.data(), v.size()); };
  std::vector<T> y = s, r(n);
  solve_in_place(y.data());
  residual(y.data(), r.data());
  return largest(r) <= contraction * largest(s);
}

}  // namespace

template <class T>
int prbt_gesv(const Plan& plan, int n, int nrhs, const T* A, int lda, int* ipiv, T* B, int ldb, SolveDetails* details,
              InputCheck check) {
  if (n == 0) return 0;
  if (n > detail::prbt_largest_order)
    throw InvalidArgument("n = " + std::to_string(n) + " is beyond PRBT's largest order " +
                          std::to_string(detail::prbt_largest_order) + " (it pads A to a multiple of 4)");
  PhaseClock clock(details);
  // Pad to a multiple of 4 with the identity: diag(A, I) keeps the solution in the first n entries.
  const int np = kernels::prbt_padded_order(n);
  kernels::Workspace<T> Ar(static_cast<size_t>(np) * np);
  const auto U = kernels::Butterfly<T>::prbt_left(np);
  const auto V = kernels::Butterfly<T>::prbt_right(np);
  // One pass reads A: copies it randomized (the CPU target) or packs it for the upload (one device,
  // which randomizes its own copy), finds exactly zero rows and columns, which make A singular
  // however it is randomized, and sums its columns for the condition estimate's ||A||_1. On
  // several devices the CPUs randomize, the devices share GENP's updates (hybrid_lu.hpp), and the
  // solves and refinement run on the CPUs: no one device holds the factors.
  // A plan whose d leaves the devices no block column runs as on the CPU target: a device would
  // only randomize and solve, for an upload of A that no update of its pays for (the model prices
  // it so, and its memory need not hold A).
  const bool devices_take_columns =
      plan.target == Target::hybrid && detail::prbt_devices_take_block_columns(n, plan.nb, plan.cpu_block_columns);
  const bool hybrid = devices_take_columns && plan.devices.size() == 1;
  const bool several_devices = devices_take_columns && !hybrid;
  double a_norm1 = 0;
  bool nonsingular_lines = false;
  std::optional<PrbtDevice<T>> device;  // hybrid: holds the backend until reset
  if (hybrid) {
    kernels::LineScan<T> scan(n, n);
    device.emplace(plan, n, A, lda, np, Ar.data(), np, U, V);
    device->upload_and_randomize(&scan, nrhs);
    nonsingular_lines = scan.nonsingular_lines();
    a_norm1 = scan.norm_1();
  } else {
    nonsingular_lines = kernels::randomize_two_sided(U, V, n, A, lda, Ar.data(), np, &a_norm1);
  }
  // A's finiteness from the same pass, not one of its own (at n = 32768 on the H100 machine each
  // pass over A took about 0.16 s of a 1.2 s solve): a NaN or Inf makes its column's sum, and so
  // ||A||_1, infinite. Only then is A searched, for the entry to name (a finite A whose sums
  // overflow passes the search).
  if (check == InputCheck::finite && !std::isfinite(a_norm1)) checks::finite("A", n, n, A, lda);
  // Where the sums overflow a finite A, ||A||_1 of 2^-64 A: an Inf made rcond 0 and sent
  // [[1.7e308, 1e308], [1e308, 1.7e308]] (rcond 0.26) to GEPP as "singular to working precision".
  const kernels::ScaledNorm a_norm = kernels::overflow_safe_norm(a_norm1, n, A, lda, false);
  if (!nonsingular_lines) {
    device.reset();  // GEPP's hybrid LU takes the backend's lock again
    return gepp_fallback(plan, n, nrhs, A, lda, ipiv, B, ldb, details, "a row or column is exactly zero");
  }
  clock.mark(hybrid ? "upload and randomization" : "randomization");

  // The factors in Ar (host memory): W <- (L U)^-1 W, or (L U)^-T W, for `columns` columns.
  auto host_triangular = [&](T* W, int ldw, int columns, Transpose trans) {
    using namespace blas;
    if (trans == Transpose::no) {
      trsm(Side::left, Uplo::lower, Op::no_trans, Diag::unit, np, columns, T(1), Ar.data(), np, W, ldw);
      variants::solve_upper(trans, np, columns, Ar.data(), np, W, ldw);
    } else {
      const Op op = op_of(trans);
      variants::solve_upper(trans, np, columns, Ar.data(), np, W, ldw);
      trsm(Side::left, Uplo::lower, op, Diag::unit, np, columns, T(1), Ar.data(), np, W, ldw);
    }
  };
  const int ld = std::max(1, n);
  std::vector<T> X(static_cast<size_t>(ld) * nrhs);
  int info = 0;
  if (hybrid) {
    info = device->factor();
  } else if (several_devices) {
    std::vector<int> identity(np);
    info = hybrid_lu(plan, np, np, Ar.data(), np, identity.data(), /*pivoting=*/false, genp_panel<T>);
  } else {
    std::vector<int> identity(np);
    info = blocked_lu(np, np, Ar.data(), np, identity.data(), plan.nb, plan.lookahead > 0, genp_panel<T>);
  }
  clock.mark("factorization");
  auto triangular = [&](T* W, int ldw, int columns, Transpose trans) {
    if (device && device->solves_on_device())
      device->triangular_solves(columns, W, ldw, trans);
    else
      host_triangular(W, ldw, columns, trans);
  };
  RefinementResult refined;
  double rcond = 0;
  if (info == 0) {
    rcond = reciprocal_condition(U, V, n, a_norm, triangular);
  }
  // Singular to working precision below 10 u, not u: the estimate is a lower bound of ||A^-1||, and on
  // an exactly singular A (a row repeated, n = 30) rounding left it at 1.6 u on an AMD EPYC's BLAS
  // kernels (below u on the Xeon before), and PRBT returned a randomized "solution" of a singular
  // system with omega = 9e-17. Not n u: in single precision a random 1000 x 1000 A (rcond 3e-6)
  // would fall under n u = 6e-5, and every such solve would go to GEPP.
  const double singular_below = 10 * accuracy::unit_roundoff<T>();
  bool singular = info == 0 && !(rcond >= singular_below);
  // Below sqrt(u) the estimate may be the factors' backward error rather than A's: a random system
  // must then be solved with them (certifies_nonsingular), or GEPP answers. The contraction asked:
  // in double 0.01, a hundredth of the least ratio seen on a nearly singular A, which keeps PRBT
  // for kappa up to about 1e12; in single 0.5, what refinement needs, since there kappa u_single
  // nears 0.01 already for a random A of order 1000 (rcond 3e-6). The probe's entries are of A's
  // size (||A||_1 / n), so that a solvable A of entries near 1e-300 does not overflow y.
  bool uncertified = false;
  if (info == 0 && !singular && rcond < std::sqrt(accuracy::unit_roundoff<T>())) {
    const std::vector<T> probe = kernels::random_probe<T>(
        n, 2027u + static_cast<unsigned>(n), a_norm.value > 0 ? std::ldexp(a_norm.value / n, a_norm.exponent) : 1.0);
    const double contraction = std::is_same_v<scalar::real_t<T>, double> ? 0.01 : 0.5;
    std::vector<T> work;
    auto solve_one = [&](T* r) {
      kernels::apply_randomized_inverse(U, V, n, 1, r, n, Transpose::no, work, triangular);
    };
    auto residual = [&](const T* y, T* r) {
      if (device && device->solves_on_device()) {
        device->residual(n, 1, y, n, probe.data(), n, r, n);
      } else {
        std::copy(probe.begin(), probe.end(), r);
        blas::gemm(blas::Op::no_trans, blas::Op::no_trans, n, 1, n, T(-1), A, lda, y, n, T(1), r, n);
      }
    };
    uncertified = !certifies_nonsingular(n, probe, contraction, solve_one, residual);
  }
  if (info == 0) clock.mark("condition estimate");
  if (info == 0 && !singular && !uncertified) {
    if (device && device->solves_on_device())
      refined = solve_and_refine(
          U, V, n, nrhs, B, ldb, X.data(), ld, triangular,
          [&](const T* Xk, int ldx, T* R, int ldr) { return device->residual(n, nrhs, Xk, ldx, B, ldb, R, ldr); });
    else
      refined =
          solve_and_refine(U, V, n, nrhs, B, ldb, X.data(), ld, triangular, host_residual(n, nrhs, A, lda, B, ldb));
    clock.mark("solve and refinement");
  }
  const std::string note = device ? device->note()
                           : plan.target == Target::hybrid && !devices_take_columns
                               ? "d = " + std::to_string(plan.cpu_block_columns) +
                                     " keeps every block column on the CPUs: PRBT ran as on the CPU target"
                               : "";
  device.reset();  // a fallback to GEPP on the hybrid target takes the backend's lock again
  if (info > 0)
    return gepp_fallback(plan, n, nrhs, A, lda, ipiv, B, ldb, details, "GENP met an exactly zero pivot", a_norm);
  if (singular) {
    char why[192];
    if (rcond == 0)  // a solve through the factors was not finite (condition.hpp), or rcond underflowed
      std::snprintf(why, sizeof why,
                    "its estimated reciprocal condition number is 0 (below the double range, or a solve through "
                    "GENP's factors was not finite): A is singular to working precision, or GENP's factors overflowed");
    else
      std::snprintf(why, sizeof why,
                    "its estimated reciprocal condition number %.1e is below 10 u = %.1e, too near singular for GENP",
                    rcond, singular_below);
    return gepp_fallback(plan, n, nrhs, A, lda, ipiv, B, ldb, details, why, a_norm);
  }
  if (uncertified) {
    char why[160];
    std::snprintf(why, sizeof why,
                  "GENP's factors could not solve a random system (estimated reciprocal condition number %.1e): "
                  "too near singular for them",
                  rcond);
    return gepp_fallback(plan, n, nrhs, A, lda, ipiv, B, ldb, details, why, a_norm);
  }
  if (!refined.converged)
    return gepp_fallback(plan, n, nrhs, A, lda, ipiv, B, ldb, details,
                         ("refinement did not converge in " + std::to_string(max_refinement_steps) + " steps").c_str(),
                         a_norm);

  kernels::copy_block(n, nrhs, X.data(), ld, B, ldb);
  no_factors_of_a(n, ipiv);
  if (details) {
    details->refinement_steps = refined.steps;
    details->backward_error = refined.backward_error;
    details->rcond = rcond;
    if (details->note.empty()) details->note = note;
  }
  return 0;
}

template int prbt_gesv<float>(const Plan&, int, int, const float*, int, int*, float*, int, SolveDetails*, InputCheck);
template int prbt_gesv<double>(const Plan&, int, int, const double*, int, int*, double*, int, SolveDetails*,
                               InputCheck);
template int prbt_gesv<std::complex<double>>(const Plan&, int, int, const std::complex<double>*, int, int*,
                                             std::complex<double>*, int, SolveDetails*, InputCheck);
template int prbt_gesv<std::complex<float>>(const Plan&, int, int, const std::complex<float>*, int, int*,
                                            std::complex<float>*, int, SolveDetails*, InputCheck);

}  // namespace hetlu::variants
