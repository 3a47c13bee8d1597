/* The C API from plain C: compiled as C11 against hetlu.h only. Prints one line per check and
 * "N passed, M failed" last; exits non-zero on any failure. */
#include <complex.h>
#include <float.h>
#include <limits.h>
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
  {
    double bad[9] = {4, 1, 0, 2, NAN, 1, 0, 1, 5}, bb[3] = {6, 5, 6};
    s = hetlu_dgesv(3, 1, bad, 3, ipiv, bb, 3, &info, &options, &report);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && info == -HETLU_ERROR_INVALID_ARGUMENT && report.plan.source[0] == '\0' &&
              report.plan.predicted_seconds == -1 && report.seconds == 0,
          "a refused call clears the report (no earlier call's plan) and sets *info to -status");
  }

  double LU[4] = {1, 3, 2, 4}, X[2] = {7, 10}; /* A^T (1, 2)^T = (1*1 + 3*2, 2*1 + 4*2) */
  int piv2[2];
  s = hetlu_dgetrf(2, 2, LU, 2, piv2, &info, &options, NULL);
  check(s == HETLU_SUCCESS, "dgetrf succeeds");
  s = hetlu_dgetrs('T', 2, 1, LU, 2, piv2, X, 2);
  check(s == HETLU_SUCCESS && fabs(X[0] - 1) < 1e-14 && fabs(X[1] - 2) < 1e-14, "dgetrs 'T' solves A^T x = b");
  check(hetlu_dgetrs('Q', 2, 1, LU, 2, piv2, X, 2) == HETLU_ERROR_INVALID_ARGUMENT, "dgetrs rejects trans 'Q'");
  check(strstr(hetlu_last_error(), "trans") != NULL, "the message names trans");
  /* A negative order with one column is refused on the lean path too (it returned success). */
  check(hetlu_dgetrs('N', -1, 1, LU, 2, piv2, X, 2) == HETLU_ERROR_INVALID_ARGUMENT, "dgetrs rejects n = -1");
  check(hetlu_zgetrs('N', -5, 1, NULL, 1, NULL, NULL, 1) == HETLU_ERROR_INVALID_ARGUMENT, "zgetrs rejects n = -5");
  {
    int garbage[2] = {0, 99}; /* LAPACK returns at once for NRHS = 0, reading nothing */
    check(hetlu_dgetrs('N', 2, 0, LU, 2, garbage, X, 2) == HETLU_SUCCESS, "dgetrs with nrhs = 0 reads no pivot");
  }

  {
    /* gecon: A = [[2, 1], [1, 3]] (||A||_1 = 4, ||A^-1||_1 = 4/5: rcond = 5/16), and a nearly
     * singular one, [[1, 1], [1, 1 + 1e-17]] (rounds to exactly singular: rcond 0). */
    double G[4] = {2, 1, 1, 3}, rcond = -1;
    int p[2];
    hetlu_dgetrf(2, 2, G, 2, p, &info, &options, NULL);
    s = hetlu_dgecon(2, G, 2, p, 4.0, &rcond);
    check(s == HETLU_SUCCESS && fabs(rcond - 5.0 / 16) < 1e-15, "dgecon: rcond = 1 / (||A||_1 ||A^-1||_1)");
    float Gs[4] = {2, 1, 1, 3};
    hetlu_sgetrf(2, 2, Gs, 2, p, &info, &options, NULL);
    s = hetlu_sgecon(2, Gs, 2, p, 4.0, &rcond);
    check(s == HETLU_SUCCESS && fabs(rcond - 5.0 / 16) < 1e-6, "sgecon too");
    hetlu_complex_double Z[4] = {2, 1, 1, 3};
    hetlu_zgetrf(2, 2, Z, 2, p, &info, &options, NULL);
    s = hetlu_zgecon(2, Z, 2, p, 4.0, &rcond);
    check(s == HETLU_SUCCESS && fabs(rcond - 5.0 / 16) < 1e-15, "zgecon too");
    hetlu_complex_float C[4] = {2, 1, 1, 3};
    hetlu_cgetrf(2, 2, C, 2, p, &info, &options, NULL);
    s = hetlu_cgecon(2, C, 2, p, 4.0, &rcond);
    check(s == HETLU_SUCCESS && fabs(rcond - 5.0 / 16) < 1e-6, "cgecon too");
    double Y[4] = {1, 1, 1, 1 + 1e-17};
    hetlu_dgetrf(2, 2, Y, 2, p, &info, &options, NULL);
    s = hetlu_dgecon(2, Y, 2, p, 2.0, &rcond);
    check(s == HETLU_SUCCESS && rcond == 0, "dgecon: an exactly zero pivot gives rcond 0");
    int bad[2] = {3, 2};
    check(hetlu_dgecon(2, G, 2, bad, 4.0, &rcond) == HETLU_ERROR_INVALID_ARGUMENT &&
              strstr(hetlu_last_error(), "ipiv") != NULL,
          "dgecon refuses a pivot outside [1, n], naming ipiv");
    check(hetlu_dgecon(2, G, 2, p, NAN, &rcond) == HETLU_ERROR_INVALID_ARGUMENT, "dgecon refuses anorm = NaN");
    check(hetlu_dgecon(2, G, 2, p, 4.0, NULL) == HETLU_ERROR_INVALID_ARGUMENT &&
              strstr(hetlu_last_error(), "rcond") != NULL,
          "dgecon refuses a null rcond");
    check(hetlu_dgecon(2, NULL, 2, p, 4.0, &rcond) == HETLU_ERROR_INVALID_ARGUMENT, "dgecon refuses a null LU");
    check(hetlu_dgecon(0, NULL, 1, NULL, 0.0, &rcond) == HETLU_SUCCESS && rcond == 1, "dgecon of n = 0 is 1");
  }
  double S[4] = {1, 2, 2, 4}, b2[2] = {1, 1};
  s = hetlu_dgesv(2, 1, S, 2, piv2, b2, 2, &info, &options, NULL);
  check(s == HETLU_ERROR_SINGULAR && info == 2, "a singular matrix gives HETLU_ERROR_SINGULAR and info = 2");
  check(strstr(hetlu_last_error(), "U(2,2)") != NULL, "the message names the zero pivot");
  {
    /* The same through getrf without a report (the small path builds no report): the same answer. */
    double S2[4] = {1, 2, 2, 4};
    s = hetlu_dgetrf(2, 2, S2, 2, piv2, &info, NULL, NULL);
    check(s == HETLU_ERROR_SINGULAR && info == 2 && strstr(hetlu_last_error(), "U(2,2)") != NULL,
          "dgetrf without a report: a singular matrix is HETLU_ERROR_SINGULAR, info = 2, named");
    double N2[4] = {1, NAN, 2, 4};
    s = hetlu_dgetrf(2, 2, N2, 2, piv2, &info, NULL, NULL);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "A(2,1)") != NULL,
          "dgetrf without a report: a NaN is named");
    double G[4] = {4, 2, 2, 3};
    s = hetlu_dgetrf(2, 2, G, 2, piv2, &info, NULL, NULL);
    check(s == HETLU_SUCCESS && info == 0 && hetlu_last_error()[0] == '\0', "and a good call clears the last error");
    /* The crossover is resolved now: calls with nothing asked take the path that builds no Options.
       Every refusal and answer must be the full way's. */
    hetlu_options defaults;
    hetlu_options_init(&defaults);
    double S3[4] = {1, 2, 2, 4};
    s = hetlu_dgetrf(2, 2, S3, 2, piv2, &info, &defaults, NULL);
    check(s == HETLU_ERROR_SINGULAR && info == 2 && strstr(hetlu_last_error(), "U(2,2)") != NULL,
          "default options, no report: a singular matrix is named, info = 2");
    double I2[4] = {1, 2, INFINITY, 4};
    s = hetlu_dgetrf(2, 2, I2, 2, piv2, &info, NULL, NULL);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "A(1,2) is Inf") != NULL && I2[2] == INFINITY,
          "no options: an Inf is named and A is left as it was");
    s = hetlu_dgetrf(2, 2, G, 1, piv2, &info, NULL, NULL);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "lda") != NULL,
          "no options: a bad lda is named");
    s = hetlu_dgetrf(2, 2, G, 2, NULL, &info, NULL, NULL);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "ipiv") != NULL,
          "no options: a null ipiv is named");
    s = hetlu_dgetrf(-1, 2, G, 2, piv2, &info, NULL, NULL);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "m") != NULL,
          "no options: a negative m is named");
    double G2[4] = {1, 3, 2, 4};
    s = hetlu_dgetrf(2, 2, G2, 2, piv2, &info, &defaults, NULL);
    check(s == HETLU_SUCCESS && info == 0 && piv2[0] == 2 && fabs(G2[0] - 3) < 1e-15 && hetlu_last_error()[0] == '\0',
          "default options, no report: the BLAS library's LU, pivots and all, and the error cleared");
    s = hetlu_dgetrf(0, 0, NULL, 1, NULL, &info, NULL, NULL);
    check(s == HETLU_SUCCESS && info == 0, "no options: an empty matrix is no error");
  }

  info = 12345;
  s = hetlu_dgesv(3, 1, A, 2, ipiv, B, 3, &info, &options, NULL);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "lda") != NULL, "lda < n is named");
  check(info == -HETLU_ERROR_INVALID_ARGUMENT, "a refused call sets *info to -status, not left as it was");
  {
    double Xr[3];
    int iter = -2;
    s = hetlu_dsgesv(3, 1, A, 2, ipiv, B, 3, Xr, 3, &iter, &info, &options, NULL);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && iter == 0 && info == -HETLU_ERROR_INVALID_ARGUMENT,
          "a refused dsgesv sets ITER 0 (LAPACK's first assignment), not an earlier call's");
  }

  double N[1] = {NAN}, bn[1] = {1};
  s = hetlu_dgesv(1, 1, N, 1, ipiv, bn, 1, &info, &options, NULL);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "NaN") != NULL, "NaN is refused");

  float Af[4] = {2, 0, 0, 4}, Bf[2] = {2, 4};
  s = hetlu_sgesv(2, 1, Af, 2, piv2, Bf, 2, &info, NULL, NULL);
  check(s == HETLU_SUCCESS && fabsf(Bf[0] - 1) < 1e-6f && fabsf(Bf[1] - 1) < 1e-6f, "sgesv with default options");

  /* A batch: three 2 x 2 systems, the second singular; one pivot array per system. */
  double As[12] = {2, 0, 0, 4, 1, 2, 2, 4, 0, 1, 1, 0}, Bs[6] = {2, 4, 1, 1, 3, 5};
  int pivots[6], infos[3];
  s = hetlu_dgesv_batched(3, 2, 1, As, 2, 4, pivots, 2, Bs, 2, 2, infos);
  check(s == HETLU_SUCCESS && infos[0] == 0 && infos[1] == 2 && infos[2] == 0, "a batch reports each system's info");
  check(Bs[0] == 1 && Bs[1] == 1 && Bs[2] == 1 && Bs[3] == 1 && Bs[4] == 5 && Bs[5] == 3,
        "a batch solves each system, the singular one's B untouched");
  s = hetlu_dgesv_batched(3, 2, 1, As, 2, 3, pivots, 2, Bs, 2, 2, infos);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "stride_a") != NULL,
        "overlapping systems are refused, the stride named");
  s = hetlu_dgetrs('\0', 2, 1, As, 2, pivots, Bs, 2);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "char 0 must be") != NULL,
        "a NUL trans is named by its code (it had cut the message short)");
  {
    double rc = -1;
    s = hetlu_dgecon(2, As, 2, pivots, 1.0 / 0.0, &rc);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && rc == 0 && strstr(hetlu_last_error(), "anorm") != NULL,
          "an infinite anorm is refused, rcond 0, as LAPACK 3.12's gecon");
    s = hetlu_dgecon(0, As, 1, pivots, 1.0 / 0.0, &rc);
    check(s == HETLU_SUCCESS && rc == 1, "n = 0: rcond 1 whatever anorm is, as LAPACK's gecon");
  }
  s = hetlu_dgesv_batched(2, 2, 1, As, 2, LLONG_MAX, pivots, 2, Bs, 2, 2, infos);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "address space") != NULL,
        "a stride that carries a system past the end of memory is refused");
  s = hetlu_dgesv_batched(3, 2, 1, As, 2, 4, pivots, (long long)1 << 61, Bs, 2, 2, infos);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "stride_ipiv") != NULL,
        "an ipiv stride past the address space is named");
  s = hetlu_dgesv_batched(3, 2, 0, As, 2, 4, pivots, 2, Bs, 2, LLONG_MAX, infos);
  check(s == HETLU_SUCCESS, "no right-hand side: B's stride is never used, whatever it is");
  s = hetlu_dgesv_batched(-1, 2, 1, As, 2, 4, pivots, 2, Bs, 2, 2, infos);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "batch") != NULL, "a negative batch is named");
  s = hetlu_dgesv_batched(2, 2, 1, As, 2, 4, pivots, 2, Bs, 2, 2, NULL);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "info") != NULL, "a null info is named");
  /* The same batch on the host backend's team (the hybrid target's device, #14 item 5), and a plan
   * override refused there. */
  {
    double Ah[12] = {2, 0, 0, 4, 1, 2, 2, 4, 0, 1, 1, 0}, Bh[6] = {2, 4, 1, 1, 3, 5};
    hetlu_options on_host;
    hetlu_options_init(&on_host);
    on_host.target = HETLU_TARGET_HYBRID;
    on_host.backend = HETLU_BACKEND_HOST;
    s = hetlu_dgesv_batched_x(3, 2, 1, Ah, 2, 4, pivots, 2, Bh, 2, 2, infos, &on_host);
    check(s == HETLU_SUCCESS && infos[0] == 0 && infos[1] == 2 && infos[2] == 0 && Bh[0] == 1 && Bh[1] == 1 &&
              Bh[2] == 1 && Bh[3] == 1 && Bh[4] == 5 && Bh[5] == 3,
          "a batch on the host backend: each system solved, the singular one's B untouched");
    on_host.nb = 16;
    s = hetlu_dgesv_batched_x(3, 2, 1, Ah, 2, 4, pivots, 2, Bh, 2, 2, infos, &on_host);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "no plan") != NULL,
          "a batch refuses nb: it has no plan");
    on_host.nb = 0;
    on_host.solver = HETLU_SOLVER_PRBT;
    s = hetlu_dgesv_batched_x(3, 2, 1, Ah, 2, 4, pivots, 2, Bh, 2, 2, infos, &on_host);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "partial pivoting") != NULL,
          "a batch refuses a solver other than GEPP");
    double Ac[12] = {2, 0, 0, 4, 1, 2, 2, 4, 0, 1, 1, 0}, Bc[6] = {2, 4, 1, 1, 3, 5};
    s = hetlu_dgesv_batched_x(3, 2, 1, Ac, 2, 4, pivots, 2, Bc, 2, 2, infos, NULL);
    check(s == HETLU_SUCCESS && infos[1] == 2 && Bc[4] == 5 && Bc[5] == 3,
          "a batch with NULL options runs on the CPUs");
    /* No right-hand side: each A is still factored, as LAPACK's gesv does (OpenBLAS's returned at once). */
    double Af0[4] = {1, 2, 3, 4}, Bf0[2] = {0, 0};
    s = hetlu_dgesv_batched(1, 2, 0, Af0, 2, 4, pivots, 2, Bf0, 2, 2, infos);
    check(s == HETLU_SUCCESS && infos[0] == 0 && pivots[0] == 2 && Af0[0] == 2 && Af0[1] == 0.5,
          "a batch without right-hand sides factors each A");
  }
  /* A NaN in one system's A, an Inf in another's B: those left as they are (info -3, -6), named; the
   * rest solved (the NaN system came back with info 0 and X NaN). */
  double An[12] = {2, 0, 0, 4, NAN, 0, 0, 1, 1, 0, 0, 1}, Bn[6] = {2, 4, 7, 7, INFINITY, 1};
  s = hetlu_dgesv_batched(3, 2, 1, An, 2, 4, pivots, 2, Bn, 2, 2, infos);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "system 1: A") != NULL && infos[0] == 0 &&
            infos[1] == -3 && infos[2] == -6 && Bn[0] == 1 && Bn[1] == 1 && Bn[2] == 7 && isnan(An[4]),
        "a batch names its first system with a NaN, solves the others, leaves those as they were");

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
    if (k == 1) {
      /* PRBT factored a randomized copy: A unchanged and no pivots of A, so a getrs reusing them, as
         after LAPACK's dgesv, is refused instead of solving with A taken for its factors. */
      const double A0[9] = {4, 1, 0, 2, 3, 1, 0, 1, 5};
      double again[3] = {6, 5, 6};
      check(memcmp(C, A0, sizeof A0) == 0 && ipiv[0] == 0 && ipiv[1] == 0 && ipiv[2] == 0,
            "PRBT's gesv leaves A unchanged and ipiv zeroed");
      check(hetlu_dgetrs('N', 3, 1, C, 3, ipiv, again, 3) == HETLU_ERROR_INVALID_ARGUMENT && again[0] == 6,
            "getrs refuses PRBT's zeroed pivots");
      double X[3];
      const double bd[3] = {6, 5, 6};
      ipiv[0] = 7;
      s = hetlu_dgesv_auto_precision(3, 1, C, 3, ipiv, bd, 3, X, 3, &info, &options, &report);
      check(s == HETLU_SUCCESS && fabs(X[0] - 1) < 1e-14 && memcmp(C, A0, sizeof A0) == 0 && ipiv[0] == 0,
            "precision auto with PRBT: A unchanged and ipiv zeroed where PRBT's double answered");
    }
  }
  check(strcmp(hetlu_strerror(HETLU_ERROR_SINGULAR), "the matrix is singular") == 0, "hetlu_strerror");

  /* Finite input whose X overflows (Wilkinson's growth matrix scaled by 1.5e308: U(n,n) = 2^39 x
     that): LAPACK's dgesv returns INFO = 0 with X Inf; hetlu says NOT_FINITE, every solver. */
  {
    enum { W = 40 };
    static double Wm[W * W], wb[W];
    int wpiv[W];
    for (int k = 0; k < 3; ++k) {
      for (int j = 0; j < W; ++j)
        for (int i = 0; i < W; ++i) Wm[i + j * W] = (j == W - 1 || i == j ? 1.0 : i > j ? -1.0 : 0.0) * 1.5e308;
      for (int i = 0; i < W; ++i) wb[i] = 1;
      hetlu_options_init(&options);
      options.db_path = "/nonexistent-folder/hetlu-c-api-test.db";
      options.solver = (hetlu_solver)k;
      s = hetlu_dgesv(W, 1, Wm, W, wpiv, wb, W, &info, &options, NULL);
      check(s == HETLU_ERROR_NOT_FINITE && strstr(hetlu_last_error(), "is not finite") != NULL,
            "an X that overflowed from finite input is HETLU_ERROR_NOT_FINITE, not success");
      check(info == -HETLU_ERROR_NOT_FINITE, "an X that overflowed: *info -6, not LAPACK's 0");
    }
    /* The same in a batch, after a system that solves: its info stays LAPACK's 0, the call says which. */
    {
      static double Wb[2 * W * W], wbb[2 * W];
      int bpiv[2 * W], binfo[2] = {-7, -7};
      for (int j = 0; j < W; ++j)
        for (int i = 0; i < W; ++i) {
          Wb[i + j * W] = i == j ? 2.0 : 0.0;
          Wb[W * W + i + j * W] = (j == W - 1 || i == j ? 1.0 : i > j ? -1.0 : 0.0) * 1.5e308;
        }
      for (int i = 0; i < 2 * W; ++i) wbb[i] = 1;
      s = hetlu_dgesv_batched(2, W, 1, Wb, W, W * W, bpiv, W, wbb, W, W, binfo);
      check(s == HETLU_ERROR_NOT_FINITE && binfo[0] == 0 && binfo[1] == 0 && wbb[0] == 0.5 &&
                strstr(hetlu_last_error(), "system 1: X(") != NULL,
            "a batch whose second X overflowed is NOT_FINITE, naming system 1; the first solved");
      /* Beside a system with a NaN, and with another that overflows: all said (the overflows went
         unsaid behind the NaN's refusal, each with info 0). */
      static double Wc[4 * W * W], wcb[4 * W];
      int cpiv[4 * W], cinfo[4];
      for (int k = 0; k < 4; ++k)
        for (int j = 0; j < W; ++j)
          for (int i = 0; i < W; ++i)
            Wc[k * W * W + i + j * W] = k == 1 || k == 2 ? (j == W - 1 || i == j ? 1.0
                                                            : i > j              ? -1.0
                                                                                 : 0.0) *
                                                               1.5e308
                                        : i == j ? 2.0
                                                 : 0.0;
      Wc[3 * W * W] = 0.0 / 0.0;
      for (int i = 0; i < 4 * W; ++i) wcb[i] = 1;
      s = hetlu_dgesv_batched(4, W, 1, Wc, W, W * W, cpiv, W, wcb, W, W, cinfo);
      check(s == HETLU_ERROR_INVALID_ARGUMENT && cinfo[3] == -3 && cinfo[1] == 0 &&
                strstr(hetlu_last_error(), "system 3: A holds a NaN") != NULL &&
                strstr(hetlu_last_error(), "the X of system 1 is not finite either (2 systems in all") != NULL,
            "a batch's NaN input and its overflowed Xs are all said");
    }
    check(strcmp(hetlu_strerror(HETLU_ERROR_NOT_FINITE), "the solution is not finite (an overflow)") == 0,
          "hetlu_strerror names NOT_FINITE");
    /* getrs with singular factors (getrf's info > 0): refused before B changes. */
    double Z[4] = {1, 0, 2, 0}, zb[2] = {3, 4};
    int zpiv[2] = {1, 2};
    check(hetlu_dgetrs('N', 2, 1, Z, 2, zpiv, zb, 2) == HETLU_ERROR_SINGULAR && zb[0] == 3 && zb[1] == 4 &&
              strstr(hetlu_last_error(), "U(2,2) is exactly zero") != NULL,
          "getrs refuses factors with an exactly zero U(k,k), B unchanged");
    check(hetlu_dgetrs('N', 2, 0, Z, 2, zpiv, zb, 2) == HETLU_SUCCESS, "nrhs = 0 reads nothing, as LAPACK");
    check(hetlu_dgetrs('X', 2, 1, Z, 2, zpiv, zb, 2) == HETLU_ERROR_INVALID_ARGUMENT,
          "a bad argument is named before the factors are judged");
    int zeroed[2] = {0, 0}; /* PRBT's: refused as pivots, whatever U's diagonal holds */
    check(hetlu_dgetrs('N', 2, 1, Z, 2, zeroed, zb, 2) == HETLU_ERROR_INVALID_ARGUMENT &&
              strstr(hetlu_last_error(), "ipiv") != NULL,
          "zeroed pivots are refused as pivots");
  }

  /* The hybrid target from C: the host backend, d and the panel's place, as the CLI's options. */
  hetlu_options_init(&options);
  check(options.target == HETLU_TARGET_CPU && options.backend == HETLU_BACKEND_DEFAULT &&
            options.cpu_block_columns == -1 && options.panel == HETLU_PANEL_DEFAULT,
        "hetlu_options_init sets the CPU target and leaves d and the panel to be resolved");
  options.db_path = "/nonexistent-folder/hetlu-c-api-test.db";
  options.target = HETLU_TARGET_HYBRID;
  options.backend = HETLU_BACKEND_HOST;
  options.nb = 32;
  options.cpu_block_columns = 1;
  enum { H = 100 };
  static double Ah[H * H], bh[H];
  int piv_h[H];
  for (int j = 0; j < H; ++j) {
    for (int i = 0; i < H; ++i) Ah[i + j * H] = (i == j ? 2.0 * H : 0.0) + (double)((i * 7 + j * 13) % 17) / 17.0;
    bh[j] = 0;
  }
  for (int i = 0; i < H; ++i)
    for (int j = 0; j < H; ++j) bh[i] += Ah[i + j * H]; /* x = (1, ..., 1) */
  s = hetlu_dgesv(H, 1, Ah, H, piv_h, bh, H, &info, &options, &report);
  double worst = 0;
  for (int i = 0; i < H; ++i) worst = fmax(worst, fabs(bh[i] - 1));
  check(s == HETLU_SUCCESS && worst < 1e-12, "the hybrid target on the host backend solves through the C API");
  check(strcmp(report.plan.target, "hybrid") == 0 && strcmp(report.plan.backend, "host") == 0 &&
            report.plan.cpu_block_columns == 1 && strcmp(report.plan.panel_location, "cpu") == 0,
        "the report's plan is the hybrid one asked for: host backend, d = 1, panels on the CPUs");
  options.cpu_block_columns = 0;
  options.panel = HETLU_PANEL_DEVICE;
  s = hetlu_recommend('d', H, H, &options, &plan);
  check(s == HETLU_SUCCESS && plan.cpu_block_columns == 0 && strcmp(plan.panel_location, "device") == 0,
        "d = 0 puts the panels on the device");
  options.cpu_block_columns = 2;
  s = hetlu_recommend('d', H, H, &options, &plan);
  check(s == HETLU_ERROR_INVALID_ARGUMENT, "d = 2 with the panel on the device is refused");
  options.cpu_block_columns = -2;
  options.panel = HETLU_PANEL_DEFAULT;
  s = hetlu_recommend('d', H, H, &options, &plan);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "cpu_block_columns") != NULL,
        "a negative d other than -1 is named");
  options.cpu_block_columns = -1;
  options.target = HETLU_TARGET_CPU;
  options.backend = HETLU_BACKEND_HOST;
  s = hetlu_recommend('d', H, H, &options, &plan);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "hybrid target only") != NULL,
        "a backend on the CPU target is refused");
  options.backend = HETLU_BACKEND_DEFAULT;
  options.cpu_block_columns = 0; /* a struct zeroed instead of hetlu_options_init */
  s = hetlu_recommend('d', H, H, &options, &plan);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "hetlu_options_init") != NULL,
        "d = 0 on the CPU target is refused, naming hetlu_options_init");
  options.cpu_block_columns = -1;
  options.target = (hetlu_target)7;
  s = hetlu_recommend('d', H, H, &options, &plan);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "target") != NULL, "a bad target is named");
  options.target = HETLU_TARGET_HYBRID;
  options.backend = (hetlu_backend)9;
  s = hetlu_recommend('d', H, H, &options, &plan);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "backend") != NULL, "a bad backend is named");

  /* Several devices (since 0.3): two host backends beside the CPUs. */
  options.backend = HETLU_BACKEND_DEFAULT;
  options.devices = "host:1,host:1";
  options.cpu_block_columns = 1;
  for (int j = 0; j < H; ++j) {
    bh[j] = 0;
    for (int i = 0; i < H; ++i) Ah[i + j * H] = (i == j ? 2.0 * H : 0.0) + (double)((i * 7 + j * 13) % 17) / 17.0;
  }
  for (int i = 0; i < H; ++i)
    for (int j = 0; j < H; ++j) bh[i] += Ah[i + j * H];
  options.nb = 16;
  s = hetlu_dgesv(H, 1, Ah, H, piv_h, bh, H, &info, &options, &report);
  worst = 0;
  for (int i = 0; i < H; ++i) worst = fmax(worst, fabs(bh[i] - 1));
  check(s == HETLU_SUCCESS && worst < 1e-12 && strcmp(report.plan.devices, "host:1,host:1") == 0 &&
            strcmp(report.plan.backend, "host") == 0,
        "two host backends solve through the C API, and the plan names them");
  options.devices = "host:1,tpu";
  s = hetlu_recommend('d', H, H, &options, &plan);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "tpu") != NULL, "a bad device list is named");
  options.devices = "host\n1";
  s = hetlu_recommend('d', H, H, &options, &plan);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strchr(hetlu_last_error(), '\n') == NULL &&
            strstr(hetlu_last_error(), "host\\n1") != NULL,
        "a newline in a quoted argument is shown, not kept: the message stays one line");
  options.devices = "host:1,host:1";
  options.backend = HETLU_BACKEND_HOST;
  s = hetlu_recommend('d', H, H, &options, &plan);
  check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "not both") != NULL,
        "devices and backend together are refused");
  options.devices = NULL;
  options.backend = HETLU_BACKEND_DEFAULT;

  /* Mixed precision from C (since 0.3): X from single factors refined in double, B untouched. */
  {
    hetlu_options_init(&options);
    options.db_path = "/nonexistent-folder/hetlu-c-api-test.db";
    for (int solver = HETLU_SOLVER_GEPP; solver <= HETLU_SOLVER_PRBT; ++solver) {
      options.solver = (hetlu_solver)solver;
      for (int j = 0; j < H; ++j)
        for (int i = 0; i < H; ++i) Ah[i + j * H] = (i == j ? 2.0 * H : 0.0) + (double)((i * 7 + j * 13) % 17) / 17.0;
      double Bm[H], Xm[H];
      for (int i = 0; i < H; ++i) {
        Bm[i] = 0;
        for (int j = 0; j < H; ++j) Bm[i] += Ah[i + j * H];
      }
      int iter = -99;
      s = hetlu_dsgesv(H, 1, Ah, H, piv_h, Bm, H, Xm, H, &iter, &info, &options, &report);
      double err = 0, bsum = 0;
      for (int i = 0; i < H; ++i) err = fmax(err, fabs(Xm[i] - 1)), bsum += Bm[i];
      check(s == HETLU_SUCCESS && info == 0 && iter >= 0 && err < 1e-12 && bsum > 0,
            "hetlu_dsgesv solves in mixed precision with every solver, ITER >= 0");
      check(strcmp(report.plan.precision, "mixed") == 0, "the mixed solve's plan says precision mixed");
    }
    /* An entry outside single's range: the double solver answers, ITER = -2. */
    options.solver = HETLU_SOLVER_GEPP;
    double Big[4] = {1e300, 0, 0, 1}, Bb[2] = {1e300, 1}, Xb[2];
    int iter = 0, p2[2];
    s = hetlu_dsgesv(2, 1, Big, 2, p2, Bb, 2, Xb, 2, &iter, &info, &options, NULL);
    check(s == HETLU_SUCCESS && iter == -2 && fabs(Xb[0] - 1) < 1e-15 && fabs(Xb[1] - 1) < 1e-15,
          "hetlu_dsgesv falls back to double for 1e300, ITER = -2");
    double Sing[4] = {1, 1, 1, 1}, Bs[2] = {1, 1}, Xs[2];
    s = hetlu_dsgesv(2, 1, Sing, 2, p2, Bs, 2, Xs, 2, &iter, &info, &options, NULL);
    check(s == HETLU_ERROR_SINGULAR && info == 2, "hetlu_dsgesv of a singular matrix is HETLU_ERROR_SINGULAR");
    s = hetlu_dsgesv(2, 1, Big, 1, p2, Bb, 2, Xb, 2, &iter, &info, &options, NULL);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "lda") != NULL, "a bad lda is named");
    /* The hybrid target (host backend here): GEPP and PRBT refine on the device. */
    options.target = HETLU_TARGET_HYBRID;
    options.backend = HETLU_BACKEND_HOST;
    double Two[4] = {2, 1, 1, 3}, Bt[2] = {3, 4}, Xt[2];
    s = hetlu_dsgesv(2, 1, Two, 2, p2, Bt, 2, Xt, 2, &iter, &info, &options, NULL);
    check(s == HETLU_SUCCESS && iter >= 0 && fabs(Xt[0] - 1) < 1e-15 && fabs(Xt[1] - 1) < 1e-15,
          "hetlu_dsgesv on the hybrid target solves");
    options.solver = HETLU_SOLVER_PRBT;
    double Two2[4] = {2, 1, 1, 3};
    s = hetlu_dsgesv(2, 1, Two2, 2, p2, Bt, 2, Xt, 2, &iter, &info, &options, NULL);
    check(s == HETLU_SUCCESS && iter >= 0 && fabs(Xt[0] - 1) < 1e-15 && fabs(Xt[1] - 1) < 1e-15,
          "hetlu_dsgesv with PRBT on the hybrid target solves");
    options.solver = HETLU_SOLVER_GEPP;
    options.target = HETLU_TARGET_CPU;
    options.backend = HETLU_BACKEND_DEFAULT;
  }

  /* Precision auto from C: mixed or double as hetlu decides; the report's plan says which. */
  {
    hetlu_options_init(&options);
    options.db_path = "/nonexistent-folder/hetlu-c-api-test.db";
    for (int j = 0; j < H; ++j)
      for (int i = 0; i < H; ++i) Ah[i + j * H] = (i == j ? 2.0 * H : 0.0) + (double)((i * 7 + j * 13) % 17) / 17.0;
    double Ba[H], Xa[H];
    for (int i = 0; i < H; ++i) {
      Ba[i] = 0;
      for (int j = 0; j < H; ++j) Ba[i] += Ah[i + j * H];
    }
    s = hetlu_dgesv_auto_precision(H, 1, Ah, H, piv_h, Ba, H, Xa, H, &info, &options, &report);
    double err = 0;
    for (int i = 0; i < H; ++i) err = fmax(err, fabs(Xa[i] - 1));
    check(s == HETLU_SUCCESS && info == 0 && err < 1e-12, "hetlu_dgesv_auto_precision solves");
    check(strcmp(report.plan.precision, "mixed") == 0 || strcmp(report.plan.precision, "double") == 0,
          "its plan says which precision answered");
    double Sing[4] = {1, 1, 1, 1}, Bs[2] = {1, 1}, Xs[2];
    int p2[2];
    s = hetlu_dgesv_auto_precision(2, 1, Sing, 2, p2, Bs, 2, Xs, 2, &info, &options, NULL);
    check(s == HETLU_ERROR_SINGULAR && info == 2, "hetlu_dgesv_auto_precision of a singular matrix");
    s = hetlu_dgesv_auto_precision(2, 1, Sing, 2, p2, Bs, 2, Xs, 1, &info, &options, NULL);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "ldx") != NULL, "a bad ldx is named");
    double _Complex Zc[4] = {2, -I, I, 3}, Zb[2] = {2 + I * (1 + I), -I + 3 * (1 + I)}, Zx[2];
    s = hetlu_zgesv_auto_precision(2, 1, Zc, 2, p2, Zb, 2, Zx, 2, &info, &options, NULL);
    check(s == HETLU_SUCCESS && cabs(Zx[0] - 1) < 1e-14 && cabs(Zx[1] - (1 + I)) < 1e-14,
          "hetlu_zgesv_auto_precision solves a complex system");
  }

  /* Complex from C99's _Complex: A = [[2, i], [-i, 3]] (Hermitian), x = (1, 1 + i). */
  {
    hetlu_options_init(&options);
    options.db_path = "/nonexistent-folder/hetlu-c-api-test.db";
    double _Complex Az[4] = {2, -I, I, 3}, Bz[2], Lz[4];
    const double _Complex xz[2] = {1, 1 + I};
    for (int i = 0; i < 2; ++i) Bz[i] = Az[i] * xz[0] + Az[i + 2] * xz[1];
    memcpy(Lz, Az, sizeof Az);
    int pz[2], infoz = -1;
    for (int solver = 0; solver < 3; ++solver) {
      double _Complex Acopy[4], Bcopy[2];
      memcpy(Acopy, Az, sizeof Az);
      memcpy(Bcopy, Bz, sizeof Bz);
      options.solver = (hetlu_solver)solver;
      s = hetlu_zgesv(2, 1, Acopy, 2, pz, Bcopy, 2, &infoz, &options, &report);
      check(s == HETLU_SUCCESS && infoz == 0 && cabs(Bcopy[0] - xz[0]) < 1e-14 && cabs(Bcopy[1] - xz[1]) < 1e-14,
            solver == 0   ? "zgesv (GEPP) solves a complex system"
            : solver == 1 ? "zgesv (CALU) too"
                          : "zgesv (PRBT) too");
    }
    check(strcmp(report.plan.precision, "double") == 0, "a complex double call reports the double plan");
    {
      double _Complex Acopy[4], Xz[2];
      memcpy(Acopy, Az, sizeof Az);
      int iterz = -99;
      s = hetlu_zcgesv(2, 1, Acopy, 2, pz, Bz, 2, Xz, 2, &iterz, &infoz, &options, NULL);
      check(
          s == HETLU_SUCCESS && infoz == 0 && iterz >= 0 && cabs(Xz[0] - xz[0]) < 1e-14 && cabs(Xz[1] - xz[1]) < 1e-14,
          "zcgesv solves a complex system in mixed precision");
    }
    options.solver = HETLU_SOLVER_GEPP;
    s = hetlu_zgetrf(2, 2, Lz, 2, pz, &infoz, &options, NULL);
    /* A^H = A here, so A^H x = b has the same x; A^T x = b does not. */
    double _Complex Bh[2] = {Bz[0], Bz[1]}, Bt[2] = {Bz[0], Bz[1]};
    check(s == HETLU_SUCCESS && hetlu_zgetrs('C', 2, 1, Lz, 2, pz, Bh, 2) == HETLU_SUCCESS &&
              cabs(Bh[0] - xz[0]) < 1e-14 && cabs(Bh[1] - xz[1]) < 1e-14,
          "zgetrs 'C' solves A^H x = b");
    check(hetlu_zgetrs('T', 2, 1, Lz, 2, pz, Bt, 2) == HETLU_SUCCESS && cabs(Bt[1] - xz[1]) > 0.1,
          "zgetrs 'T' solves A^T x = b, not A^H x = b");
    float _Complex Ac[4] = {0, 0, 0, 0}, Bc[2] = {1, 1};
    s = hetlu_cgesv(2, 1, Ac, 2, pz, Bc, 2, &infoz, NULL, NULL);
    check(s == HETLU_ERROR_SINGULAR && infoz == 1, "cgesv reports a zero matrix as singular, info 1");
    /* A batch of two complex systems: diag(2i, 1) x = (2i, 1) and a singular one. */
    double _Complex Ab[8] = {2 * I, 0, 0, 1, 0, 0, 0, 0}, Bb[4] = {2 * I, 1, 1, 1};
    int pb[4], infob[2] = {-1, -1};
    s = hetlu_zgesv_batched(2, 2, 1, Ab, 2, 4, pb, 2, Bb, 2, 2, infob);
    check(s == HETLU_SUCCESS && infob[0] == 0 && infob[1] == 1 && cabs(Bb[0] - 1) < 1e-15 && cabs(Bb[1] - 1) < 1e-15,
          "zgesv_batched solves one system and reports the other singular");
    Ac[0] = NAN * I;
    s = hetlu_cgesv(2, 1, Ac, 2, pz, Bc, 2, &infoz, NULL, NULL);
    check(s == HETLU_ERROR_INVALID_ARGUMENT && strstr(hetlu_last_error(), "A(1,1) is NaN") != NULL,
          "cgesv names a NaN imaginary part");
  }

  /* The checked solve (hetlu_?solve_checked). Wilkinson's matrix (1 on the diagonal, -1 below it, 1
   * in the last column) is well conditioned, but GEPP's factors grow 2^(n-1): hetlu_dgesv's X, as
   * LAPACK's dgesv's, is wrong with success; the checked solve says so (at n = 100 GEPP's refinement
   * cannot repair it: at 64 it can), or with AUTO answers. */
  {
    enum { n = 100 };
    static double W[n * n], Wf[n * n], b[n], x[n];
    int p[n], inf = -99;
    double omega = -5, rc = -5;
    for (int j = 0; j < n; ++j)
      for (int i = 0; i < n; ++i) W[i + j * n] = i == j || j == n - 1 ? 1 : i > j ? -1 : 0;
    for (int i = 0; i < n; ++i) b[i] = 1.0 / (i + 1);
    hetlu_options_init(&options);
    options.db_path = "/nonexistent-folder/hetlu-c-api-test.db";
    memcpy(Wf, W, sizeof W);
    memcpy(x, b, sizeof b);
    s = hetlu_dgesv(n, 1, Wf, n, p, x, n, &inf, &options, NULL);
    double worst = 0; /* |b - W x|_inf / (|W| |x| + |b|)_inf, a bound on omega */
    for (int i = 0; i < n; ++i) {
      double r = b[i], scale = fabs(b[i]);
      for (int j = 0; j < n; ++j) r -= W[i + j * n] * x[j], scale += fabs(W[i + j * n] * x[j]);
      worst = fmax(worst, fabs(r) / scale);
    }
    check(s == HETLU_SUCCESS && worst > 1e-6, "dgesv on Wilkinson's matrix: a wrong X with success, as LAPACK's");
    memcpy(x, b, sizeof b);
    s = hetlu_dsolve_checked(n, 1, W, n, x, n, &inf, &omega, &rc, &options, &report);
    check(s == HETLU_ERROR_INACCURATE && inf == -HETLU_ERROR_INACCURATE && omega > 30.0 * (n + 1) * DBL_EPSILON / 2 &&
              rc > 0 && strstr(hetlu_last_error(), "backward error") != NULL,
          "dsolve_checked with GEPP says the answer is inaccurate, with its omega");
    options.solver = HETLU_SOLVER_AUTO;
    memcpy(x, b, sizeof b);
    s = hetlu_dsolve_checked(n, 1, W, n, x, n, &inf, &omega, &rc, &options, &report);
    worst = 0;
    for (int i = 0; i < n; ++i) {
      double r = b[i], scale = fabs(b[i]);
      for (int j = 0; j < n; ++j) r -= W[i + j * n] * x[j], scale += fabs(W[i + j * n] * x[j]);
      worst = fmax(worst, fabs(r) / scale);
    }
    check(s == HETLU_SUCCESS && inf == 0 && omega >= 0 && omega <= 30.0 * (n + 1) * DBL_EPSILON / 2 &&
              worst <= 30.0 * (n + 1) * DBL_EPSILON / 2 && rc > 1e-3,
          "dsolve_checked with AUTO escalates to an accurate X");
    check(hetlu_dgesv(n, 1, Wf, n, p, x, n, &inf, &options, NULL) == HETLU_ERROR_INVALID_ARGUMENT &&
              strstr(hetlu_last_error(), "HETLU_SOLVER_AUTO") != NULL,
          "HETLU_SOLVER_AUTO is refused by the other calls, by name");
    options.solver = HETLU_SOLVER_GEPP;
    check(
        hetlu_dsolve_checked(n, 1, W, n, W + n, n, &inf, NULL, NULL, &options, NULL) == HETLU_ERROR_INVALID_ARGUMENT &&
            strstr(hetlu_last_error(), "B") != NULL,
        "dsolve_checked refuses a B inside A (A is promised unchanged)");

    /* Exactly singular: info names the zero pivot, B is unchanged, no omega. */
    double S[4] = {1, 2, 2, 4}, sb[2] = {1, 1};
    omega = rc = -5;
    s = hetlu_dsolve_checked(2, 1, S, 2, sb, 2, &inf, &omega, &rc, NULL, NULL);
    check(s == HETLU_ERROR_SINGULAR && inf == 2 && sb[0] == 1 && sb[1] == 1 && omega == -1 && rc == -1,
          "dsolve_checked: an exactly singular A is info = 2, B unchanged");
    /* Singular to working precision, as dgesvx's info = n + 1: [[1, 1], [1, 1 + 2^-52]] has the
     * pivot 2^-52, not zero, and rcond about 2^-54, below eps. */
    double T[4] = {1, 1, 1, 1 + DBL_EPSILON}, tb[2] = {1, 2};
    s = hetlu_dsolve_checked(2, 1, T, 2, tb, 2, &inf, &omega, &rc, NULL, NULL);
    check(s == HETLU_ERROR_ILL_CONDITIONED && inf == 3 && rc >= 0 && rc < DBL_EPSILON / 2 && omega >= 0 &&
              strstr(hetlu_last_error(), "working precision") != NULL && tb[1] != 2,
          "dsolve_checked: A singular to working precision is ILL_CONDITIONED, info = n + 1, X written");
    /* Nothing to solve: omega 0, rcond 1 (n = 0) or A's (nrhs = 0). */
    omega = rc = -5;
    check(hetlu_dsolve_checked(0, 1, NULL, 1, NULL, 1, &inf, &omega, &rc, NULL, NULL) == HETLU_SUCCESS && inf == 0 &&
              omega == 0 && rc == 1,
          "dsolve_checked with n = 0: success, omega 0, rcond 1");
    double E[4] = {2, 0, 0, 4};
    omega = rc = -5;
    check(hetlu_dsolve_checked(2, 0, E, 2, NULL, 2, &inf, &omega, &rc, NULL, NULL) == HETLU_SUCCESS && inf == 0 &&
              omega == 0,
          "dsolve_checked with nrhs = 0: success, omega 0");

    /* The other precisions: a plain system each. */
    float Sf[4] = {2, 1, 1, 3}, bf[2] = {3, 4};
    s = hetlu_ssolve_checked(2, 1, Sf, 2, bf, 2, &inf, &omega, NULL, NULL, NULL);
    check(s == HETLU_SUCCESS && fabsf(bf[0] - 1) < 1e-6f && fabsf(bf[1] - 1) < 1e-6f && omega <= 30.0 * 3 * FLT_EPSILON,
          "ssolve_checked solves in single");
    double _Complex Zc[4] = {2, -I, I, 3}, zb[2] = {2 + I * (1 + I), -I + 3 * (1 + I)};
    s = hetlu_zsolve_checked(2, 1, Zc, 2, zb, 2, &inf, &omega, &rc, NULL, &report);
    check(s == HETLU_SUCCESS && cabs(zb[0] - 1) < 1e-14 && cabs(zb[1] - (1 + I)) < 1e-14 && rc > 0.1,
          "zsolve_checked solves a complex system");
    float _Complex Cc[4] = {0, 0, 0, 0}, cb[2] = {1, 1};
    check(hetlu_csolve_checked(2, 1, Cc, 2, cb, 2, &inf, NULL, NULL, NULL, NULL) == HETLU_ERROR_SINGULAR && inf == 1,
          "csolve_checked: a zero matrix is singular, info 1");
    check(strcmp(hetlu_strerror(HETLU_ERROR_INACCURATE), "unknown status") != 0 &&
              strcmp(hetlu_strerror(HETLU_ERROR_ILL_CONDITIONED), "unknown status") != 0,
          "strerror knows INACCURATE and ILL_CONDITIONED");
  }

  printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
