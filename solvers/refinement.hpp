// Iterative refinement in working precision: r = b - A x (summed in double), stop when the
// componentwise backward error omega <= (n + 1) eps, else x += A^-1 r with the factors at hand;
// at most max_steps. Where A and its factors live is the callers' business: they pass the
// residual and the solve.
#pragma once

#include <algorithm>
#include <limits>
#include <vector>

#include "solvers/accuracy.hpp"
#include "solvers/copy_block.hpp"

namespace hetlu::variants {

struct RefinementResult {
  int steps = 0;
  double backward_error = 0;
  bool converged = false;
};

// residual(const T* X, int ldx, T* R, int ldr) writes B - A X into the n x nrhs R and returns
// omega (one pass over A gives both); solve_in_place(T* R, int ldr) overwrites R with A^-1 R
// using the factors. Like LAPACK's dgerfs it stops when omega stagnates (falls by less than half
// in a step), and it leaves in X the iterate of least omega, never a worse one than it was given.
// dgerfs' ITMAX: the steps refinement takes at most.
inline constexpr int max_refinement_steps = 5;

template <class T, class Residual, class SolveInPlace>
RefinementResult refine(int n, int nrhs, T* X, int ldx, Residual&& residual, SolveInPlace&& solve_in_place,
                        int max_steps = max_refinement_steps) {
  RefinementResult result;
  const double target = accuracy::refinement_target<T>(n);
  const int ld = std::max(1, n);
  std::vector<T> R(static_cast<size_t>(ld) * nrhs), best;
  double best_omega = std::numeric_limits<double>::infinity();
  int best_steps = 0;
  for (;;) {
    const double omega = residual(static_cast<const T*>(X), ldx, R.data(), ld);
    const bool improved = omega < best_omega;  // false for NaN
    const bool stagnated = !(omega <= 0.5 * best_omega);
    if (improved) {
      if (omega > target && result.steps < max_steps && !stagnated) {
        best.resize(R.size());
        kernels::copy_block(n, nrhs, X, ldx, best.data(), ld);
      }
      best_omega = omega;
      best_steps = result.steps;
    }
    if (omega <= target || result.steps == max_steps || stagnated) {
      if (!improved && !best.empty())
        kernels::copy_block(n, nrhs, best.data(), ld, X, ldx);  // back to the best iterate
      result.backward_error = best_omega;
      result.steps = best_steps;
      result.converged = best_omega <= target;
      return result;
    }
    solve_in_place(R.data(), ld);
    for (int j = 0; j < nrhs; ++j)
      for (int i = 0; i < n; ++i) X[i + static_cast<long long>(j) * ldx] += R[i + static_cast<size_t>(j) * ld];
    ++result.steps;
  }
}

// The residual of refine() for A in host memory.
template <class T>
auto host_residual(int n, int nrhs, const T* A, int lda, const T* B, int ldb) {
  return [=](const T* X, int ldx, T* R, int ldr) {
    return accuracy::residual_and_backward_error(n, nrhs, A, lda, X, ldx, B, ldb, R, ldr);
  };
}

}  // namespace hetlu::variants
