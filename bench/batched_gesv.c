/* Many small systems in one call (#14.5): hetlu_dgesv_batched against a loop of OpenBLAS's dgesv_
 * over the same batch, as an assembly code would call it, in the same process, round-robin (a
 * shared machine's drift hits both), the best of five rounds each after a warm-up.
 * Usage: bench_batched_gesv [batch, default 10000] [orders..., default 16 64]; prints a Markdown table.
 * With HETLU_BENCH_BATCH_DEVICE set (cuda, host:K): a column for the batch on that device too
 * (hetlu_dgesv_batched_x on the hybrid target, the systems' trip from and to host memory counted). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hetlu/hetlu.h"

void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb, int* info);

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

int main(int argc, char** argv) {
  const int batch = argc > 1 ? atoi(argv[1]) : 10000;
  int orders[16] = {16, 64}, count = 2;
  if (argc > 2) {
    count = 0;
    for (int i = 2; i < argc && count < 16; ++i) orders[count++] = atoi(argv[i]);
  }
  /* A row at a time through a pipe (| tee): a run stopped by its timeout still shows the rows it
   * finished (the H100's first batched stage, 2026-11-26, came back empty after 120 s). */
  setvbuf(stdout, NULL, _IOLBF, 0);
  const char* device = getenv("HETLU_BENCH_BATCH_DEVICE");
  if (device && !*device) device = NULL;
  hetlu_options on_device;
  hetlu_options_init(&on_device);
  on_device.target = HETLU_TARGET_HYBRID;
  on_device.devices = device;
  printf("%d systems per call, one right-hand side each\n\n", batch);
  if (device)
    printf(
        "| n | hetlu_dgesv_batched ms | loop of OpenBLAS dgesv_ ms | speed-up | on %s ms | speed-up |\n"
        "|---|---|---|---|---|---|\n",
        device);
  else
    printf("| n | hetlu_dgesv_batched ms | loop of OpenBLAS dgesv_ ms | speed-up |\n|---|---|---|---|\n");
  for (int o = 0; o < count; ++o) {
    const int n = orders[o], one = 1;
    const size_t a_size = (size_t)n * n, total = a_size * batch;
    double *A0 = malloc(sizeof(double) * total), *A = malloc(sizeof(double) * total);
    double *B0 = malloc(sizeof(double) * n * batch), *B = malloc(sizeof(double) * n * batch);
    int *ipiv = malloc(sizeof(int) * n * batch), *info = malloc(sizeof(int) * batch);
    srand(1);
    for (size_t i = 0; i < total; ++i) A0[i] = rand() / (double)RAND_MAX - 0.5;
    for (size_t i = 0; i < (size_t)n * batch; ++i) B0[i] = rand() / (double)RAND_MAX - 0.5;
    double ours = 1e9, theirs = 1e9, there = 1e9;
    for (int round = 0; round < 6; ++round) { /* the first round warms up */
      memcpy(A, A0, sizeof(double) * total);
      memcpy(B, B0, sizeof(double) * n * batch);
      double start = now();
      if (hetlu_dgesv_batched(batch, n, 1, A, n, (long long)a_size, ipiv, n, B, n, n, info) != HETLU_SUCCESS) {
        fprintf(stderr, "hetlu_dgesv_batched: %s\n", hetlu_last_error());
        return 1;
      }
      const double a = now() - start;
      memcpy(A, A0, sizeof(double) * total);
      memcpy(B, B0, sizeof(double) * n * batch);
      start = now();
      for (int i = 0; i < batch; ++i)
        dgesv_(&n, &one, A + i * a_size, &n, ipiv + (size_t)i * n, B + (size_t)i * n, &n, info + i);
      const double b = now() - start;
      double c = 0;
      if (device) {
        memcpy(A, A0, sizeof(double) * total);
        memcpy(B, B0, sizeof(double) * n * batch);
        start = now();
        if (hetlu_dgesv_batched_x(batch, n, 1, A, n, (long long)a_size, ipiv, n, B, n, n, info, &on_device) !=
            HETLU_SUCCESS) {
          fprintf(stderr, "hetlu_dgesv_batched_x on %s: %s\n", device, hetlu_last_error());
          return 1;
        }
        c = now() - start;
      }
      if (round > 0 && a < ours) ours = a;
      if (round > 0 && b < theirs) theirs = b;
      if (round > 0 && c < there) there = c;
    }
    if (device)
      printf("| %d | %.2f | %.2f | %.2f | %.2f | %.2f |\n", n, 1e3 * ours, 1e3 * theirs, theirs / ours, 1e3 * there,
             theirs / there);
    else
      printf("| %d | %.2f | %.2f | %.2f |\n", n, 1e3 * ours, 1e3 * theirs, theirs / ours);
    free(A0), free(A), free(B0), free(B), free(ipiv), free(info);
  }
  return 0;
}
