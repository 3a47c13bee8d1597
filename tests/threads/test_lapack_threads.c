/* The LAPACK drop-in from several threads at once (linked, as a threaded Fortran or C program
   links it): dgesv_ and dgetrf_ + dgetrs_ on eight threads, each answer checked. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

void dgesv_(const int* n, const int* nrhs, double* A, const int* lda, int* ipiv, double* B, const int* ldb, int* info);
void dgetrf_(const int* m, const int* n, double* A, const int* lda, int* ipiv, int* info);
void dgetrs_(const char* trans, const int* n, const int* nrhs, const double* A, const int* lda, const int* ipiv,
             double* B, const int* ldb, int* info, size_t trans_len);

enum { threads = 8, rounds = 10 };
static int failures = 0;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void* work(void* arg) {
  const int t = (int)(size_t)arg;
  unsigned seed = 17u + (unsigned)t;
  for (int round = 0; round < rounds; ++round) {
    const int n = 8 + (t * 37 + round * 53) % 300, one = 1;
    double *A = malloc(sizeof(double) * n * n), *LU = malloc(sizeof(double) * n * n), *b = malloc(sizeof(double) * n),
           *x = malloc(sizeof(double) * n);
    int *ipiv = malloc(sizeof(int) * n), info = -1;
    for (int k = 0; k < n * n; ++k) A[k] = LU[k] = (double)rand_r(&seed) / RAND_MAX - 0.5;
    for (int i = 0; i < n; ++i) b[i] = x[i] = (double)rand_r(&seed) / RAND_MAX - 0.5;
    if (round % 2) {
      dgesv_(&n, &one, LU, &n, ipiv, x, &n, &info);
    } else {
      dgetrf_(&n, &n, LU, &n, ipiv, &info);
      if (info == 0) dgetrs_("N", &n, &one, LU, &n, ipiv, x, &n, &info, 1);
    }
    double worst = 0; /* componentwise backward error */
    for (int i = 0; i < n; ++i) {
      double r = -b[i], scale = fabs(b[i]);
      for (int j = 0; j < n; ++j) r += A[i + j * n] * x[j], scale += fabs(A[i + j * n] * x[j]);
      if (fabs(r) / scale > worst) worst = fabs(r) / scale;
    }
    /* Partial pivoting without refinement: the normwise bound, generously (random matrices). */
    if (info != 0 || !(worst < 1e-10)) {
      pthread_mutex_lock(&lock);
      ++failures;
      fprintf(stderr, "thread %d round %d n %d: info %d omega %g\n", t, round, n, info, worst);
      pthread_mutex_unlock(&lock);
    }
    free(A), free(LU), free(b), free(x), free(ipiv);
  }
  return NULL;
}

int main(void) {
  pthread_t ids[threads];
  for (int t = 0; t < threads; ++t) pthread_create(&ids[t], NULL, work, (void*)(size_t)t);
  for (int t = 0; t < threads; ++t) pthread_join(ids[t], NULL);
  printf("%d threads x %d solves: %d failures\n", threads, rounds, failures);
  return failures == 0 ? 0 : 1;
}
