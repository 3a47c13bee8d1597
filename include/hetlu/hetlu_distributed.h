/* hetlu's distributed solves from C (#18), over MPI and ScaLAPACK: link libhetlu_distributed.
 * Every rank of the communicator calls these collectively. Statuses and hetlu_last_error() as in
 * hetlu.h; a singular matrix is HETLU_ERROR_SINGULAR with *info ScaLAPACK's, on every rank, and
 * *info is -status on any other failure (as hetlu.h). */
#ifndef HETLU_DISTRIBUTED_H
#define HETLU_DISTRIBUTED_H

#include <mpi.h>

#include "hetlu/hetlu.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a distributed solve runs; a zero field is resolved (tuned in the database, else the model,
 * else the squarest grid, nb = 64 and the process's threads). db: the database (NULL: the default).
 * Start from hetlu_distributed_options_init (or a zeroed struct): fields are added at the end. */
typedef struct hetlu_distributed_options {
  int grid_rows, grid_cols; /* P x Q, P * Q == the communicator's size */
  int nb;                   /* the block of the 2-D block-cyclic layout */
  int threads_per_rank;     /* BLAS threads of each rank during the solve */
  const char* db;
  /* The seed's device-resident LU: each rank's part of A stays on this device through the
   * factorization ("cuda", or "host:K" for a team of K threads standing in for one), panels on the
   * CPUs. NULL (or a zero-initialized struct): ScaLAPACK's p?gesv. */
  const char* resident;
} hetlu_distributed_options;

/* Every field zero (NULL): everything resolved, ScaLAPACK's p?gesv. */
void hetlu_distributed_options_init(hetlu_distributed_options* options);

/* ScaLAPACK's p?gesv on a matrix the caller has distributed (descriptors desca, descb on the
 * caller's BLACS grid), as pdgesv_ takes it; threads_per_rank > 0 sets this rank's BLAS threads for
 * the call. An argument refused on one rank fails every rank of the grid that desca's context names,
 * none waiting, provided every rank's desca names the same context: a rank whose descriptor names
 * another context (or none) is outside the grid the others agree on, and they wait for it, as in
 * ScaLAPACK itself. The same holds for the _resident forms below. */
hetlu_status hetlu_pdgesv(int n, int nrhs, double* A, int ia, int ja, const int* desca, int* ipiv, double* B, int ib,
                          int jb, const int* descb, int* info, int threads_per_rank);
hetlu_status hetlu_psgesv(int n, int nrhs, float* A, int ia, int ja, const int* desca, int* ipiv, float* B, int ib,
                          int jb, const int* descb, int* info, int threads_per_rank);

/* The same with each rank's part of A on `device` ("cuda" or "host:K") through the factorization
 * (the seed's device-resident LU, then p?getrs on the CPUs). The descriptors must describe the
 * whole matrices (ia = ja = 1) with square blocks starting on process (0, 0); ipiv as p?getrf's. */
hetlu_status hetlu_pdgesv_resident(int n, int nrhs, double* A, const int* desca, int* ipiv, double* B, const int* descb,
                                   const char* device, int* info, int threads_per_rank);
hetlu_status hetlu_psgesv_resident(int n, int nrhs, float* A, const int* desca, int* ipiv, float* B, const int* descb,
                                   const char* device, int* info, int threads_per_rank);

/* A X = B for the n x n A and n x nrhs B held by rank `root` (column-major; the other ranks'
 * pointers are not read): scattered to the grid, solved, X gathered into B on the root, A
 * overwritten there by its factors. options may be NULL. */
hetlu_status hetlu_pdgesv_root(MPI_Comm comm, int root, int n, int nrhs, double* A, int lda, double* B, int ldb,
                               int* info, const hetlu_distributed_options* options);
hetlu_status hetlu_psgesv_root(MPI_Comm comm, int root, int n, int nrhs, float* A, int lda, float* B, int ldb,
                               int* info, const hetlu_distributed_options* options);

#ifdef __cplusplus
}
#endif

#endif
