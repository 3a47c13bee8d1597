/* LAPACK's dsgesv on an ill-conditioned matrix: whether ITER says converged with a non-finite X.
 * Run as it is (the BLAS library's dsgesv_, OpenBLAS's) and with the drop-in preloaded (hetlu's):
 *   build/bin/bench_dsgesv_overflow [n] [kappa_2]
 *   LD_PRELOAD=build/lapack/libhetlu_lapack.so build/bin/bench_dsgesv_overflow [n] [kappa_2]
 * A = H1 diag(s) H2, s graded from 1 to 1 / kappa_2, H1 and H2 Householder reflections of random
 * vectors (exactly orthogonal, O(n^2) each); b random in [-1, 1]. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

void dsgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, const double* b, const int* ldb,
             double* x, const int* ldx, double* work, float* swork, int* iter, int* info);

/* A <- H A (left) or A H (right), H = I - 2 v v^T / v^T v. */
static void reflect(int n, double* A, const double* v, int left) {
  double vv = 0;
  for (int i = 0; i < n; ++i) vv += v[i] * v[i];
  for (int k = 0; k < n; ++k) {
    double d = 0;
    for (int i = 0; i < n; ++i) d += v[i] * (left ? A[i + (size_t)k * n] : A[k + (size_t)i * n]);
    for (int i = 0; i < n; ++i) *(left ? &A[i + (size_t)k * n] : &A[k + (size_t)i * n]) -= 2 * d / vv * v[i];
  }
}

int main(int argc, char** argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 1000, one = 1;
  const double kappa = argc > 2 ? atof(argv[2]) : 1e10;
  if (n < 2 || !(kappa >= 1)) {
    fprintf(stderr, "usage: %s [n >= 2] [kappa_2 >= 1]\n", argv[0]);
    return 2;
  }
  double* A = calloc((size_t)n * n, sizeof *A);
  double* b = malloc(n * sizeof *b);
  double* x = malloc(n * sizeof *x);
  double* v = malloc(n * sizeof *v);
  double* work = malloc((size_t)n * sizeof *work);
  float* swork = malloc((size_t)n * (n + 1) * sizeof *swork);
  int* ipiv = malloc(n * sizeof *ipiv);
  if (!A || !b || !x || !v || !work || !swork || !ipiv) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  srand(3);
  for (int i = 0; i < n; ++i) A[i + (size_t)i * n] = pow(kappa, -(double)i / (n - 1));
  for (int side = 0; side < 2; ++side) {
    for (int i = 0; i < n; ++i) v[i] = rand() / (double)RAND_MAX - 0.5;
    reflect(n, A, v, side == 0);
  }
  for (int i = 0; i < n; ++i) b[i] = 2 * (rand() / (double)RAND_MAX) - 1;
  double* A0 = malloc((size_t)n * n * sizeof *A0); /* dsgesv leaves A factored where it falls back */
  if (!A0) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  for (size_t k = 0; k < (size_t)n * n; ++k) A0[k] = A[k];
  int iter = 0, info = 0;
  dsgesv_(&n, &one, A, &n, ipiv, b, &n, x, &n, work, swork, &iter, &info);
  int finite = 1;
  double largest = 0;
  for (int i = 0; i < n; ++i) {
    finite = finite && isfinite(x[i]);
    if (fabs(x[i]) > largest) largest = fabs(x[i]);
  }
  /* omega = max_i |b - A x|_i / (|A| |x| + |b|)_i, the componentwise backward error. */
  double omega = 0;
  for (int i = 0; i < n && finite; ++i) {
    double r = b[i], m = fabs(b[i]);
    for (int j = 0; j < n; ++j) r -= A0[i + (size_t)j * n] * x[j], m += fabs(A0[i + (size_t)j * n] * x[j]);
    if (m > 0 && fabs(r) / m > omega) omega = fabs(r) / m;
  }
  printf("n = %d, kappa_2 = %.0e: INFO %d, ITER %d, X %s, max |x_i| = %.3e, omega = %.1e%s\n", n, kappa, info, iter,
         finite ? "finite" : "NOT finite", largest, finite ? omega : INFINITY,
         iter >= 0 && !finite ? "  <- converged with a non-finite X" : "");
  return 0;
}
