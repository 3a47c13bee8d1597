// The mixed-precision solve's front end, shared by mixed_gesv (dsgesv's semantics) and
// auto_precision_gesv (which adds safeguards): arguments checked, plans resolved, the solve timed
// and reported.
#pragma once

#include "hetlu/hetlu.hpp"
#include "solvers/lu.hpp"

namespace hetlu::detail {

// mixed_gesv's work without its ITER argument: details says what the refinement did.
template <class T>
SolveReport mixed_solve(Solver solver, int n, int nrhs, T* A, int lda, int* ipiv, const T* B, int ldb, T* X, int ldx,
                        const Options& options, const solvers::MixedSafeguards& safeguards,
                        solvers::MixedDetails& details);

// Forgets what precision auto has seen the mixed path do in this process (tests start afresh).
void forget_mixed_fallbacks();

}  // namespace hetlu::detail
