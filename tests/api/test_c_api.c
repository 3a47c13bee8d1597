/* The C API from plain C: compiled as C11 against hetlu.h only. Prints one line per check and
 * "N passed, M failed" last; exits non-zero on any failure. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "hetlu/hetlu.h"

static int passed = 0, failed = 0;

static void check(int ok, const char* what) {
  printf("%s %s\n", ok ? "ok    " : "FAILED", what);
  if (ok)
    ++passed;
  else
    ++failed;
}

int main(void) {
  hetlu_options options;
  hetlu_options_init(&options);
  options.db_path = "/nonexistent-folder/hetlu-c-api-test.db"; /* no database: the model answers */

  double A[9] = {4, 1, 0, 2, 3, 1, 0, 1, 5}; /* column-major */
  double B[3] = {6, 5, 6};                   /* A * (1, 1, 1) */
  int ipiv[3], info = -1;
  hetlu_report report;
  hetlu_status s = hetlu_dgesv(3, 1, A, 3, ipiv, B, 3, &info, &options, &report);
  check(s == HETLU_SUCCESS && info == 0, "dgesv succeeds");
  check(fabs(B[0] - 1) < 1e-14 && fabs(B[1] - 1) < 1e-14 && fabs(B[2] - 1) < 1e-14, "dgesv solution is (1, 1, 1)");
  check(strcmp(report.plan.source, "model") == 0, "report names the plan's source");

  double LU[4] = {1, 3, 2, 4}, X[2] = {7, 10}; /* A^T (1, 2)^T = (1*1 + 3*2, 2*1 + 4*2) */
  int piv2[2];
  s = hetlu_dgetrf(2, 2, LU, 2, piv2, &info, &options, NULL);
  check(s == HETLU_SUCCESS, "dgetrf succeeds");
  s = hetlu_dgetrs('T', 2, 1, LU, 2, piv2, X, 2);
  check(s == HETLU_SUCCESS && fabs(X[0] - 1) < 1e-14 && fabs(X[1] - 2) < 1e-14, "dgetrs 'T' solves A^T x = b");
  check(hetlu_dgetrs('Q', 2, 1, LU, 2, piv2, X, 2) == HETLU_ERROR_INVALID_ARGUMENT, "dgetrs rejects trans 'Q'");
  check(strstr(hetlu_last_error(), "trans") != NULL, "the message names trans");

  double S[4] = {1, 2, 2, 4}, b2[2] = {1, 1};
  s = hetlu_dgesv(2, 1, S, 2, piv2, b2, 2, &info, &options, NULL);
  check(s == HETLU_ERROR_SINGULAR && info == 2, "a singular matrix gives HETLU_ERROR_SINGULAR and info = 2");
  check(strstr(hetlu_last_error(), "U(2,2)") != NULL, "the message names the zero pivot");

  s = hetlu_dgesv(3, 1, A, 2, ipiv, B, 3, &info, &options, NULL);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "lda") != NULL, "lda < n is named");

  double N[1] = {NAN}, bn[1] = {1};
  s = hetlu_dgesv(1, 1, N, 1, ipiv, bn, 1, &info, &options, NULL);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "NaN") != NULL, "NaN is refused");

  float Af[4] = {2, 0, 0, 4}, Bf[2] = {2, 4};
  s = hetlu_sgesv(2, 1, Af, 2, piv2, Bf, 2, &info, NULL, NULL);
  check(s == HETLU_SUCCESS && fabsf(Bf[0] - 1) < 1e-6f && fabsf(Bf[1] - 1) < 1e-6f, "sgesv with default options");

  hetlu_plan plan;
  options.nb = 48;
  s = hetlu_recommend('d', 1000, 1000, &options, &plan);
  check(s == HETLU_SUCCESS && plan.nb == 48 && strcmp(plan.source, "override") == 0, "recommend with an nb override");
  check(strcmp(plan.precision, "double") == 0 && strcmp(plan.target, "cpu") == 0 &&
            strcmp(plan.panel_location, "cpu") == 0 && strcmp(plan.refinement, "none") == 0,
        "the plan names its precision, target, panel place and refinement");
  check(hetlu_recommend('x', 10, 10, NULL, &plan) == HETLU_ERROR_INVALID_ARGUMENT, "recommend rejects precision 'x'");
  options.nb = 0;
  const hetlu_solver others[2] = {HETLU_SOLVER_CALU, HETLU_SOLVER_PRBT};
  for (int k = 0; k < 2; ++k) {
    double C[9] = {4, 1, 0, 2, 3, 1, 0, 1, 5}, bc[3] = {6, 5, 6};
    options.solver = others[k];
    s = hetlu_dgesv(3, 1, C, 3, ipiv, bc, 3, &info, &options, &report);
    check(s == HETLU_SUCCESS && fabs(bc[0] - 1) < 1e-14 && fabs(bc[2] - 1) < 1e-14,
          k == 0 ? "CALU solves through the C API" : "PRBT solves through the C API");
    check(strcmp(report.plan.refinement, k == 0 ? "none" : "working") == 0, "the report's plan names its refinement");
  }
  check(strcmp(hetlu_strerror(HETLU_ERROR_SINGULAR), "the matrix is singular") == 0, "hetlu_strerror");

  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
