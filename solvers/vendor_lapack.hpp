// The LAPACK routines of the BLAS library hetlu links (OpenBLAS), found in that library itself.
// Below the small-matrix crossover the LAPACK drop-in hands getrf and gesv to them: OpenBLAS's
// small-matrix LU has no plan, task graph or thread wake-up (n = 4: 0.17 us against 4.5 through
// hetlu's front end). Looked up by address in the library's own symbol table, never by name in the
// process, so that a drop-in exporting the same names (libhetlu_lapack, preloaded) is never called
// back.
#pragma once

namespace hetlu::vendor {

// LAPACK's xGETRF / xGESV of the BLAS library, or, at orders up to kernels::tiny_lu_max_order,
// LAPACK's unblocked arithmetic in hetlu's own loops (solvers/tiny_lu.hpp: cheaper than the call);
// false (nothing done) when the library has no such routine or the matrix holds what it mishandles.
template <class T>
bool getrf(int m, int n, T* A, int lda, int* ipiv, int* info);
template <class T>
bool gesv(int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, int* info);

// Whether the routines were found, and if not, why not.
bool available(const char** why = nullptr);

}  // namespace hetlu::vendor
