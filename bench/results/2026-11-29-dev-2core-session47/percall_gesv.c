/* Per-call cost of hetlu_dgesv (NULL options and report) in two builds of libhetlu, one process, alternating batches, best of 5. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
typedef int (*gesv_t)(int, int, double*, int, int*, double*, int, int*, const void*, void*);
static double now(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec + 1e-9 * t.tv_nsec; }
int main(int argc, char** argv) {
  gesv_t f[2]; const char* name[2] = {argv[1], argv[2]};
  for (int l = 0; l < 2; ++l) { void* h = dlopen(name[l], RTLD_NOW | RTLD_LOCAL); if (!h) { printf("%s\n", dlerror()); return 1; } f[l] = (gesv_t)dlsym(h, "hetlu_dgesv"); }
  printf("| n | before us | after us | after / before |\n|---|---|---|---|\n");
  for (int n = 1; n <= 64; n *= 2) {
    double *A0 = malloc(8 * n * n), *A = malloc(8 * n * n), B[64]; int ipiv[64], info;
    for (int i = 0; i < n * n; ++i) A0[i] = (double)rand() / RAND_MAX + (i % (n + 1) == 0 ? n : 0);
    long reps = 2000000 / (n * n + 20) + 10; double best[2] = {1e9, 1e9};
    for (int pass = 0; pass < 5; ++pass) for (int l = 0; l < 2; ++l) {
      double t0 = now();
      for (long q = 0; q < reps; ++q) { memcpy(A, A0, 8 * n * n); for (int i = 0; i < n; ++i) B[i] = 1; f[l](n, 1, A, n, ipiv, B, n, &info, NULL, NULL); }
      double t = (now() - t0) / reps; if (t < best[l]) best[l] = t;
    }
    printf("| %d | %.3f | %.3f | %.2f |\n", n, best[0] * 1e6, best[1] * 1e6, best[1] / best[0]);
  }
}
