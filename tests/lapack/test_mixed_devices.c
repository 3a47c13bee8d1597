/* The drop-in's dsgesv_ and zcgesv_ run on the devices HETLU_DEVICES names, as dgesv_ does (found
 * by a hostile test: they dropped the named devices and ran on the default one). Run as
 * `test_lapack_mixed_devices d` or `z`, one routine a process, with HETLU_TARGET=hybrid,
 * HETLU_DEVICES=host:24 and OMP_NUM_THREADS=2: the named team of 24 threads is seen in
 * /proc/self/task, where the default team (half the OpenMP threads: one) and the rest stay far fewer. */
#include <complex.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>

void dsgesv_(const int*, const int*, double*, const int*, int*, const double*, const int*, double*, const int*, double*,
             float*, int*, int*);
void zcgesv_(const int*, const int*, double complex*, const int*, int*, const double complex*, const int*,
             double complex*, const int*, double complex*, float complex*, double*, int*, int*);

static int threads_now(void) {
  int count = 0;
  DIR* tasks = opendir("/proc/self/task");
  if (!tasks) return -1;
  for (struct dirent* e = readdir(tasks); e; e = readdir(tasks))
    if (e->d_name[0] != '.') ++count;
  closedir(tasks);
  return count;
}

int main(int argc, char** argv) {
  const char routine = argc > 1 ? argv[1][0] : 'd';
  enum { n = 300 };
  const int order = n, nrhs = 1, ld = n, team = 24;
  static int ipiv[n];
  static double A[n * n], B[n], X[n], work[n];
  static float swork[n * (n + 1)];
  static double complex Z[n * n], ZB[n], ZX[n], zwork[n];
  static float complex cswork[n * (n + 1)];
  static double rwork[n];
  for (int j = 0; j < n; ++j) {
    B[j] = 1, ZB[j] = 1 + I;
    for (int i = 0; i < n; ++i) {
      A[i + j * n] = (i == j ? n : 0) + (double)((i * 7 + j * 13) % 17) / 17;
      Z[i + j * n] = A[i + j * n] + I * (double)((i * 3 + j * 5) % 11) / 11;
    }
  }
  int iter = -99, info = -1;
  if (routine == 'd')
    dsgesv_(&order, &nrhs, A, &ld, ipiv, B, &ld, X, &ld, work, swork, &iter, &info);
  else
    zcgesv_(&order, &nrhs, Z, &ld, ipiv, ZB, &ld, ZX, &ld, zwork, cswork, rwork, &iter, &info);
  const int threads = threads_now();
  if (info != 0 || iter < 0 || threads < team) {
    printf("FAILED %s: info %d, iter %d, %d threads (the team of %d not seen)\n",
           routine == 'd' ? "dsgesv_" : "zcgesv_", info, iter, threads, team);
    return 1;
  }
  printf("%s on the named devices: passed (%d threads)\n", routine == 'd' ? "dsgesv_" : "zcgesv_", threads);
  return 0;
}
