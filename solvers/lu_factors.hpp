// The factors of A that a refinement solves with, whichever solver made them: P A = L U (GEPP,
// CALU) or Ar = U^T diag(A, I) V = L U (PRBT: butterflies, then GENP without pivoting). The
// mixed-precision solve (mixed_gesv.cpp) factors in single and refines in double with them, and
// GMRES-based refinement applies the same factors widened to double as its preconditioner.
#pragma once

#include <optional>
#include <vector>

#include "hetlu/types.hpp"
#include "solvers/butterfly.hpp"
#include "solvers/workspace.hpp"

namespace hetlu::solvers {

template <class F>
struct LuFactors {
  int n = 0;
  int ld = 0;                                 // the factors' order: n, or PRBT's padding to a multiple of 4
  kernels::WorkspaceVector<F> lu;             // ld x ld, L below the diagonal (unit), U on and above
  std::vector<int> ipiv;                      // GEPP, CALU: LAPACK's 1-based row interchanges; PRBT: the identity
  std::optional<kernels::Butterfly<F>> U, V;  // PRBT only: their presence is what says PRBT made the factors
  // GEPP's factors below the small-matrix crossover (LuRoutines::blas_library): solved by the BLAS
  // library's getrs (vendor::getrs, hetlu's loops up to order 32) where it takes them, else as any.
  bool blas_library_solves = false;

  // W <- A^-1 W for the n x ncols W (trans: A^-T W, or A^-H W).
  void solve(F* W, int ldw, int ncols, Transpose trans = Transpose::no) const;

  // The same factors held as G (float to double, complex<float> to complex<double>): a solve in G's
  // precision with L and U as they were rounded.
  template <class G>
  LuFactors<G> widened() const {
    LuFactors<G> out;
    out.n = n, out.ld = ld, out.ipiv = ipiv;
    out.lu.assign(lu.begin(), lu.end());
    if (U) out.U = kernels::widened<G>(*U), out.V = kernels::widened<G>(*V);
    return out;
  }
};

// Factors the n x n A (leading dimension max(1, n); taken: GEPP and CALU factor it in place) by
// plan.solver on plan.target (PRBT: the CPUs randomize, and on the hybrid target the devices share
// GENP's updates, as prbt.cpp runs it on several devices), into `factors`. One device's mixed path
// is mixed_device.hpp's, which keeps the factors there. Returns LAPACK's info:
// > 0 an exactly zero pivot (PRBT: also an exactly zero row or column, which makes A singular
// however it is randomized).
template <class F>
int factor(const Plan& plan, int n, kernels::WorkspaceVector<F>&& A, LuFactors<F>& factors);

}  // namespace hetlu::solvers
