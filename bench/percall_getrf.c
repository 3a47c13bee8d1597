/* Per-call cost of dgetrf_, dgetrs_ and dgesv_ through the LAPACK drop-in against OpenBLAS's own,
 * one call after another, as NumPy, SciPy or a Fortran code calls them: for each order, batches of
 * calls on copies of the same random matrix (and right-hand side), the two timed alternately
 * (round-robin, so that a shared machine's drift hits both), the best batch of each. OpenBLAS's
 * routines are found in the library that defines openblas_get_num_threads, so the drop-in linked
 * here does not answer for them.
 * Usage: bench_percall_getrf [max order, default 256]; prints a Markdown table of drop-in /
 * OpenBLAS time per call (< 1: the drop-in is faster), with the drop-in's microseconds. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, size_t trans_length);
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb, int* info);
int openblas_get_num_threads(void);
typedef void (*getrf_fn)(const int*, const int*, double*, const int*, int*, int*);
typedef void (*getrs_fn)(const char*, const int*, const int*, const double*, const int*, const int*, double*,
                         const int*, int*, size_t);
typedef void (*gesv_fn)(const int*, const int*, double*, const int*, int*, double*, const int*, int*);

struct Routines {
  getrf_fn getrf;
  getrs_fn getrs;
  gesv_fn gesv;
};

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

/* Seconds per call of routine `which` (0 getrf, 1 getrs, 2 gesv) of r over `calls` calls on copies
 * of A0 and b0 (getrs: with the factors LU and pivots p). */
static double batch(struct Routines r, int which, int n, const double* A0, const double* b0, const double* LU,
                    const int* p, double* A, double* b, int* ipiv, long calls) {
  const int one = 1;
  double total = 0;
  for (long c = 0; c < calls; ++c) {
    if (which != 1) memcpy(A, A0, sizeof(double) * n * n);
    memcpy(b, b0, sizeof(double) * n);
    const double start = now();
    int info;
    if (which == 0) r.getrf(&n, &n, A, &n, ipiv, &info);
    if (which == 1) r.getrs("N", &n, &one, LU, &n, p, b, &n, &info, 1);
    if (which == 2) r.gesv(&n, &one, A, &n, ipiv, b, &n, &info);
    total += now() - start;
  }
  return total / calls;
}

int main(int argc, char** argv) {
  const int largest = argc > 1 ? atoi(argv[1]) : 256;
  Dl_info where;
  void* library =
      dladdr((void*)&openblas_get_num_threads, &where) ? dlopen(where.dli_fname, RTLD_NOW | RTLD_NOLOAD) : NULL;
  struct Routines ours = {dgetrf_, dgetrs_, dgesv_}, openblas = {NULL, NULL, NULL};
  if (library) {
    openblas.getrf = (getrf_fn)dlsym(library, "dgetrf_");
    openblas.getrs = (getrs_fn)dlsym(library, "dgetrs_");
    openblas.gesv = (gesv_fn)dlsym(library, "dgesv_");
  }
  if (!openblas.getrf || !openblas.getrs || !openblas.gesv) {
    fprintf(stderr, "bench_percall_getrf: OpenBLAS's own dgetrf_, dgetrs_ or dgesv_ not found\n");
    return 1;
  }
  printf(
      "| n | dgetrf_ us | / OpenBLAS | dgetrs_ us | / OpenBLAS | dgesv_ us | / OpenBLAS |\n"
      "|---|---|---|---|---|---|---|\n");
  for (int n = 1; n <= largest; n *= 2) {
    double *A0 = malloc(sizeof(double) * n * n), *A = malloc(sizeof(double) * n * n);
    double *LU = malloc(sizeof(double) * n * n), *b0 = malloc(sizeof(double) * n), *b = malloc(sizeof(double) * n);
    int *ipiv = malloc(sizeof(int) * n), *p = malloc(sizeof(int) * n), info;
    srand(1);
    for (int i = 0; i < n * n; ++i) A0[i] = rand() / (double)RAND_MAX - 0.5;
    for (int i = 0; i < n; ++i) b0[i] = 1;
    memcpy(LU, A0, sizeof(double) * n * n);
    openblas.getrf(&n, &n, LU, &n, p, &info);
    const long calls = n <= 16 ? 20000 : n <= 64 ? 2000 : n <= 256 ? 200 : 20;
    printf("| %d", n);
    for (int which = 0; which < 3; ++which) {
      double mine = 1e9, theirs = 1e9;
      for (int round = 0; round < 6; ++round) { /* the first round warms up */
        const double a = batch(ours, which, n, A0, b0, LU, p, A, b, ipiv, calls);
        const double c = batch(openblas, which, n, A0, b0, LU, p, A, b, ipiv, calls);
        if (round > 0 && a < mine) mine = a;
        if (round > 0 && c < theirs) theirs = c;
      }
      printf(" | %.3g | %.2f", 1e6 * mine, mine / theirs);
    }
    printf(" |\n");
    free(A0), free(A), free(LU), free(b0), free(b), free(ipiv), free(p);
  }
  return 0;
}
