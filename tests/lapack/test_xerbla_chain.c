/* Programs whose xerbla_ the drop-in's could call back without end (a review's finding: both hung):
   - PASSES_ON: the program defines xerbla_, counts the report and passes it on (dlsym(RTLD_NEXT));
   - otherwise a non-PIE program that only takes xerbla_'s address, which makes an undefined entry of
     its own (a PLT stub leading back to the drop-in's).
   Each report must reach the end of the chain once and return, with LAPACK's INFO. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);

#ifdef PASSES_ON
static int reports;
void xerbla_(const char* srname, const int* info, size_t srname_len) {
  ++reports;
  void (*next)(const char*, const int*, size_t) =
      (void (*)(const char*, const int*, size_t))dlsym(RTLD_NEXT, "xerbla_");
  if (next) next(srname, info, srname_len);
}
#else
void xerbla_(const char* srname, const int* info, size_t srname_len);
void (*volatile kept)(const char*, const int*, size_t);
#endif

int main(void) {
#ifndef PASSES_ON
  kept = xerbla_;
#endif
  double a[4] = {4, 1, 1, 3};
  int ipiv[2], info = 0, n = 2, one = 1, zero = 0, failures = 0;
  dgetrf_(&n, &n, a, &one, ipiv, &info); /* hetlu's: LDA 1 < N, argument 4 */
  if (info != -4) printf("FAILED: dgetrf_ INFO %d, not -4\n", info), ++failures;
  dpotrf_("X", &zero, a, &one, &info, 1); /* the BLAS library's: argument 1 */
  if (info != -1) printf("FAILED: dpotrf_ INFO %d, not -1\n", info), ++failures;
#ifdef PASSES_ON
  if (reports != 2) printf("FAILED: the program's xerbla_ saw %d reports, not 2\n", reports), ++failures;
#endif
  if (!failures) printf("xerbla: each report passed along the chain once\n");
  return failures != 0;
}
