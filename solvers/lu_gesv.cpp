// getrf + getrs for the pivoting variants, with optional refinement in working precision.
#include <complex>
#include <string>

#include "solvers/checks.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/phases.hpp"
#include "solvers/refinement.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {

template <class T>
int lu_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv, LoadBalance* balance, InputCheck check) {
  const bool hybrid = plan.target == Target::hybrid;
  if (!hybrid && check == InputCheck::finite) checks::finite("A", m, n, A, lda);
  switch (plan.solver) {
    case Solver::gepp:
      return hybrid ? gepp_hybrid_getrf(plan, m, n, A, lda, ipiv, balance, check)
                    : gepp_cpu_getrf(plan, m, n, A, lda, ipiv);
    case Solver::calu:
      return hybrid ? calu_async_getrf(plan, m, n, A, lda, ipiv, balance, check)
                    : calu_cpu_getrf(plan, m, n, A, lda, ipiv);
    case Solver::prbt:
      break;
  }
  throw InvalidArgument("solver prbt has no P A = L U factorization of A (it factors a randomized A): use gesv");
}

template <class T>
int lu_gesv(const Plan& plan, int n, int nrhs, T* LU, int ldlu, int* ipiv, const T* A_original, int lda, T* B, int ldb,
            SolveDetails* details, InputCheck check) {
  PhaseClock clock(details);
  const int info = lu_getrf(plan, n, n, LU, ldlu, ipiv, nullptr, check);
  clock.mark("factorization");
  if (info > 0) return info;
  const bool refine_it = plan.refinement == Refinement::working && A_original;
  if (!refine_it) {
    lu_getrs(Transpose::no, n, nrhs, LU, ldlu, ipiv, B, ldb);
    clock.mark("solve");
    return 0;
  }
  std::vector<T> X(static_cast<size_t>(std::max(1, n)) * nrhs);
  const int ld = std::max(1, n);
  kernels::copy_block(n, nrhs, B, ldb, X.data(), ld);
  auto solve_in_place = [&](T* R, int ldr) { lu_getrs(Transpose::no, n, nrhs, LU, ldlu, ipiv, R, ldr); };
  solve_in_place(X.data(), ld);
  const RefinementResult r =
      refine(n, nrhs, X.data(), ld, host_residual(n, nrhs, A_original, lda, B, ldb), solve_in_place);
  kernels::copy_block(n, nrhs, X.data(), ld, B, ldb);
  clock.mark("solve and refinement");
  if (details) {
    details->refinement_steps = r.steps;
    details->backward_error = r.backward_error;
    if (!r.converged && details->note.empty())
      details->note = "refinement stopped after " + std::to_string(r.steps) + " steps above (n+1) eps";
  }
  return 0;
}

template int lu_getrf<float>(const Plan&, int, int, float*, int, int*, LoadBalance*, InputCheck);
template int lu_getrf<double>(const Plan&, int, int, double*, int, int*, LoadBalance*, InputCheck);
template int lu_getrf<std::complex<double>>(const Plan&, int, int, std::complex<double>*, int, int*, LoadBalance*,
                                            InputCheck);
template int lu_getrf<std::complex<float>>(const Plan&, int, int, std::complex<float>*, int, int*, LoadBalance*,
                                           InputCheck);
template int lu_gesv<float>(const Plan&, int, int, float*, int, int*, const float*, int, float*, int, SolveDetails*,
                            InputCheck);
template int lu_gesv<double>(const Plan&, int, int, double*, int, int*, const double*, int, double*, int, SolveDetails*,
                             InputCheck);
template int lu_gesv<std::complex<double>>(const Plan&, int, int, std::complex<double>*, int, int*,
                                           const std::complex<double>*, int, std::complex<double>*, int, SolveDetails*,
                                           InputCheck);
template int lu_gesv<std::complex<float>>(const Plan&, int, int, std::complex<float>*, int, int*,
                                          const std::complex<float>*, int, std::complex<float>*, int, SolveDetails*,
                                          InputCheck);

}  // namespace hetlu::variants
