// Distributed solves over MPI with ScaLAPACK (#18): a system too large for one machine, on a P x Q
// grid of MPI ranks holding the matrix in ScaLAPACK's 2-D block-cyclic layout. MPI and BLACS do
// the communication and ScaLAPACK's p?gesv the algorithm; hetlu chooses the grid and block size
// and moves a matrix held by one rank onto the grid and back.
//
// Built when MPI and ScaLAPACK are found (HETLU_WITH_MPI); every rank of the communicator calls
// these collectively, as it calls ScaLAPACK.
#pragma once

#include <mpi.h>

#include <string>

namespace hetlu::distributed {

// How a distributed solve runs. Zero fields are chosen from the rank count: the grid as square as
// the rank count allows (P <= Q, P the largest divisor of the count not above its square root: 6
// ranks are 2 x 3, a prime count is 1 x count), nb = 64.
struct DistributedPlan {
  int grid_rows = 0, grid_cols = 0;  // P x Q, P * Q == the communicator's size
  int nb = 0;                        // the square block of the block-cyclic layout
};

// The plan with its zero fields chosen for `ranks` ranks; throws InvalidArgument for a grid that
// does not use every rank, or a non-positive size.
DistributedPlan resolve(const DistributedPlan& plan, int ranks);

// What a solve did.
struct DistributedReport {
  DistributedPlan plan;
  int info = 0;              // ScaLAPACK's (> 0: U(info, info) is exactly zero)
  double seconds = 0;        // the whole call: scatter, p?gesv, gather
  double solve_seconds = 0;  // p?gesv alone
};

// A X = B for the n x n A and n x nrhs B that rank `root` holds (column-major, leading dimensions
// lda and ldb; the other ranks' pointers are not read): scattered to the grid, solved with
// ScaLAPACK's p?gesv (partial pivoting), X gathered back into B on the root, A overwritten there by
// its factors (row-interchanged as p?gesv leaves them). Collective over `comm`; every rank gets the
// report. Bad arguments on the root throw InvalidArgument on every rank.
template <class T>
DistributedReport gesv_from_root(MPI_Comm comm, int root, int n, int nrhs, T* A, int lda, T* B, int ldb,
                                 const DistributedPlan& plan = {});

// ScaLAPACK's p?gesv on a matrix already distributed (ScaLAPACK descriptors desc_a and desc_b, on a
// BLACS grid the caller made): the front end an MPI application with its own layout calls. Returns
// info; throws InvalidArgument with ScaLAPACK's argument number for a bad argument.
template <class T>
int gesv(int n, int nrhs, T* A, int ia, int ja, const int* desc_a, int* ipiv, T* B, int ib, int jb, const int* desc_b);

}  // namespace hetlu::distributed
