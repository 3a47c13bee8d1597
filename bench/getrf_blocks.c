/* hetlu_sgetrf and hetlu_dgetrf against OpenBLAS's sgetrf_ and dgetrf_ on the same random matrix
 * in the same process, for each panel width given (#15.4: the single LU under mixed precision;
 * GEPP against dgetrf). Each round times every configuration once, in turn, after one warm-up
 * round; the median of the rounds is printed with its GFlop/s and its ratio to OpenBLAS (> 1:
 * hetlu faster). No database: nb from the list, everything else from the model.
 *
 *   build/bin/bench_getrf_blocks N single|double ROUNDS NB[,NB...]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hetlu/hetlu.h"

void sgetrf_(const int* m, const int* n, float* A, const int* lda, int* ipiv, int* info);
void dgetrf_(const int* m, const int* n, double* A, const int* lda, int* ipiv, int* info);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

enum { most_configurations = 16, most_rounds = 101 };

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s N single|double ROUNDS NB[,NB...]\n", argv[0]);
    return 2;
  }
  const int n = atoi(argv[1]), is_double = strcmp(argv[2], "double") == 0, rounds = atoi(argv[3]);
  if (n < 1 || n > 40000 || (!is_double && strcmp(argv[2], "single") != 0) || rounds < 1 || rounds > most_rounds) {
    fprintf(stderr, "%s: N in [1, 40000], single or double, ROUNDS in [1, %d]\n", argv[0], most_rounds);
    return 2;
  }
  int nb[most_configurations], configurations = 1; /* nb[0] = 0: OpenBLAS */
  nb[0] = 0;
  for (char* item = strtok(argv[4], ","); item && configurations < most_configurations; item = strtok(NULL, ",")) {
    nb[configurations] = atoi(item);
    if (nb[configurations] < 1) {
      fprintf(stderr, "%s: a panel width must be >= 1 (got '%s')\n", argv[0], item);
      return 2;
    }
    ++configurations;
  }
  const size_t entries = (size_t)n * n, size = is_double ? sizeof(double) : sizeof(float);
  char *original = malloc(entries * size), *A = malloc(entries * size);
  int* ipiv = malloc(sizeof(int) * n);
  if (!original || !A || !ipiv) {
    fprintf(stderr, "%s: out of memory\n", argv[0]);
    return 1;
  }
  unsigned state = 1;
  for (size_t i = 0; i < entries; ++i) {
    state = state * 1664525u + 1013904223u;
    const double v = (state >> 8) * (1.0 / 16777216) - 0.5;
    if (is_double)
      ((double*)original)[i] = v;
    else
      ((float*)original)[i] = (float)v;
  }
  static double seconds[most_configurations][most_rounds];
  for (int round = -1; round < rounds; ++round)
    for (int c = 0; c < configurations; ++c) {
      memcpy(A, original, entries * size);
      int info = 0;
      hetlu_status status = HETLU_SUCCESS;
      const double start = now();
      if (nb[c] == 0) {
        if (is_double)
          dgetrf_(&n, &n, (double*)A, &n, ipiv, &info);
        else
          sgetrf_(&n, &n, (float*)A, &n, ipiv, &info);
      } else {
        hetlu_options options;
        hetlu_options_init(&options);
        options.nb = nb[c];
        options.db_path = "/tmp/hetlu-bench-getrf-blocks-none.db"; /* none there: the model */
        status = is_double ? hetlu_dgetrf(n, n, (double*)A, n, ipiv, &info, &options, NULL)
                           : hetlu_sgetrf(n, n, (float*)A, n, ipiv, &info, &options, NULL);
      }
      const double elapsed = now() - start;
      if (status != HETLU_SUCCESS || info != 0) {
        fprintf(stderr, "%s: nb = %d failed (status %d, info %d): %s\n", argv[0], nb[c], (int)status, info,
                hetlu_last_error());
        return 1;
      }
      if (round >= 0) seconds[c][round] = elapsed;
    }
  const double flops = 2.0 / 3.0 * n * (double)n * n;
  double reference = 0;
  printf("n = %d, %s, median of %d rounds; ratio = OpenBLAS time / hetlu time\n\n", n, argv[2], rounds);
  printf("| routine | nb | seconds | GFlop/s | ratio |\n|---|---|---|---|---|\n");
  for (int c = 0; c < configurations; ++c) {
    qsort(seconds[c], rounds, sizeof(double), by_value);
    const double median = seconds[c][rounds / 2];
    if (c == 0) reference = median;
    const char* routine =
        c == 0 ? (is_double ? "OpenBLAS dgetrf" : "OpenBLAS sgetrf") : (is_double ? "hetlu_dgetrf" : "hetlu_sgetrf");
    char width[16] = "its own";
    if (c > 0) snprintf(width, sizeof width, "%d", nb[c]);
    printf("| %s | %s | %.4f | %.1f | %.3f |\n", routine, width, median, flops / median * 1e-9, reference / median);
  }
  free(original);
  free(A);
  free(ipiv);
  return 0;
}
