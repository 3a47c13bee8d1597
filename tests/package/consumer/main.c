/* Solves a 2 x 2 system through the installed C API. */
#include <hetlu/hetlu.h>
#include <stdio.h>

int main(void) {
  double A[4] = {2, 0, 0, 4}, B[2] = {2, 4};
  int ipiv[2], info = -1;
  hetlu_status s = hetlu_dgesv(2, 1, A, 2, ipiv, B, 2, &info, NULL, NULL);
  int ok = s == HETLU_SUCCESS && B[0] == 1.0 && B[1] == 1.0;
  printf("C consumer: %s\n", ok ? "ok" : hetlu_last_error());
  return ok ? 0 : 1;
}
