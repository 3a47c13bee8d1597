/* Per-call cost of dgetrf_ through the LAPACK drop-in against OpenBLAS's own, one call after
 * another, as NumPy or a Fortran code calls it: for each order, batches of calls on copies of the
 * same random matrix, the two timed alternately (round-robin, so that a shared machine's drift hits
 * both), the best batch of each. OpenBLAS's dgetrf_ is found in the library that defines
 * openblas_get_num_threads, so the drop-in linked here does not answer for it.
 * Usage: bench_percall_getrf [max order, default 256]; prints a Markdown table. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
int openblas_get_num_threads(void);
typedef void (*getrf_fn)(const int*, const int*, double*, const int*, int*, int*);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Seconds per call of f over `calls` calls on copies of A0. */
static double batch(getrf_fn f, int n, const double* A0, double* A, int* ipiv, long calls) {
  double total = 0;
  for (long c = 0; c < calls; ++c) {
    memcpy(A, A0, sizeof(double) * n * n);
    const double start = now();
    int info;
    f(&n, &n, A, &n, ipiv, &info);
    total += now() - start;
  }
  return total / calls;
}

int main(int argc, char** argv) {
  const int largest = argc > 1 ? atoi(argv[1]) : 256;
  Dl_info where;
  void* library = dladdr((void*)&openblas_get_num_threads, &where) ? dlopen(where.dli_fname, RTLD_NOW | RTLD_NOLOAD) : NULL;
  getrf_fn openblas = library ? (getrf_fn)dlsym(library, "dgetrf_") : NULL;
  if (!openblas) {
    fprintf(stderr, "bench_percall_getrf: OpenBLAS's own dgetrf_ not found\n");
    return 1;
  }
  printf("| n | drop-in us | OpenBLAS us | drop-in / OpenBLAS |\n|---|---|---|---|\n");
  for (int n = 1; n <= largest; n *= 2) {
    double* A0 = malloc(sizeof(double) * n * n);
    double* A = malloc(sizeof(double) * n * n);
    int* ipiv = malloc(sizeof(int) * n);
    srand(1);
    for (int i = 0; i < n * n; ++i) A0[i] = rand() / (double)RAND_MAX - 0.5;
    const long calls = n <= 16 ? 20000 : n <= 64 ? 2000 : n <= 256 ? 200 : 20;
    double ours = 1e9, theirs = 1e9;
    for (int round = 0; round < 6; ++round) { /* the first round warms up */
      const double a = batch(dgetrf_, n, A0, A, ipiv, calls), b = batch(openblas, n, A0, A, ipiv, calls);
      if (round > 0 && a < ours) ours = a;
      if (round > 0 && b < theirs) theirs = b;
    }
    printf("| %d | %.3g | %.3g | %.2f |\n", n, 1e6 * ours, 1e6 * theirs, ours / theirs);
    free(A0), free(A), free(ipiv);
  }
  return 0;
}
