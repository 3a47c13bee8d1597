// Front ends of the batched solve and the condition estimate (hetlu.hpp): arguments checked here,
// with a message naming what is wrong, then the solvers' kernels.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/stopwatch.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/checks.hpp"
#include "solvers/condition.hpp"
#include "solvers/lu.hpp"
#include "solvers/variants.hpp"

namespace hetlu {
namespace {

void require(bool ok, const std::string& what) {
  if (!ok) throw InvalidArgument(what);
}

}  // namespace

template <class T>
void gesv_batched(int batch, int n, int nrhs, T* A, int lda, std::int64_t stride_a, int* ipiv, std::int64_t stride_ipiv,
                  T* B, int ldb, std::int64_t stride_b, int* info) {
  const auto text = [](auto v) { return std::to_string(v); };
  require(batch >= 0, "gesv_batched: batch = " + text(batch) + " must be >= 0");
  require(n >= 0, "gesv_batched: n = " + text(n) + " must be >= 0");
  require(nrhs >= 0, "gesv_batched: nrhs = " + text(nrhs) + " must be >= 0");
  require(lda >= std::max(1, n),
          "gesv_batched: lda = " + text(lda) + " must be >= max(1, n) = " + text(std::max(1, n)));
  require(ldb >= std::max(1, n),
          "gesv_batched: ldb = " + text(ldb) + " must be >= max(1, n) = " + text(std::max(1, n)));
  if (batch == 0) return;
  require(info != nullptr, "gesv_batched: info is a null pointer");
  // Systems may not overlap: each stride covers its matrix (a batch of one needs none).
  const std::int64_t a_size = std::int64_t(lda) * n, b_size = std::int64_t(ldb) * nrhs;
  require(batch == 1 || stride_a >= a_size,
          "gesv_batched: stride_a = " + text(stride_a) + " is less than lda * n = " + text(a_size));
  require(batch == 1 || stride_ipiv >= n,
          "gesv_batched: stride_ipiv = " + text(stride_ipiv) + " is less than n = " + text(n));
  require(batch == 1 || stride_b >= b_size,
          "gesv_batched: stride_b = " + text(stride_b) + " is less than ldb * nrhs = " + text(b_size));
  if (n == 0) {
    std::fill(info, info + batch, 0);
    return;
  }
  require(A != nullptr, "gesv_batched: A is a null pointer");
  require(ipiv != nullptr, "gesv_batched: ipiv is a null pointer");
  require(B != nullptr || nrhs == 0, "gesv_batched: B is a null pointer");
  solvers::gesv_batched(batch, n, nrhs, A, lda, stride_a, ipiv, stride_ipiv, B, ldb, stride_b, info);
}

template <class T>
double rcond_estimate(int n, const T* LU, int lda, const int* ipiv, double anorm) {
  require(n >= 0, "rcond_estimate: n = " + std::to_string(n) + " must be >= 0");
  require(lda >= std::max(1, n), "rcond_estimate: lda = " + std::to_string(lda) + " must be >= max(1, n)");
  require(!(anorm < 0), "rcond_estimate: anorm = " + std::to_string(anorm) + " must be >= 0");
  if (n == 0) return 1;
  if (anorm == 0 || std::isnan(anorm)) return 0;
  for (int i = 0; i < n; ++i)
    if (LU[i + static_cast<std::int64_t>(i) * lda] == T(0)) return 0;  // exactly singular
  auto solve = [&](T* x, Transpose trans) { variants::lu_getrs(trans, n, 1, LU, lda, ipiv, x, n); };
  const double inverse_norm = kernels::inverse_norm1_estimate<T>(
      n, [&](T* x) { solve(x, Transpose::no); }, [&](T* x) { solve(x, Transpose::yes); });
  if (!std::isfinite(inverse_norm) || inverse_norm == 0) return 0;
  return 1.0 / inverse_norm / anorm;
}

SolveReport mixed_gesv(int n, int nrhs, double* A, int lda, int* ipiv, const double* B, int ldb, double* X, int ldx,
                       int* iter, const Options& options) {
  const auto text = [](auto v) { return std::to_string(v); };
  require(n >= 0, "mixed_gesv: n = " + text(n) + " must be >= 0");
  require(nrhs >= 0, "mixed_gesv: nrhs = " + text(nrhs) + " must be >= 0");
  for (auto [name, ld] : {std::pair{"lda", lda}, std::pair{"ldb", ldb}, std::pair{"ldx", ldx}})
    require(ld >= std::max(1, n), std::string("mixed_gesv: ") + name + " = " + text(ld) + " must be >= max(1, n)");
  require(iter != nullptr, "mixed_gesv: iter is a null pointer");
  if (n > 0) {
    require(A && ipiv, "mixed_gesv: A or ipiv is a null pointer");
    require((B && X) || nrhs == 0, "mixed_gesv: B or X is a null pointer");
  }
  if (options.input_check == InputCheck::finite && n > 0) {
    checks::finite("A", n, n, A, lda);
    checks::finite("B", n, nrhs, B, ldb);
  }
  if (options.target != Target::cpu) throw InvalidArgument("mixed_gesv runs on the CPU target only (so far)");
  const Plan single = resolve_plan(Solver::gepp, Precision::single, n, n, options).plan;
  SolveReport report;
  report.plan = resolve_plan(Solver::gepp, Precision::double_, n, n, options).plan;
  const auto run = [&] {
    report.info = solvers::mixed_gesv(single, report.plan, n, nrhs, A, lda, ipiv, B, ldb, X, ldx, iter);
  };
  if (options.measure_time) {
    report.seconds = detail::seconds_of(run);
  } else {
    run();
  }
  report.refinement_steps = std::max(0, *iter);
  if (*iter < 0)
    report.warnings.push_back(*iter == -2   ? "an entry lies outside single precision's range: solved in double"
                              : *iter == -3 ? "single precision's LU met a zero pivot: solved in double"
                                            : "refinement from single precision stalled: solved in double");
  report.gflops = report.seconds > 0 ? detail::gesv_flops(n, nrhs) / report.seconds / 1e9 : 0;
  return report;
}

template void gesv_batched<float>(int, int, int, float*, int, std::int64_t, int*, std::int64_t, float*, int,
                                  std::int64_t, int*);
template void gesv_batched<double>(int, int, int, double*, int, std::int64_t, int*, std::int64_t, double*, int,
                                   std::int64_t, int*);
template double rcond_estimate<float>(int, const float*, int, const int*, double);
template double rcond_estimate<double>(int, const double*, int, const int*, double);

}  // namespace hetlu
