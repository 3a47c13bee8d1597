#include <algorithm>
#include <random>
#include <vector>

#include "probes/probes.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/blas.hpp"
#include "solvers/butterfly.hpp"

namespace hetlu::probes {

Rate measure_pass_cost(const std::string& kind, int n, int repetitions) {
  if (kind != "randomize" && kind != "triangular_solve" && kind != "transposed_solve" && kind != "residual")
    throw InvalidArgument("pass kind '" + kind + "' must be randomize, triangular_solve, transposed_solve or residual");
  if (n < 4 || n % 4 != 0)
    throw InvalidArgument("pass probe order n = " + std::to_string(n) + ": need n >= 4, n % 4 == 0");
  const size_t entries = static_cast<size_t>(n) * n;
  std::vector<double> A(entries), work(entries), x(n), b(n), r(n);
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (auto& v : A) v = dist(rng);
  // A dominant diagonal keeps the triangular solves finite, so that no run is slowed by subnormals.
  for (int i = 0; i < n; ++i) A[i + static_cast<size_t>(i) * n] = n;
  for (auto& v : b) v = dist(rng);
  const auto U = kernels::Butterfly<double>::random(n, 1), V = kernels::Butterfly<double>::random(n, 2);
  std::vector<double> seconds;
  if (kind == "randomize") {
    seconds = time_samples([&] { kernels::randomize_two_sided(U, V, n, A.data(), n, work.data(), n); }, repetitions);
  } else if (kind == "triangular_solve") {
    // The factors PRBT's solves read: L unit lower and U upper in one array, one right-hand side.
    seconds = time_samples(
        [&] {
          std::copy(b.begin(), b.end(), x.begin());
          using namespace blas;
          trsm(Side::left, Uplo::lower, Op::no_trans, Diag::unit, n, 1, 1.0, A.data(), n, x.data(), n);
          trsm(Side::left, Uplo::upper, Op::no_trans, Diag::non_unit, n, 1, 1.0, A.data(), n, x.data(), n);
        },
        repetitions);
  } else if (kind == "transposed_solve") {
    // (L U)^-T: the condition estimate's other half, through U^T then L^T.
    seconds = time_samples(
        [&] {
          std::copy(b.begin(), b.end(), x.begin());
          using namespace blas;
          trsm(Side::left, Uplo::upper, Op::trans, Diag::non_unit, n, 1, 1.0, A.data(), n, x.data(), n);
          trsm(Side::left, Uplo::lower, Op::trans, Diag::unit, n, 1, 1.0, A.data(), n, x.data(), n);
        },
        repetitions);
  } else {
    std::fill(x.begin(), x.end(), 1.0);
    seconds = time_samples(
        [&] { accuracy::residual_and_backward_error(n, 1, A.data(), n, x.data(), n, b.data(), n, r.data(), n); },
        repetitions);
  }
  // The work is the entries, in units of 1e9, so that the rate's inverse is nanoseconds per entry.
  return rate_from_seconds(double(entries) / 1e9, seconds);
}

}  // namespace hetlu::probes
