/* Per-call cost of hetlu_dgetrf (the C API, no report asked: the small-matrix path below the
 * crossover) against OpenBLAS's dgetrf_, and of hetlu_dgetrs against dgetrs_ with the same factors,
 * one call after another on copies of one random matrix, round-robin batches, the best of three
 * after a warm-up (#14.1).
 * Usage: bench_percall_capi [largest order, default 512]; prints a Markdown table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hetlu/hetlu.h"

void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, size_t trans_length);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char** argv) {
  const int largest = argc > 1 ? atoi(argv[1]) : 512;
  printf(
      "| n | hetlu_dgetrf us | OpenBLAS dgetrf_ us | ratio | hetlu_dgetrs us | OpenBLAS dgetrs_ us | ratio |\n"
      "|---|---|---|---|---|---|---|\n");
  for (int n = 1; n <= largest; n *= 2) {
    double *A0 = malloc(sizeof(double) * n * n), *A = malloc(sizeof(double) * n * n);
    int* ipiv = malloc(sizeof(int) * n);
    srand(1);
    for (int i = 0; i < n * n; ++i) A0[i] = rand() / (double)RAND_MAX - 0.5;
    const long calls = n <= 16 ? 20000 : n <= 64 ? 2000 : 200;
    double ours = 1e9, theirs = 1e9;
    for (int round = 0; round < 4; ++round) { /* the first round warms up */
      double a = 0, b = 0;
      for (long c = 0; c < calls; ++c) {
        memcpy(A, A0, sizeof(double) * n * n);
        const double start = now();
        int info;
        if (hetlu_dgetrf(n, n, A, n, ipiv, &info, NULL, NULL) != HETLU_SUCCESS) {
          fprintf(stderr, "hetlu_dgetrf: %s\n", hetlu_last_error());
          return 1;
        }
        a += now() - start;
      }
      for (long c = 0; c < calls; ++c) {
        memcpy(A, A0, sizeof(double) * n * n);
        const double start = now();
        int info;
        dgetrf_(&n, &n, A, &n, ipiv, &info);
        b += now() - start;
      }
      if (round > 0 && a < ours) ours = a;
      if (round > 0 && b < theirs) theirs = b;
    }
    /* getrs with A's factors, one right-hand side of ones. */
    double *b = malloc(sizeof(double) * n), solve_ours = 1e9, solve_theirs = 1e9;
    int info, one = 1;
    memcpy(A, A0, sizeof(double) * n * n);
    dgetrf_(&n, &n, A, &n, ipiv, &info);
    for (int round = 0; round < 4; ++round) {
      double a = 0, c = 0;
      for (long k = 0; k < calls; ++k) {
        for (int i = 0; i < n; ++i) b[i] = 1;
        const double start = now();
        if (hetlu_dgetrs('N', n, 1, A, n, ipiv, b, n) != HETLU_SUCCESS) {
          fprintf(stderr, "hetlu_dgetrs: %s\n", hetlu_last_error());
          return 1;
        }
        a += now() - start;
      }
      for (long k = 0; k < calls; ++k) {
        for (int i = 0; i < n; ++i) b[i] = 1;
        const double start = now();
        dgetrs_("N", &n, &one, A, &n, ipiv, b, &n, &info, 1);
        c += now() - start;
      }
      if (round > 0 && a < solve_ours) solve_ours = a;
      if (round > 0 && c < solve_theirs) solve_theirs = c;
    }
    printf("| %d | %.3g | %.3g | %.2f | %.3g | %.3g | %.2f |\n", n, 1e6 * ours / calls, 1e6 * theirs / calls,
           ours / theirs, 1e6 * solve_ours / calls, 1e6 * solve_theirs / calls, solve_ours / solve_theirs);
    free(A0), free(A), free(ipiv), free(b);
  }
  return 0;
}
