/* Solves a 2 x 2 system on one MPI rank through the installed hetlu::distributed, from C. */
#include <hetlu/hetlu_distributed.h>
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  double A[4] = {2, 0, 0, 4}, B[2] = {2, 4};
  int info = -1;
  hetlu_status s = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, 2, 1, A, 2, B, 2, &info, NULL);
  int ok = s == HETLU_SUCCESS && info == 0 && B[0] == 1.0 && B[1] == 1.0;
  printf("distributed C consumer: %s\n", ok ? "ok" : hetlu_last_error());
  MPI_Finalize();
  return ok ? 0 : 1;
}
