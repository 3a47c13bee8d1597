/* What LAPACK leaves undefined or unchecked, through the drop-in: no abort, no silently wrong answer.
   1. dgetrs_ with pivots outside [1, N], which no getrf gives (the caller's error): LAPACK's
   dgetrs does not check IPIV and interchanges rows inside B's LDB rows (dlaswp: before the solves for
   TRANS = 'N', after them in reverse for 'T'), which the drop-in aborted the program on. It now
   answers as LAPACK does, and a pivot outside [1, LDB] (which would address outside B) is argument 6
   through xerbla, INFO = -6, the program going on. Compared with the same interchanges and solves
   written out here.
   2. dsgesv_ with X over B (LAPACK forbids it): X was zeroed before B was read, and X = 0 came back
   with INFO 0 and ITER 0. B is read from a copy: the in-place solve is answered. */
#include <math.h>
#include <stdio.h>
#include <string.h>

void dgetrs_(const char*, const int*, const int*, const double*, const int*, const int*, double*, const int*, int*,
             size_t);
void dsgesv_(const int*, const int*, double*, const int*, int*, const double*, const int*, double*, const int*, double*,
             float*, int*, int*);

enum { N = 4, LDA = 5, LDB = 7, NRHS = 2 };

static void swap_rows(double* B, int k, int p) {
  for (int j = 0; j < NRHS; ++j) {
    const double t = B[k + j * LDB];
    B[k + j * LDB] = B[p + j * LDB];
    B[p + j * LDB] = t;
  }
}

/* B <- op(L U)^-1 B, L unit lower and U upper in LU, no interchanges. */
static void solve(const double* LU, double* B, int transposed) {
  for (int j = 0; j < NRHS; ++j) {
    double* b = B + j * LDB;
    if (!transposed) {
      for (int i = 0; i < N; ++i)
        for (int k = 0; k < i; ++k) b[i] -= LU[i + k * LDA] * b[k];
      for (int i = N - 1; i >= 0; --i) {
        for (int k = i + 1; k < N; ++k) b[i] -= LU[i + k * LDA] * b[k];
        b[i] /= LU[i + i * LDA];
      }
    } else { /* U^T then L^T */
      for (int i = 0; i < N; ++i) {
        for (int k = 0; k < i; ++k) b[i] -= LU[k + i * LDA] * b[k];
        b[i] /= LU[i + i * LDA];
      }
      for (int i = N - 1; i >= 0; --i)
        for (int k = i + 1; k < N; ++k) b[i] -= LU[k + i * LDA] * b[k];
    }
  }
}

int main(void) {
  double LU[LDA * N];
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < LDA; ++i) LU[i + j * LDA] = i == j ? 4.0 + i : 0.25 * (i + 1) - 0.125 * (j + 1);
  /* Rows past N = 4, inside LDB = 7; rows 1 and 2 both go to row 6, so that the interchanges' order
     (forward for N, in reverse for T) matters. */
  const int pivots[N] = {6, 6, 7, 5};
  int failures = 0;
  for (int transposed = 0; transposed <= 1; ++transposed) {
    double B[LDB * NRHS], expected[LDB * NRHS];
    for (int i = 0; i < LDB * NRHS; ++i) B[i] = expected[i] = 1.0 + 0.5 * i;
    if (!transposed)
      for (int k = 0; k < N; ++k) swap_rows(expected, k, pivots[k] - 1);
    solve(LU, expected, transposed);
    if (transposed)
      for (int k = N - 1; k >= 0; --k) swap_rows(expected, k, pivots[k] - 1);
    int n = N, nrhs = NRHS, lda = LDA, ldb = LDB, info = -99;
    dgetrs_(transposed ? "T" : "N", &n, &nrhs, LU, &lda, pivots, B, &ldb, &info, 1);
    double worst = 0;
    for (int i = 0; i < LDB * NRHS; ++i) worst = fmax(worst, fabs(B[i] - expected[i]) / fmax(1.0, fabs(expected[i])));
    printf("trans %c: info %d, largest relative difference %.1e over all LDB rows\n", transposed ? 'T' : 'N', info,
           worst);
    if (info != 0 || !(worst < 1e-14)) ++failures;
  }
  /* Beyond LDB, and below 1: argument 6, B untouched. */
  const int outside[2][N] = {{1, 2, 8, 4}, {0, 2, 3, 4}};
  for (int c = 0; c < 2; ++c) {
    double B[LDB * NRHS], before[LDB * NRHS];
    for (int i = 0; i < LDB * NRHS; ++i) B[i] = before[i] = 1.0 + i;
    int n = N, nrhs = NRHS, lda = LDA, ldb = LDB, info = -99;
    dgetrs_("N", &n, &nrhs, LU, &lda, outside[c], B, &ldb, &info, 1);
    printf("a pivot of %d: info %d\n", outside[c][c == 0 ? 2 : 0], info);
    if (info != -6 || memcmp(B, before, sizeof B) != 0) ++failures;
  }
  /* dsgesv_ in place, at n = 3 and 600 (the default small-matrix crossover is 512). */
  static double A0[600 * 600], A[600 * 600], XB[600 * 2];
  for (int n = 3; n <= 600; n = n < 600 ? 600 : 601) {
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) A0[i + j * n] = (i == j ? n : 0) + 1.0 / (1 + i + 2 * j);
    for (int i = 0; i < n * 2; ++i) XB[i] = 1.0 + (i % 7);
    memcpy(A, A0, sizeof(double) * n * n);
    int nrhs = 2, ipiv[600], iter = -99, info = -99;
    dsgesv_(&n, &nrhs, A, &n, ipiv, XB, &n, XB, &n, NULL, NULL, &iter, &info);
    double worst = 0;
    for (int c = 0; c < 2; ++c)
      for (int i = 0; i < n; ++i) {
        double r = 1.0 + ((i + c * n) % 7);
        for (int j = 0; j < n; ++j) r -= A0[i + j * n] * XB[j + c * n];
        worst = fmax(worst, fabs(r));
      }
    printf("dsgesv_ in place, n = %d: info %d, ITER %d, largest residual %.1e\n", n, info, iter, worst);
    if (info != 0 || !(worst < 1e-10 * n)) ++failures;
  }
  printf(failures ? "FAILED\n" : "passed\n");
  return failures ? 1 : 0;
}
