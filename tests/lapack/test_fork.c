/* dgesv_ through the drop-in in a child of fork(), after the parent's call: with HETLU_TARGET=hybrid
   the child waited forever on the parent's host-backend worker thread, which a child does not have
   (SciPy under LD_PRELOAD in a multiprocessing worker; a hostile test, 2026-11-29). The child has
   30 s; a hang is a failure, as is a wrong answer in either process. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb, int* info);

/* A diagonally dominant system with x = 1; whether dgesv_ returns x within 1e-10. */
static int solves(int n) {
  double* a = malloc(sizeof(double) * n * n);
  double* b = malloc(sizeof(double) * n);
  int* ipiv = malloc(sizeof(int) * n);
  int info = -1, one = 1, right = 1;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) a[i + j * n] = (i == j ? n : 0) + ((i * 7919 + j * 104729) % 1000) / 1000.0;
  for (int i = 0; i < n; ++i) {
    b[i] = 0;
    for (int j = 0; j < n; ++j) b[i] += a[i + j * n];
  }
  dgesv_(&n, &one, a, &n, ipiv, b, &n, &info);
  for (int i = 0; i < n; ++i) right = right && fabs(b[i] - 1) < 1e-10;
  free(a);
  free(b);
  free(ipiv);
  return info == 0 && right;
}

int main(void) {
  const int n = 200;
  if (!solves(n)) {
    fprintf(stderr, "the parent's solve was wrong\n");
    return 1;
  }
  const pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    alarm(30);
    _exit(solves(n) ? 0 : 2);
  }
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFSIGNALED(status)) {
    fprintf(stderr, "the child hung (ended by signal %d)\n", WTERMSIG(status));
    return 1;
  }
  if (WEXITSTATUS(status) != 0) {
    fprintf(stderr, "the child's solve was wrong\n");
    return 1;
  }
  if (!solves(n)) {
    fprintf(stderr, "the parent's solve after the fork was wrong\n");
    return 1;
  }
  return 0;
}
