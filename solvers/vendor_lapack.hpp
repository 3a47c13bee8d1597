// The LAPACK routines of the BLAS library hetlu links (OpenBLAS), found in that library itself.
// Below the small-matrix crossover the LAPACK drop-in hands getrf and gesv to them: OpenBLAS's
// small-matrix LU has no plan, task graph or thread wake-up (n = 4: 0.17 us against 4.5 through
// hetlu's front end). Looked up by address in the library's own symbol table, never by name in the
// process, so that a drop-in exporting the same names (libhetlu_lapack, preloaded) is never called
// back.
#pragma once

#include "hetlu/types.hpp"

namespace hetlu::vendor {

// LAPACK's xGETRF / xGESV of the BLAS library, or, at orders up to kernels::tiny_lu_max_order,
// LAPACK's unblocked arithmetic in hetlu's own loops (solvers/tiny_lu.hpp: cheaper than the call);
// false (A and B as they were; ipiv and info undefined) when the library has no such routine, the
// matrix holds what it mishandles, or a pivot came out below 1 / max (vendor_lapack.cpp).
// own_loops false: the library's routine at every order, bit for bit as a caller of the library gets it.
template <class T>
bool getrf(int m, int n, T* A, int lda, int* ipiv, int* info, bool own_loops = true);
template <class T>
bool gesv(int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, int* info, bool own_loops = true);
// The same for getrs (B <- op(A)^-1 B with getrf's factors; ipiv's entries in [1, n]): false, with
// B as it was, where the library has none, where U has a pivot without a finite reciprocal (its
// solves may multiply by reciprocals: OpenBLAS's trsm and complex trsv do), or (one column) where
// its X is not finite: the caller's dividing loops then answer.
template <class T>
bool getrs(Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb,
           bool own_loops = true);

// Whether the routines were found, and if not, why not.
bool available(const char** why = nullptr);

}  // namespace hetlu::vendor
