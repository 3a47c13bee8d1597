// Mixed precision (#15.2): a double answer from a single-precision factorization, as LAPACK's
// dsgesv computes it (Langou et al., LAWN 175): A and B rounded to single, A factored there (hetlu's
// GEPP at the single-precision plan, twice the double rate on CPUs and GPUs alike), then classical
// iterative refinement with residuals in double, each correction solved with the single factors;
// converged when every column's ||r||_inf <= ||x||_inf ||A||_inf eps sqrt(n), LAPACK's test.
// Where the single path cannot give the answer, the double solver does, and `iter` says why, with
// LAPACK's codes: -2 an entry outside single's range, -3 the single factorization hit an exactly
// zero pivot, -31 refinement did not converge. Unlike dsgesv, which always spends its 30 steps
// first, refinement stops as soon as a step fails to halve the largest scaled residual: a matrix too
// ill-conditioned for single (kappa u_single near 1) is handed to the double solver after two or
// three O(n^2) steps, not thirty.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "solvers/blas.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/lu.hpp"
#include "solvers/variants.hpp"

namespace hetlu::solvers {
namespace {

constexpr int max_refinement_steps = 30;

// to <- from rounded to float; false when an entry lies outside float's range (LAPACK's dlag2s).
bool round_to_single(int m, int n, const double* from, int ldf, float* to, int ldt) {
  const double largest = std::numeric_limits<float>::max();
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      const double v = from[i + static_cast<long long>(j) * ldf];
      if (v < -largest || v > largest) return false;  // NaN passes, as in dlag2s
      to[i + static_cast<long long>(j) * ldt] = static_cast<float>(v);
    }
  return true;
}

// The largest over columns of ||r_j||_inf / (||x_j||_inf cte): <= 1 is converged.
double scaled_residual(int n, int nrhs, const double* R, int ldr, const double* X, int ldx, double cte) {
  double worst = 0;
  for (int j = 0; j < nrhs; ++j) {
    const double* r = R + static_cast<long long>(j) * ldr;
    const double* x = X + static_cast<long long>(j) * ldx;
    const double rnorm = std::abs(r[blas::iamax(n, r, 1)]), xnorm = std::abs(x[blas::iamax(n, x, 1)]);
    const double ratio = rnorm / (xnorm * cte);
    worst = std::max(worst, std::isnan(ratio) ? std::numeric_limits<double>::infinity() : ratio);
  }
  return worst;
}

double norm_inf(int n, const double* A, int lda) {
  std::vector<double> rows(n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) rows[i] += std::abs(A[i + static_cast<long long>(j) * lda]);
  return n ? *std::max_element(rows.begin(), rows.end()) : 0.0;
}

}  // namespace

int mixed_gesv(const Plan& single_plan, const Plan& double_plan, int n, int nrhs, double* A, int lda, int* ipiv,
               const double* B, int ldb, double* X, int ldx, int* iter) {
  *iter = 0;
  if (n == 0 || nrhs == 0) return 0;
  const int ld = n;
  std::vector<float> sa(static_cast<std::size_t>(n) * n), sx(static_cast<std::size_t>(n) * nrhs);
  std::vector<double> r(static_cast<std::size_t>(n) * nrhs);
  // LAPACK's eps (dlamch('Epsilon')) is the unit roundoff, half of numeric_limits' epsilon.
  const double cte = norm_inf(n, A, lda) * (std::numeric_limits<double>::epsilon() / 2) * std::sqrt(double(n));
  // residual r <- B - A X, in double
  auto residual = [&] {
    kernels::copy_block(n, nrhs, B, ldb, r.data(), ld);
    blas::gemm(blas::Op::no_trans, blas::Op::no_trans, n, nrhs, n, -1.0, A, lda, X, ldx, 1.0, r.data(), ld);
  };
  auto single_path = [&]() -> int {  // iter's value: >= 0 converged, < 0 the reason to fall back
    if (!round_to_single(n, n, A, lda, sa.data(), ld) || !round_to_single(n, nrhs, B, ldb, sx.data(), ld)) return -2;
    if (getrf(single_plan, n, n, sa.data(), ld, ipiv, InputCheck::none) != 0) return -3;
    variants::lu_getrs(Transpose::no, n, nrhs, sa.data(), ld, ipiv, sx.data(), ld);
    for (int j = 0; j < nrhs; ++j)
      for (int i = 0; i < n; ++i) X[i + static_cast<long long>(j) * ldx] = sx[i + static_cast<long long>(j) * ld];
    residual();
    double previous = scaled_residual(n, nrhs, r.data(), ld, X, ldx, cte);
    if (previous <= 1) return 0;
    for (int step = 1; step <= max_refinement_steps; ++step) {
      if (!round_to_single(n, nrhs, r.data(), ld, sx.data(), ld)) return -2;
      variants::lu_getrs(Transpose::no, n, nrhs, sa.data(), ld, ipiv, sx.data(), ld);
      for (int j = 0; j < nrhs; ++j)
        for (int i = 0; i < n; ++i) X[i + static_cast<long long>(j) * ldx] += sx[i + static_cast<long long>(j) * ld];
      residual();
      const double now = scaled_residual(n, nrhs, r.data(), ld, X, ldx, cte);
      if (now <= 1) return step;
      if (step >= 2 && !(now <= 0.5 * previous)) break;  // stalled: the double solver is cheaper
      previous = now;
    }
    return -(max_refinement_steps + 1);
  };
  *iter = single_path();
  if (*iter >= 0) return 0;
  // The double solver, as dsgesv's fallback: A overwritten by its factors, X by the solution.
  kernels::copy_block(n, nrhs, B, ldb, X, ldx);
  const int info = getrf(double_plan, n, n, A, lda, ipiv, InputCheck::none);
  if (info == 0) variants::lu_getrs(Transpose::no, n, nrhs, A, lda, ipiv, X, ldx);
  return info;
}

}  // namespace hetlu::solvers
