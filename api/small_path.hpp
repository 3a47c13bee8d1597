// The small-matrix path on its own (#14.1), for a caller that wants LAPACK's info and nothing else:
// the C API called without a report builds no SolveReport and no plan (a sixth of an n = 1 call).
#pragma once

#include "hetlu/hetlu.hpp"

namespace hetlu::detail {

// When `solver` on `options` takes the small path for an m x n matrix (api/front_end.hpp): checks the
// arguments, factors with the BLAS library's getrf, sets *info and returns true. Otherwise
// returns false and changes nothing.
template <class T>
bool small_path_getrf(Solver solver, int m, int n, T* A, int lda, int* ipiv, const Options& options, int* info);

// The same for a GEPP call on the CPU target with default options and the default database (the C
// API's call without options or report): nothing built, no lock. Returns LAPACK's info (>= 0) when
// it factored A, or -1 having changed nothing when the call must go the full way: the crossover is
// not resolved yet (the full way resolves it), the order is at or above it, an argument or an entry
// of A is wrong (the full way says which), or an entry is one the library mishandles (tiny: the full
// way's LU, also where the library's factors are refused after the fact: a pivot below 1 / max,
// A put back). Throws only where the copy of A the library's call keeps cannot be allocated.
template <class T>
int small_path_getrf_default(int m, int n, T* A, int lda, int* ipiv);

// The same for getrs (the C API's hetlu_?getrs): true when it solved, false having changed nothing
// where the call must go the full way (not resolved yet, at or above the crossover, a bad argument,
// pivot or entry of B, which the full way names, or factors the small path declines).
template <class T>
bool small_path_getrs_default(char trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb);

// The default database's crossover is resolved again on the next call (clear_plan_cache: a
// calibration in this process may have measured a new one).
void forget_default_crossover();

}  // namespace hetlu::detail
