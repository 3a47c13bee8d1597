/* Session 45 (from a hostile helper's F4 script): per-call cost of small dsgesv_/zcgesv_ through the drop-in vs OpenBLAS, same process
   (both libraries dlopen'ed RTLD_LOCAL).  Build: gcc -O2 -o f4 f4_dsgesv_percall.c -ldl   Run: ./f4 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dlfcn.h>
#include <time.h>
#include <complex.h>
typedef void (*dsgesv_t)(const int*, const int*, double*, const int*, int*, const double*, const int*, double*, const int*, double*, float*, int*, int*);
typedef void (*zcgesv_t)(const int*, const int*, double complex*, const int*, int*, const double complex*, const int*, double complex*, const int*, double complex*, float complex*, double*, int*, int*);
typedef void (*dgesv_t)(const int*, const int*, double*, const int*, int*, double*, const int*, int*);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(void) {
  void* lib[2] = {dlopen("libopenblas.so.0", RTLD_NOW | RTLD_LOCAL), dlopen("" HETLU_LAPACK "", RTLD_NOW | RTLD_LOCAL)};
  if (!lib[0] || !lib[1]) { printf("dlopen: %s\n", dlerror()); return 1; }
  static double A0[128 * 128], A[128 * 128], B[128], X[128], W[128]; static float SW[128 * 129];
  static double complex ZA0[128 * 128], ZA[128 * 128], ZB[128], ZX[128], ZW[128]; static float complex CSW[128 * 129]; static double RW[128];
  for (int i = 0; i < 128 * 128; i++) { A0[i] = (double)rand() / RAND_MAX + ((i % 129) == 0 ? 40 : 0); ZA0[i] = A0[i] + I * ((double)rand() / RAND_MAX); }
  for (int i = 0; i < 128; i++) { B[i] = 1; ZB[i] = 1; }
  int ns[] = {2, 4, 8, 16, 32, 64, 128};
  for (int r = 0; r < 3; r++) for (int k = 0; k < 7; k++) {
    int n = ns[k], one = 1, info, iter, ipiv[128]; double t[2]; int it[2];
    long reps = 200000 / (n * n + 50) + 20;
    for (int pass = 0; pass < 3; pass++) for (int l = 0; l < 2; l++) {
      double t0 = now();
      for (long q = 0; q < reps; q++) {
        if (r == 0) { memcpy(A, A0, 8 * n * n); ((dsgesv_t)dlsym(lib[l], "dsgesv_"))(&n, &one, A, &n, ipiv, B, &n, X, &n, W, SW, &iter, &info); }
        else if (r == 1) { memcpy(ZA, ZA0, 16 * n * n); ((zcgesv_t)dlsym(lib[l], "zcgesv_"))(&n, &one, ZA, &n, ipiv, ZB, &n, ZX, &n, ZW, CSW, RW, &iter, &info); }
        else { memcpy(A, A0, 8 * n * n); memcpy(X, B, 8 * n); ((dgesv_t)dlsym(lib[l], "dgesv_"))(&n, &one, A, &n, ipiv, X, &n, &info); iter = 0; }
      }
      double el = (now() - t0) / reps; if (pass == 0 || el < t[l]) t[l] = el; it[l] = iter;
    }
    printf("%-7s n=%3d  OpenBLAS %9.2f us (ITER %d)  hetlu %9.2f us (ITER %d)  ratio %.1f\n", r == 0 ? "dsgesv" : r == 1 ? "zcgesv" : "dgesv", n, t[0] * 1e6, it[0], t[1] * 1e6, it[1], t[1] / t[0]);
  }
}
