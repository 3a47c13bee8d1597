// The BLACS and ScaLAPACK routines hetlu calls (Debian's libscalapack-openmpi has no C header).
#pragma once

#include <mpi.h>

#include <cstddef>

extern "C" {
void Cblacs_pinfo(int* rank, int* ranks);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, const char* order, int rows, int cols);
void Cblacs_gridmap(int* context, int* usermap, int ldumap, int rows, int cols);
void Cblacs_gridinfo(int context, int* rows, int* cols, int* row, int* col);
void Cblacs_gridexit(int context);
void Cblacs_abort(int context, int error_code);
int Csys2blacs_handle(MPI_Comm comm);
void Cfree_blacs_system_handle(int handle);
int numroc_(const int* n, const int* nb, const int* iproc, const int* isrcproc, const int* nprocs);
void descinit_(int* desc, const int* m, const int* n, const int* mb, const int* nb, const int* irsrc, const int* icsrc,
               const int* ictxt, const int* lld, int* info);
void pdgesv_(const int* n, const int* nrhs, double* a, const int* ia, const int* ja, const int* desca, int* ipiv,
             double* b, const int* ib, const int* jb, const int* descb, int* info);
void psgesv_(const int* n, const int* nrhs, float* a, const int* ia, const int* ja, const int* desca, int* ipiv,
             float* b, const int* ib, const int* jb, const int* descb, int* info);
void pdgemr2d_(const int* m, const int* n, const double* a, const int* ia, const int* ja, const int* desca, double* b,
               const int* ib, const int* jb, const int* descb, const int* ictxt);
// The pieces of p?getrf the device-resident LU (getrf_resident.cpp) runs on the CPUs. p?getf2,
// p?laswp and p?getrs are Fortran: their character arguments carry hidden lengths; p?trsm is
// PBLAS, in C.
void pdgetf2_(const int* m, const int* n, double* a, const int* ia, const int* ja, const int* desca, int* ipiv,
              int* info);
void psgetf2_(const int* m, const int* n, float* a, const int* ia, const int* ja, const int* desca, int* ipiv,
              int* info);
void pdlaswp_(const char* direc, const char* rowcol, const int* n, double* a, const int* ia, const int* ja,
              const int* desca, const int* k1, const int* k2, const int* ipiv, std::size_t, std::size_t);
void pslaswp_(const char* direc, const char* rowcol, const int* n, float* a, const int* ia, const int* ja,
              const int* desca, const int* k1, const int* k2, const int* ipiv, std::size_t, std::size_t);
void pdtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
             const double* alpha, const double* a, const int* ia, const int* ja, const int* desca, double* b,
             const int* ib, const int* jb, const int* descb);
void pstrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m, const int* n,
             const float* alpha, const float* a, const int* ia, const int* ja, const int* desca, float* b,
             const int* ib, const int* jb, const int* descb);
void pdgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* ia, const int* ja,
              const int* desca, const int* ipiv, double* b, const int* ib, const int* jb, const int* descb, int* info,
              std::size_t);
void psgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* ia, const int* ja,
              const int* desca, const int* ipiv, float* b, const int* ib, const int* jb, const int* descb, int* info,
              std::size_t);
// BLACS broadcasts (send along a scope, receive from (rsrc, csrc)) and an integer minimum and maximum.
void Cdgebs2d(int context, const char* scope, const char* top, int m, int n, const double* a, int lda);
void Cdgebr2d(int context, const char* scope, const char* top, int m, int n, double* a, int lda, int rsrc, int csrc);
void Csgebs2d(int context, const char* scope, const char* top, int m, int n, const float* a, int lda);
void Csgebr2d(int context, const char* scope, const char* top, int m, int n, float* a, int lda, int rsrc, int csrc);
void Cigebs2d(int context, const char* scope, const char* top, int m, int n, const int* a, int lda);
void Cigebr2d(int context, const char* scope, const char* top, int m, int n, int* a, int lda, int rsrc, int csrc);
int Cblacs_pnum(int context, int prow, int pcol);
void Cigamn2d(int context, const char* scope, const char* top, int m, int n, int* a, int lda, int* ra, int* ca,
              int ldia, int rdest, int cdest);
void Cigamx2d(int context, const char* scope, const char* top, int m, int n, int* a, int lda, int* ra, int* ca,
              int ldia, int rdest, int cdest);
void psgemr2d_(const int* m, const int* n, const float* a, const int* ia, const int* ja, const int* desca, float* b,
               const int* ib, const int* jb, const int* descb, const int* ictxt);
}
