// The small-matrix path on its own (#14.1), for a caller that wants LAPACK's info and nothing else:
// the C API called without a report builds no SolveReport and no plan (a sixth of an n = 1 call).
#pragma once

#include "hetlu/hetlu.hpp"

namespace hetlu::detail {

// When `solver` on `options` takes the small path for an m x n matrix (api/solve.cpp): checks the
// arguments, factors with the BLAS library's getrf, sets *info and returns true. Otherwise
// returns false and changes nothing.
template <class T>
bool small_path_getrf(Solver solver, int m, int n, T* A, int lda, int* ipiv, const Options& options, int* info);

}  // namespace hetlu::detail
