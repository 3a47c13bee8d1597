// Mixed precision (#15.2): a double (or complex double) answer from a single-precision
// factorization, as LAPACK's dsgesv and zcgesv compute it (Langou et al., LAWN 175), extended with
// GMRES-based refinement (Carson and Higham, SISC 2017 and 2018):
//  1. A and B rounded to single; A factored there by the plan's solver (GEPP, CALU, or PRBT's
//     butterflies and GENP), at twice the double rate on CPUs and GPUs alike.
//  2. Classical refinement: residuals in double, each correction solved with the single factors;
//     converged when every column's ||r||_inf <= ||x||_inf ||A||_inf eps sqrt(n) (LAPACK's test).
//     It stops as soon as a step fails to halve the largest scaled residual: where kappa(A) u_single
//     nears 1 it no longer contracts, and that shows in two or three O(n^2) steps, not thirty.
//  3. Where it stalls, GMRES-based refinement: each correction equation solved by GMRES
//     preconditioned by the same factors widened to double, which converges for condition numbers
//     far beyond single's reach, while GMRES's iterations stay within a budget that keeps the
//     mixed path cheaper than factoring in double (gmres_iteration_budget).
//  4. Where that fails too, the double solver, with LAPACK's ITER codes saying why: -2 an entry
//     outside single's range, -3 the single factorization met an exactly zero pivot, -31
//     refinement did not converge. ITER >= 0 is the number of refinement steps (both kinds).
// Precision auto adds two safeguards (MixedSafeguards): where the first classical step contracts
// slowly, kappa_1(A) estimated from the single factors, the double solver answering at once above a
// limit (ITER -1, LAPACK's "implementation-specific reasons"), after one O(n^2) step; and refinement
// carried on, as dgerfs does, until the componentwise backward error omega is as small as it gets.
#include <omp.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <complex>
#include <limits>
#include <optional>
#include <vector>

#include "solvers/accuracy.hpp"
#include "solvers/blas.hpp"
#include "solvers/blas_threads.hpp"
#include "solvers/checks.hpp"
#include "solvers/condition.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/gmres.hpp"
#include "solvers/lu.hpp"
#include "solvers/lu_factors.hpp"
#include "solvers/mixed_device.hpp"
#include "solvers/phases.hpp"
#include "solvers/refinement.hpp"
#include "solvers/rounding_scan.hpp"
#include "solvers/scalar.hpp"
#include "solvers/variants.hpp"
#include "solvers/vendor_lapack.hpp"

namespace hetlu::solvers {
namespace {

constexpr int max_classical_steps = 30;  // dsgesv's ITERMAX
constexpr int max_gmres_steps = 10;      // outer steps of GMRES-based refinement
// dgerfs' ITMAX: steps for omega after LAPACK's test passed.
constexpr int max_polish_steps = variants::max_refinement_steps;
constexpr int not_converged = -(max_classical_steps + 1);  // dsgesv's ITER -31
// GMRES stops an inner solve at this relative residual: each outer step then shrinks the error by
// about this much (Carson and Higham use 1e-4 to 1e-6), so two or three steps reach double's eps.
constexpr double gmres_tolerance = 1e-6;
// MixedSafeguards::certify's refinement of a probe (random sizes and signs): at most this many
// steps, each halving the residual, down to this share of it.
constexpr int max_certify_steps = 20;
constexpr double certified_residual = 1e-6;

// GMRES iterations allowed over the whole refinement, per right-hand side. One iteration reads A and the widened
// factors (16 n^2 bytes: memory-bound), the double LU it saves does (2/3) n^3 flops at the GEMM rate: on the 2-core dev
// machine an iteration took 30 ms at n = 4000 against 0.45 s for dgesv, so n / 800 iterations cost about a third of the
// double solve (n / 256 cost 2.3x dgesv where GMRES failed). At least 4, which small matrices can afford and which one
// error direction needs. With the factors on a device (mixed_device.hpp) an iteration reads the same 16 n^2 bytes at
// the device's memory rate. An estimate from an H100's datasheet (3.35 TB/s) puts an iteration at n = 32768 near 5 ms,
// and n / 800 = 40 of them near a fifth of the 0.96 s double hybrid GEPP (bench/results/2026-11-27-h100-session28.md);
// more where cuBLAS's one-column TRSM runs below that rate. Not yet measured.
int gmres_iteration_budget(int n) {
  return std::max(4, n / 800);
}

// to <- from rounded to Low, column j by column j; false when an entry lies outside Low's range
// (LAPACK's dlag2s, zlag2c).
template <class Low, class T>
bool round_column(int m, const T* from, Low* to) {
  bool fit = true;
  for (int i = 0; i < m; ++i) {
    fit = scalar::fits<Low>(from[i]) && fit;
    to[i] = scalar::narrow_or_zero<Low>(from[i]);  // an entry beyond single's range is not narrowed at all
  }
  return fit;
}

// Whether every entry of the m x n `from` lies within Low's range (LAPACK's dlag2s without the copy).
template <class Low, class T>
bool fits_low(int m, int n, const T* from, int ldf) {
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i)
      if (!scalar::fits<Low>(from[i + static_cast<long long>(j) * ldf])) return false;
  return true;
}

// A pass over a whole matrix or residual: in parallel where it is large (a serial one took 4 % of
// a mixed solve at n = 4000).
inline bool worth_threads(long long entries) {
  return entries > 65536;
}

// The m x n `from` rounded to Low into `to`; false when an entry lies outside Low's range.
template <class Low, class T>
bool round_to_low(int m, int n, const T* from, int ldf, Low* to, int ldt) {
  std::atomic<bool> all_fit{true};
  kernels::for_each_column(n, worth_threads(static_cast<long long>(m) * n), [&](int j) {
    if (!round_column(m, from + static_cast<long long>(j) * ldf, to + static_cast<long long>(j) * ldt))
      all_fit.store(false, std::memory_order_relaxed);
  });
  return all_fit.load();
}

// A rounded to single by the host, and what the same pass found (kernels::RoundingScan): the
// refinement's norms and the input check ride on it (at n = 8000 each separate pass read 512 MB,
// about 27 ms of a 2 s solve on the dev machine).
template <class Low, class T>
kernels::RoundedMatrix round_matrix_to_low(int n, const T* A, int lda, Low* to) {
  kernels::RoundingScan<T> scan(n);
  kernels::for_each_column(n, worth_threads(static_cast<long long>(n) * n), [&](int j) {
    const T* column = A + static_cast<long long>(j) * lda;
    scan.column(j, column);  // which also says whether every entry fits
    Low* rounded = to + static_cast<long long>(j) * n;
    for (int i = 0; i < n; ++i) rounded[i] = scalar::narrow_or_zero<Low>(column[i]);
  });
  return scan.result();
}

// The largest over columns of ||r_j||_inf / (||x_j||_inf cte) in LAPACK's magnitude |re| + |im|:
// <= 1 is converged, as dsgesv and zcgesv test it. A column whose B is not finite (the drop-in does
// not refuse it) counts as converged, as LAPACK's comparisons with NaN find it: no step can make its
// X finite, and the other columns' answers must not cost a second factorization in double. (A NaN
// in A makes every column NaN: nothing there is an answer, and ITER < 0 says so.)
// Into `out` (its storage reused from step to step).
template <class T>
void scaled_residuals(int n, int nrhs, const T* R, int ldr, const T* X, int ldx, double cte,
                      const std::vector<bool>& judged, std::vector<double>& out) {
  out.assign(nrhs, 0.0);
  for (int j = 0; j < nrhs; ++j) {
    if (!judged[j]) continue;
    const T* r = R + static_cast<long long>(j) * ldr;
    const T* x = X + static_cast<long long>(j) * ldx;
    const double rnorm = scalar::abs1(r[blas::iamax(n, r, 1)]), xnorm = scalar::abs1(x[blas::iamax(n, x, 1)]);
    const double ratio = rnorm == 0 ? 0 : rnorm / (xnorm * cte);  // a zero column of B is solved: LAPACK's test
    out[j] = std::isnan(ratio) ? std::numeric_limits<double>::infinity() : ratio;
  }
}

// kappa_1(A) = ||A||_1 ||A^-1||_1, the second estimated with the single factors (dgecon's way):
// about five solves, each reading the factors once (7 % of dgesv's time at n = 4000 on the dev
// machine). Infinite where a solve in single overflows.
template <class Low, class Solve>
double condition_estimate(int n, double norm_1, Solve&& solve) {
  const double inverse_norm = kernels::inverse_norm1_estimate<Low>(
      n, [&](Low* x) { solve(x, n, 1, Transpose::no); }, [&](Low* x) { solve(x, n, 1, Transpose::conjugate); });
  return norm_1 * inverse_norm;
}

// The refinement of steps 2 and 3 around one set of low-precision factors: in host memory, or with
// them and A on the device (variants::MixedDevice).
template <class T, class Low>
class Refinement {
 public:
  // norms: ||A||_inf and ||A||_1. Exactly one of factors and device.
  Refinement(int n, int nrhs, const T* A, int lda, const kernels::RoundedMatrix& norms, const T* B, int ldb, T* X,
             int ldx, const LuFactors<Low>* factors, variants::MixedDevice<T>* device, MixedDetails& details,
             const MixedSafeguards& safeguards)
      : n_(n),
        nrhs_(nrhs),
        A_(A),
        lda_(lda),
        B_(B),
        ldb_(ldb),
        X_(X),
        ldx_(ldx),
        factors_(factors),
        device_(device),
        unpivoted_(factors ? factors->U.has_value() : device->randomized()),
        details_(details),
        safeguards_(safeguards),
        r_(static_cast<size_t>(n) * nrhs),
        low_(static_cast<size_t>(n) * nrhs),
        judged_(nrhs) {
    for (int j = 0; j < nrhs; ++j) {
      const T* b = B + static_cast<long long>(j) * ldb;
      judged_[j] = std::all_of(b, b + n, [](const T& v) { return scalar::is_finite(v); });
    }
    // LAPACK's eps (dlamch('Epsilon')) is the unit roundoff, half of numeric_limits' epsilon.
    cte_ = norms.norm_inf * accuracy::unit_roundoff<double>() * std::sqrt(double(n));
    norm_inf_ = norms.norm_inf;
    norm_1_ = norms.norm_1;
  }

  // iter's value: >= 0 converged, < 0 why not (-1, -2, -31).
  int run() {
    const int iter = refine();
    if (iter < 0 || !safeguards_.certify || certified()) return iter;
    details_.near_singular = true;
    return -1;
  }

 private:
  // refine()'s value: >= 0 converged, < 0 why not (-1, -2, -31).
  int refine() {
    // The first solution is the first correction, from X = 0 (its residual is B).
    for (int j = 0; j < nrhs_; ++j) std::fill_n(X_ + static_cast<long long>(j) * ldx_, n_, T(0));
    if (!add_single_correction(B_, ldb_)) return -2;
    double previous = residual();
    auto classical = [&] { return add_single_correction(r_.data(), n_); };
    if (previous <= 1) return polished(0, classical, details_.classical_steps);
    for (int step = 1; step <= max_classical_steps; ++step) {
      if (!add_single_correction(r_.data(), n_)) return -2;
      details_.classical_steps = step;
      const double now = residual();
      if (now <= 1) return polished(step, classical, details_.classical_steps);
      if (!std::isfinite(now)) return not_converged;  // X overflowed: nothing left to refine
      if (step == 1 && give_up_after_first_step(now / previous)) return -1;
      // Stalled: GMRES's turn, except where the answer must be certified, which a stalling
      // iteration cannot do (certified() refines with the same factors): the double solver's turn.
      if (step >= 2 && !(now <= 0.5 * previous)) {
        if (safeguards_.certify) return not_converged;
        break;
      }
      previous = now;
    }
    return gmres_refinement(previous);
  }

  // Whether A is far enough from singular in double for X to mean something (safeguards.certify).
  // Refinement of B's system cannot tell: where B lies in a singular A's range it converges to one
  // of many solutions. Two cheap checks, on vectors s of random sizes and signs instead of B:
  //  1. ||A||_inf ||M^-1 s||_inf u_single <= 0.01 (M = the single factors) for every probe: M,
  //     within about u_single ||A|| of A, looks well-conditioned from each (a lower bound of
  //     ||M^-1||: a check, not a proof, as dgecon's estimate is one).
  //  2. Else classical refinement of A y = s (the first seeded probe) from y = 0: where each step
  //     after the first at least halves the residual down to 1e-6 ||s||, the iteration matrix
  //     I - A M^-1 contracts on s, so A has no null direction that s reaches. A singular A's
  //     residual keeps the share of s outside A's range (nonzero unless s is orthogonal to a left
  //     null vector), and the halving stops.
  // The probes: a fixed one, then seeded_probes more, seeded by the bits of M^-1 times the fixed
  // one and solved as one block (one pass over the factors). With the fixed probe alone, an A whose
  // left null vector was made orthogonal to it (its seed is in this file) passed both checks: a
  // singular system with B in its range gave exit 0 and rcond 0.125 (a hostile test, 2026-11-28,
  // n = 3 to 1000). The seeded ones exist only once A is factored, so no A can be aimed at them; a
  // singular A passes only where each of them happens to lie almost in its range.
  // Neither (kappa(A) u_single near or above 1): only a solve in double could tell kappa = 1e10
  // from a singular A, so the double solver answers; with certify on, refinement of B therefore
  // stops where classical steps stall, without GMRES. Costs two solves with the single factors (one
  // of a block), and where 1. fails a few steps of 2.
  // GENP's factors (PRBT: no pivoting bounds their growth in single) may lie far more than
  // u_single ||A|| from A, so that M looks well-conditioned from s while A is singular: 8 of 56
  // singular systems with B in A's range (n = 16 to 600) were taken so. For them 2. alone decides:
  // asking that the first correction also halve s's residual still took 6 of 112 (s's share
  // outside a singular A's range is about ||s|| / sqrt(n), under half of it from n = 16 or so).
  // A few residuals and solves more for each PRBT answer.
  static constexpr int seeded_probes = mixed_certificate_seeded_probes;
  bool certified() {
    const std::size_t n = static_cast<std::size_t>(n_);
    auto largest = [](const T* v, std::size_t count) { return scalar::largest_magnitude(v, count); };
    auto looks_well_conditioned = [&](const T* y) {
      return norm_inf_ * largest(y, n) * accuracy::unit_roundoff<Low>() <= 0.01;
    };
    // What y = A^-1 s shows of rcond_1(A): ||A^-1||_1 >= ||y||_1 / ||s||_1; the least of the probes',
    // and the probe that gave it.
    double rcond = 1;
    const T* steepest = nullptr;
    auto bound_rcond = [&](const T* s, const T* y) {
      double s_sum = 0, y_sum = 0;
      for (std::size_t i = 0; i < n; ++i) s_sum += std::abs(s[i]), y_sum += std::abs(y[i]);
      if (y_sum > 0 && norm_1_ > 0 && s_sum / (norm_1_ * y_sum) <= rcond) {
        rcond = s_sum / (norm_1_ * y_sum);
        steepest = y;
      }
    };
    // Random probes see about ||A^-1||_1 / sqrt(n): rcond came out 7x too high at n = 50 and 43x at
    // 800 against dgecon's (a hostile test). dlacn2's second step from the steepest probe comes within
    // dgecon's factor of about 3, at two solves with the single factors more (1-3 % of the mixed solve).
    auto refine_rcond = [&] {
      if (!steepest || !(norm_1_ > 0)) return;
      std::vector<Low> y_low(n);
      for (std::size_t i = 0; i < n; ++i) y_low[i] = Low(steepest[i]);
      const double inverse_norm = kernels::inverse_norm1_step<Low>(
          n_, y_low.data(), [&](Low* x) { solve_low(x, n_, 1, Transpose::no); },
          [&](Low* x) { solve_low(x, n_, 1, Transpose::conjugate); });
      // A solve in single past its range: ||A^-1||_1 beyond any bound this can give.
      if (std::isinf(inverse_norm)) rcond = 0;
      if (inverse_norm > 0 && std::isfinite(inverse_norm)) rcond = std::min(rcond, 1 / (norm_1_ * inverse_norm));
    };
    std::vector<Low> low;                      // count columns rounded to single, then M^-1 times them
    auto solve = [&](const T* S, int count) {  // false where S leaves single's range
      low.resize(n * count);
      if (!round_to_low(n_, count, S, n_, low.data(), n_)) return false;
      solve_low(low.data(), n_, count);
      return true;
    };
    const std::vector<T> fixed = kernels::random_probe<T>(n_, mixed_certificate_probe_seed(n_));
    if (!solve(fixed.data(), 1)) return false;
    const std::vector<T> fixed_y(low.begin(), low.end());
    bool all_look_well = !unpivoted_ && looks_well_conditioned(fixed_y.data());
    if (all_look_well) bound_rcond(fixed.data(), fixed_y.data());
    const unsigned seed = kernels::content_seed(fixed_y.data(), n_);
    std::vector<T> S(n * seeded_probes);
    for (int j = 0; j < seeded_probes; ++j) {
      const std::vector<T> probe = kernels::random_probe<T>(n_, seed + static_cast<unsigned>(j));
      std::copy(probe.begin(), probe.end(), S.begin() + static_cast<std::ptrdiff_t>(n * j));
    }
    if (!solve(S.data(), seeded_probes)) return false;
    std::vector<T> Y(low.begin(), low.end());
    for (int j = 0; j < seeded_probes && all_look_well; ++j) all_look_well = looks_well_conditioned(&Y[n * j]);
    auto certify = [&](int probes) {
      for (int j = 0; j < probes; ++j) bound_rcond(&S[n * j], &Y[n * j]);
      refine_rcond();
      details_.rcond = rcond;
      return true;
    };
    if (all_look_well) return certify(seeded_probes);
    // 2. on the first seeded probe s (S's first column), refining its y = M^-1 s (Y's first column).
    const T* s = S.data();
    std::vector<T> r(n);
    auto residual_of_y = [&] {  // r <- s - A y; its largest entry
      if (device_) {
        device_->residual(1, Y.data(), n_, s, n_, r.data(), n_);
      } else {
        std::copy(s, s + n, r.begin());
        blas::gemm(blas::Op::no_trans, blas::Op::no_trans, n_, 1, n_, T(-1), A_, lda_, Y.data(), n_, T(1), r.data(),
                   n_);
      }
      return largest(r.data(), n);
    };
    auto correct = [&] {  // y += M^-1 r, false where r leaves single's range
      if (!solve(r.data(), 1)) return false;
      for (std::size_t i = 0; i < n; ++i) Y[i] += T(low[i]);
      return true;
    };
    const double s_norm = largest(s, n);
    double previous = s_norm;
    for (int step = 1; step <= max_certify_steps; ++step) {
      details_.certify_steps = step;
      const double now = residual_of_y();
      if (now <= certified_residual * s_norm) return certify(1);
      // The first step may not halve it (as refinement of B allows; kappa_2 = 1e8 needs that).
      if (!std::isfinite(now) || (step >= 2 && !(now <= 0.5 * previous)) || !correct()) return false;
      previous = now;
    }
    return false;
  }

  // Classical steps contract the residual by 1e-3 to 1e-5 on well-conditioned systems, by 0.03 at
  // kappa_2(A) = 1e9 and 0.3 at 1e10 (n = 2000, dev machine): slower than this, kappa is estimated.
  static constexpr double slow_contraction = 0.01;

  // With the safeguards on, whether the double solver should answer after a first step that shrank
  // the residual by `contraction`: where it did not halve it, classical refinement cannot converge;
  // where it is slow, kappa_1(A), estimated once, decides.
  bool give_up_after_first_step(double contraction) {
    if (!(safeguards_.max_condition > 0) || contraction <= slow_contraction) return false;
    details_.first_contraction = contraction;
    if (!(contraction < 0.5)) return true;
    details_.condition_estimate = condition_estimate<Low>(
        n_, norm_1_, [&](Low* x, int ldx, int ncols, Transpose trans) { solve_low(x, ldx, ncols, trans); });
    return !(details_.condition_estimate <= safeguards_.max_condition);
  }

  // X += A^-1 R, solved with the single factors on R rounded to single; false when R lies outside
  // single's range.
  bool add_single_correction(const T* R, int ldr) {
    if (!round_to_low(n_, nrhs_, R, ldr, low_.data(), n_)) return false;
    solve_low(low_.data(), n_, nrhs_);
    for (int j = 0; j < nrhs_; ++j)
      for (int i = 0; i < n_; ++i) X_[i + static_cast<long long>(j) * ldx_] += T(low_[i + static_cast<size_t>(j) * n_]);
    return true;
  }

  // W <- M^-1 W (trans: M^-T, M^-H) with the single factors M, wherever they are.
  void solve_low(Low* W, int ldw, int ncols, Transpose trans = Transpose::no) {
    if (device_)
      device_->solve(W, ldw, ncols, trans);
    else
      factors_->solve(W, ldw, ncols, trans);
  }

  // r <- B - A X in T; the largest scaled residual. With a target omega, omega_ in the same pass.
  double residual() {
    if (device_) {
      const double omega = device_->residual(nrhs_, X_, ldx_, B_, ldb_, r_.data(), n_);
      if (safeguards_.target_omega > 0) omega_ = omega, details_.backward_error = omega_;
    } else if (safeguards_.target_omega > 0) {
      omega_ = accuracy::residual_and_backward_error(n_, nrhs_, A_, lda_, X_, ldx_, B_, ldb_, r_.data(), n_);
      details_.backward_error = omega_;
    } else {
      // LAPACK's test alone: its residual as dsgesv computes it, one GEMM even for one column. Its
      // tester recomputes it so; with a GEMV (other rounding, of the test's own size at small n) an
      // answer hetlu called converged missed the tester's bound at n = 2 (1.62 against 1.41).
      kernels::copy_block(n_, nrhs_, B_, ldb_, r_.data(), n_);
      blas::gemm_only(blas::Op::no_trans, blas::Op::no_trans, n_, nrhs_, n_, T(-1), A_, lda_, X_, ldx_, T(1), r_.data(),
                      n_);
    }
    scaled_residuals(n_, nrhs_, r_.data(), n_, X_, ldx_, cte_, judged_, scaled_);
    return *std::max_element(scaled_.begin(), scaled_.end());
  }

  // LAPACK's test has passed after `steps`; with a target omega, more of the same steps (step():
  // one correction from r_, false when it could not be made; each kept one counted in `counter`)
  // while omega is above the target and still halves (dgerfs' rule). A step that made omega worse
  // is undone, and r_ is then stale: nothing reads it after. An omega still above max_omega is not
  // an answer: -31, and the double solver answers. Otherwise the steps that count.
  template <class Step>
  int polished(int steps, Step&& step, int& counter) {
    if (!(safeguards_.target_omega > 0)) return steps;
    std::vector<T> kept(static_cast<size_t>(n_) * nrhs_);
    // An infinite omega (a column of B not finite: row_omega) no step can lower: none is tried.
    for (int extra = 0; extra < max_polish_steps && std::isfinite(omega_) && omega_ > safeguards_.target_omega;
         ++extra) {
      kernels::copy_block(n_, nrhs_, X_, ldx_, kept.data(), n_);
      const double before = omega_;
      if (!step()) break;  // X unchanged
      residual();
      if (!(omega_ <= before)) {  // worse (or NaN): the previous X stands
        kernels::copy_block(n_, nrhs_, kept.data(), n_, X_, ldx_);
        omega_ = before;
        details_.backward_error = omega_;
        break;
      }
      ++steps, ++counter;
      if (!(omega_ <= 0.5 * before)) break;
    }
    if (safeguards_.max_omega > 0 && !(omega_ <= safeguards_.max_omega)) return not_converged;
    return steps;
  }

  int gmres_refinement(double classical_best) {
    // The best iterate so far, for the case GMRES makes it worse before giving up.
    std::vector<T> best(static_cast<size_t>(n_) * nrhs_);
    kernels::copy_block(n_, nrhs_, X_, ldx_, best.data(), n_);
    // M, the single factors, applied in double: widened on the CPUs, or where they lie on the device.
    std::optional<LuFactors<T>> widened;
    if (!device_)
      widened = factors_->template widened<T>();
    else if (!device_->prepare_gmres()) {
      details_.note = device_->note();
      return not_converged;
    }
    std::vector<T> d(n_);
    auto apply = [&](const T* v, T* w) {  // w = M^-1 A v
      if (device_) return device_->apply_preconditioned(v, w);
      blas::gemm(blas::Op::no_trans, blas::Op::no_trans, n_, 1, n_, T(1), A_, lda_, v, n_, T(0), w, n_);
      widened->solve(w, n_, 1);
    };
    auto precondition = [&](T* w) { device_ ? device_->precondition(w) : widened->solve(w, n_, 1); };
    int budget = gmres_iteration_budget(n_) * nrhs_;
    // One outer step: each column's correction equation (every column's when polishing) by GMRES;
    // false when the budget is spent.
    auto gmres_step = [&](bool every_column) {
      if (budget <= 0) return false;
      for (int j = 0; j < nrhs_ && budget > 0; ++j) {
        if (!every_column && scaled_[j] <= 1) continue;
        const auto solved = kernels::gmres(n_, r_.data() + static_cast<size_t>(j) * n_, d.data(), apply, precondition,
                                           gmres_tolerance, budget);
        budget -= solved.iterations;
        details_.gmres_iterations += solved.iterations;
        T* x = X_ + static_cast<long long>(j) * ldx_;
        for (int i = 0; i < n_; ++i) x[i] += d[i];
      }
      return true;
    };
    double previous = classical_best;
    for (int step = 1; step <= max_gmres_steps && gmres_step(false); ++step) {
      details_.gmres_steps = step;
      const double now = residual();
      if (now <= 1) {
        const int steps = polished(
            details_.classical_steps + step, [&] { return gmres_step(true); }, details_.gmres_steps);
        return steps >= 0 && !gmres_answer_stands() ? not_converged : steps;
      }
      if (!(now < 0.5 * previous)) break;  // GMRES no longer gains either (or X overflowed): the double solver's turn
      kernels::copy_block(n_, nrhs_, X_, ldx_, best.data(), n_);
      previous = now;
    }
    kernels::copy_block(n_, nrhs_, best.data(), n_, X_, ldx_);
    return not_converged;
  }

  // A GMRES answer must stand componentwise whatever the safeguards: LAPACK's dsgesv has no GMRES,
  // and where its classical steps stall, the double solver answers. Its normwise test passes a huge X
  // of a nearly singular A: the drop-in's dsgesv_ gave ITER 3 with omega 5.7e3 (n + 1) u where
  // dgesv's is 0.025 (n + 1) u, and 20x its forward error (n = 300, a column within 1e-10 of the sum
  // of two others; a hostile test). Such an answer is no answer: ITER -31, the double solver's turn.
  // Columns whose B is not finite are left out, as LAPACK's test leaves them.
  bool gmres_answer_stands() const {
    if (safeguards_.target_omega > 0 && safeguards_.max_omega > 0) return true;  // polished() judged it
    const double tolerance = accuracy::tolerance<T>(n_);
    for (int j = 0; j < nrhs_; ++j) {
      if (!judged_[j]) continue;
      const long long offset = static_cast<long long>(j);
      const double omega =
          accuracy::backward_error(n_, 1, A_, lda_, X_ + offset * ldx_, ldx_, B_ + offset * ldb_, ldb_);
      if (!(omega <= tolerance)) return false;
    }
    return true;
  }

  int n_, nrhs_;
  const T* A_;
  int lda_;
  const T* B_;
  int ldb_;
  T* X_;
  int ldx_;
  const LuFactors<Low>* factors_;
  variants::MixedDevice<T>* device_;
  const bool unpivoted_;  // PRBT's GENP made the factors
  MixedDetails& details_;
  const MixedSafeguards& safeguards_;
  double omega_ = std::numeric_limits<double>::infinity();
  std::vector<T> r_;
  std::vector<Low> low_;
  std::vector<double> scaled_;
  std::vector<bool> judged_;  // per column: its B finite, so LAPACK's test can judge it (scaled_residuals)
  double cte_ = 0;
  double norm_inf_ = 0;
  double norm_1_ = 0;
};

// The safeguards of a mixed solve by `solver`. PRBT mixes A's columns, so LAPACK's normwise test
// passes answers that are only normwise backward stable: with one column of A scaled by 1e10 and
// another by 1e-10, omega 0.3 and X wrong in every digit. As PRBT's double solve does, its answer
// must reach the double solver's accuracy (MixedSafeguards::double_accuracy) whatever the caller
// asked, LAPACK's test alone included.
template <class T>
MixedSafeguards safeguards_for(Solver solver, int n, MixedSafeguards safeguards) {
  if (solver != Solver::prbt) return safeguards;
  const MixedSafeguards accurate = MixedSafeguards::double_accuracy<T>(n);
  if (!(safeguards.target_omega > 0)) safeguards.target_omega = accurate.target_omega;
  if (!(safeguards.max_omega > 0)) safeguards.max_omega = accurate.max_omega;
  safeguards.certify = true;
  return safeguards;
}

}  // namespace

template <class T>
MixedSafeguards MixedSafeguards::double_accuracy(int n) {
  MixedSafeguards safeguards;
  safeguards.target_omega = accuracy::refinement_target<T>(n);
  safeguards.max_omega = accuracy::tolerance<T>(n);
  safeguards.certify = true;
  safeguards.estimate_after_fallback = true;
  return safeguards;
}

// GEPP's factors of the n x n A (taken) by the BLAS library's getrf (LuRoutines::blas_library), and
// solved by its getrs; where the library declines A, by low_plan as factor() makes them.
template <class F>
int factor_by_blas_library(const Plan& low_plan, int n, kernels::WorkspaceVector<F>&& A, LuFactors<F>& factors) {
  factors = LuFactors<F>{};
  factors.n = n, factors.ld = std::max(1, n);
  factors.ipiv.resize(n);
  int info = 0;
  if (!vendor::getrf(n, n, A.data(), factors.ld, factors.ipiv.data(), &info))
    return factor(low_plan, n, std::move(A), factors);  // A as it was: the library changed nothing
  factors.lu = std::move(A);
  factors.blas_library_solves = true;
  return info;
}

template <class T>
int mixed_gesv(const Plan& low_plan, const Plan& high_plan, int n, int nrhs, T* A, int lda, int* ipiv, const T* B,
               int ldb, T* X, int ldx, MixedDetails& details, const MixedSafeguards& requested, InputCheck check,
               LuRoutines routines, bool time_phases) {
  using Low = scalar::low_t<T>;
  details = MixedDetails{};
  if (n == 0) return 0;
  const kernels::BlasHold hold(low_plan);
  const MixedSafeguards safeguards = safeguards_for<T>(low_plan.solver, n, requested);
  variants::PhaseClock clock(time_phases ? &details.phase_seconds : nullptr);
  auto single_path = [&]() -> int {
    kernels::WorkspaceVector<Low> a;  // A rounded by the host; kept across calls: no page faults
    kernels::RoundedMatrix rounded;
    // What the pass over A found: the input check (throws, naming the entry) and the norms; false
    // where an entry does not fit single.
    auto scanned = [&](const kernels::RoundedMatrix& found, const char* phase) {
      rounded = found;
      if (!rounded.finite && check == InputCheck::finite) checks::finite("A", n, n, A, lda);
      // Where the sums overflow a finite A (which then does not fit single either), the norm of
      // 2^-64 A: the double solver's rcond was 0, and A called singular (a matrix of entries 1e306).
      details.a_norm1 = rounded.finite ? kernels::overflow_safe_norm(rounded.norm_1, n, A, lda, false)
                                       : kernels::ScaledNorm{rounded.norm_1, 0};
      clock.mark(phase);
      return rounded.fits;
    };
    auto round_on_host = [&] {
      a.resize(static_cast<size_t>(n) * n);
      return scanned(round_matrix_to_low(n, A, lda, a.data()), "rounding to single");
    };
    // No right-hand side: LAPACK's dsgesv still factors (ITER 0, A as it was, the single
    // factorization's pivots; or A's double factors where single fails, ITER -2 or -3).
    // B beyond single's range is ITER -2 whatever A's single factorization meets, as LAPACK's
    // dsgesv rounds B first (it said -3 where both held). A is still scanned: its input check and
    // norm ride on that pass.
    const int singular_in_low = fits_low<Low>(n, nrhs, B, ldb) ? -3 : -2;
    const bool on_device = nrhs > 0 && variants::MixedDevice<T>::applies(low_plan);
    const bool round_there = on_device && variants::MixedDevice<T>::rounds_on_device(low_plan);
    if (!round_there && !round_on_host()) return -2;
    if (on_device) {
      {
        variants::MixedDevice<T> device(low_plan, n, A, lda);
        if (const std::optional<int> info = device.factor(round_there ? nullptr : a.data(), nrhs, check)) {
          const char* phase = low_plan.solver == Solver::prbt
                                  ? "A up in double, rounded to single and randomized there, GENP there"
                                  : "factorization, A up in double beside it and rounded to single there";
          if (round_there && !scanned(device.scan(), phase)) return -2;
          if (!round_there) clock.mark("factorization, A in double up beside it");
          if (*info != 0) return singular_in_low;
          std::copy(device.pivots().begin(), device.pivots().end(), ipiv);
          details.refined_on_device = true;
          try {
            const int iter =
                Refinement<T, Low>(n, nrhs, A, lda, rounded, B, ldb, X, ldx, nullptr, &device, details, safeguards)
                    .run();
            clock.mark("refinement on the device");
            return iter;
          } catch (const DeviceOutOfMemory& e) {  // a scratch buffer a step wanted: the double solver answers
            details.note = std::string("device memory ran out during refinement: ") + e.what();
            details.device_memory_ran_out = true;
            return -1;
          }
        }
        details.note = device.note();
      }
      if (round_there) {
        if (!round_on_host()) return -2;
      } else {
        round_to_low(n, n, A, lda, a.data(), n);  // the factorization may have begun on the first copy
      }
    }
    LuFactors<Low> factors;
    const int info = routines == LuRoutines::blas_library && low_plan.solver == Solver::gepp
                         ? factor_by_blas_library(low_plan, n, std::move(a), factors)
                         : factor(low_plan, n, std::move(a), factors);
    clock.mark("factorization");
    if (info != 0) return singular_in_low;
    std::copy(factors.ipiv.begin(), factors.ipiv.end(), ipiv);
    if (nrhs == 0) return 0;
    const int iter =
        Refinement<T, Low>(n, nrhs, A, lda, rounded, B, ldb, X, ldx, &factors, nullptr, details, safeguards).run();
    clock.mark("refinement");
    return iter;
  };
  details.iter = single_path();
  if (details.iter >= 0) return 0;
  // The double solver, as dsgesv's fallback: A overwritten by its factors, X by the solution (X as
  // it was where A is singular, as LAPACK's leaves it).
  const bool by_library = routines == LuRoutines::blas_library;
  int info = 0;
  if (!(by_library && vendor::getrf(n, n, A, lda, ipiv, &info)))
    info = getrf(high_plan, n, n, A, lda, ipiv, InputCheck::none);
  if (info != 0) return info;
  kernels::copy_block(n, nrhs, B, ldb, X, ldx);
  if (!(by_library && vendor::getrs(Transpose::no, n, nrhs, A, lda, ipiv, X, ldx)))
    variants::lu_getrs(Transpose::no, n, nrhs, A, lda, ipiv, X, ldx);
  clock.mark("the double solver");
  // How singular A is, from the double solver's factors (high_plan: GEPP or CALU).
  const bool estimate = safeguards.estimate_after_fallback || (safeguards.certify && details.near_singular);
  if (estimate && high_plan.solver != Solver::prbt)
    details.rcond = details.a_norm1.rcond(variants::lu_reciprocal_condition(n, A, lda, ipiv, details.a_norm1.value));
  return 0;
}

template MixedSafeguards MixedSafeguards::double_accuracy<double>(int);
template MixedSafeguards MixedSafeguards::double_accuracy<std::complex<double>>(int);
template int mixed_gesv<double>(const Plan&, const Plan&, int, int, double*, int, int*, const double*, int, double*,
                                int, MixedDetails&, const MixedSafeguards&, InputCheck, LuRoutines, bool);
template int mixed_gesv<std::complex<double>>(const Plan&, const Plan&, int, int, std::complex<double>*, int, int*,
                                              const std::complex<double>*, int, std::complex<double>*, int,
                                              MixedDetails&, const MixedSafeguards&, InputCheck, LuRoutines, bool);

}  // namespace hetlu::solvers
