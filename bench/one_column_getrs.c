/* One right-hand side of a large order: hetlu_?getrs (its triangular solves in blocks of rows, a
 * threaded GEMV beside trsv on each diagonal block) against OpenBLAS's ?getrs_ (whose trsv runs on
 * one thread), on the same factors from OpenBLAS's ?getrf_, one call after another, round-robin, the
 * best of six after two warm-ups, who goes first alternating (the factors stay in cache for the second). The refinement
 * steps of a mixed solve are such solves. Usage: bench_one_column_getrs [orders..., default 1024 2048 4096 8192];
 * prints a Markdown table. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hetlu/hetlu.h"

void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void sgetrf_(const int* m, const int* n, float* a, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* a, const int* lda, const int* ipiv,
             double* b, const int* ldb, int* info, size_t trans_length);
void sgetrs_(const char* trans, const int* n, const int* nrhs, const float* a, const int* lda, const int* ipiv,
             float* b, const int* ldb, int* info, size_t trans_length);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

#define BENCH(T, PREFIX)                                                                             \
  static void bench_##PREFIX(int n, double* ours, double* theirs) {                                  \
    T *A = malloc(sizeof(T) * n * n), *b0 = malloc(sizeof(T) * n), *b = malloc(sizeof(T) * n);       \
    int* ipiv = malloc(sizeof(int) * n);                                                             \
    int info = 0, one = 1;                                                                           \
    srand(7);                                                                                        \
    for (long i = 0; i < (long)n * n; ++i) A[i] = (T)(rand() / (double)RAND_MAX - 0.5);              \
    for (int i = 0; i < n; ++i) b0[i] = (T)(rand() / (double)RAND_MAX - 0.5);                        \
    PREFIX##getrf_(&n, &n, A, &n, ipiv, &info);                                                      \
    *ours = *theirs = 1e9;                                                                           \
    for (int round = 0; round < 8; ++round) { /* the first two warm up; who goes first alternates */ \
      for (int side = 0; side < 2; ++side) {                                                         \
        const int hetlu_now = (round + side) % 2 == 0;                                               \
        memcpy(b, b0, sizeof(T) * n);                                                                \
        const double start = now();                                                                  \
        if (hetlu_now) {                                                                             \
          if (hetlu_##PREFIX##getrs('N', n, 1, A, n, ipiv, b, n) != HETLU_SUCCESS) {                 \
            fprintf(stderr, "hetlu_" #PREFIX "getrs: %s\n", hetlu_last_error());                     \
            exit(1);                                                                                 \
          }                                                                                          \
        } else {                                                                                     \
          PREFIX##getrs_("N", &n, &one, A, &n, ipiv, b, &n, &info, 1);                               \
        }                                                                                            \
        const double t = now() - start;                                                              \
        double* best = hetlu_now ? ours : theirs;                                                    \
        if (round > 1 && t < *best) *best = t;                                                       \
      }                                                                                              \
    }                                                                                                \
    free(A), free(b0), free(b), free(ipiv);                                                          \
  }
BENCH(double, d)
BENCH(float, s)

int main(int argc, char** argv) {
  int orders[16] = {1024, 2048, 4096, 8192}, count = 4;
  if (argc > 1) {
    count = 0;
    for (int i = 1; i < argc && count < 16; ++i) orders[count++] = atoi(argv[i]);
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  printf(
      "| n | hetlu_dgetrs ms | OpenBLAS dgetrs_ ms | speed-up | hetlu_sgetrs ms | OpenBLAS sgetrs_ ms | speed-up |\n"
      "|---|---|---|---|---|---|---|\n");
  for (int o = 0; o < count; ++o) {
    const int n = orders[o];
    double d_ours, d_theirs, s_ours, s_theirs;
    bench_d(n, &d_ours, &d_theirs);
    bench_s(n, &s_ours, &s_theirs);
    printf("| %d | %.3f | %.3f | %.2f | %.3f | %.3f | %.2f |\n", n, 1e3 * d_ours, 1e3 * d_theirs, d_theirs / d_ours,
           1e3 * s_ours, 1e3 * s_theirs, s_theirs / s_ours);
  }
  return 0;
}
