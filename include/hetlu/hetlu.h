/* hetlu's C API: auto-tuned LU factorization and solve, usable from C without C++ headers.
 *
 * Matrices are column-major with a leading dimension, as in LAPACK; ipiv is 1-based. Every function
 * returns a hetlu_status; on failure hetlu_last_error() says what and where (per thread). A singular
 * matrix is HETLU_ERROR_SINGULAR with *info the 1-based index of the exactly-zero pivot U(info,info),
 * and the factorization completed, as LAPACK does. A solve (gesv, getrs, the mixed and auto
 * solves, the distributed root solve) whose X came out Inf or NaN from finite input (an overflow in
 * the factors or the substitutions, where LAPACK returns INFO = 0) is HETLU_ERROR_NOT_FINITE
 * (since 0.3), never success (distributed: on every rank); a batched solve says which system's X.
 * Since 0.3 too, every call with an int* info sets it (a batch's info[] array: see below): 0 on
 * success, k > 0 for a singular matrix, and -status (e.g. -1 for HETLU_ERROR_INVALID_ARGUMENT, -6
 * for NOT_FINITE) on any other failure, never an argument's position (left untouched only where the
 * call is refused because info itself overlaps another argument); a report is cleared first
 * (source "", predicted_seconds -1), so a call that failed before its plan was resolved leaves no
 * earlier call's plan in it. */
#ifndef HETLU_H
#define HETLU_H

/* Complex elements: two reals, real part first, as Fortran's COMPLEX, C99's _Complex and C++'s
 * std::complex (the same layout). Define hetlu_complex_double / hetlu_complex_float before this
 * header to use a type of your own with that layout (as LAPACKE allows). */
#ifndef hetlu_complex_double
#ifdef __cplusplus
#include <complex>
#define hetlu_complex_double std::complex<double>
#define hetlu_complex_float std::complex<float>
#else
#include <complex.h>
#define hetlu_complex_double double _Complex
#define hetlu_complex_float float _Complex
#endif
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum hetlu_status {
  HETLU_SUCCESS = 0,
  HETLU_ERROR_INVALID_ARGUMENT = 1, /* a bad size, leading dimension, pointer, NaN or Inf */
  HETLU_ERROR_SINGULAR = 2,         /* an exactly-zero pivot; *info says which */
  HETLU_ERROR_NOT_AVAILABLE = 3,    /* the solver or target is not built in this version */
  HETLU_ERROR_OUT_OF_MEMORY = 4,
  HETLU_ERROR_INTERNAL = 5,
  HETLU_ERROR_NOT_FINITE = 6,     /* X holds an Inf or NaN although A and B were finite (an overflow) */
  HETLU_ERROR_INACCURATE = 7,     /* since 0.3: the checked solve's X failed its backward-error test on every try */
  HETLU_ERROR_ILL_CONDITIONED = 8 /* since 0.3, the checked solve: A is singular to working precision (rcond < eps),
                                   *info = n + 1 as ?gesvx's; X is written, but may have no correct digit */
} hetlu_status;

typedef enum hetlu_solver {
  HETLU_SOLVER_GEPP = 0,
  HETLU_SOLVER_CALU = 1,
  HETLU_SOLVER_PRBT = 2,
  HETLU_SOLVER_AUTO = 3 /* since 0.3, hetlu_?solve_checked only: the fastest predicted, escalating until accurate */
} hetlu_solver;

typedef enum hetlu_target { HETLU_TARGET_CPU = 0, HETLU_TARGET_HYBRID = 1 } hetlu_target;

/* The hybrid target's device: the default is cuda when a GPU is present, else the host backend (a
 * team of CPU threads standing in for a device, as `hetlu --backend host`). */
typedef enum hetlu_backend { HETLU_BACKEND_DEFAULT = 0, HETLU_BACKEND_CUDA = 1, HETLU_BACKEND_HOST = 2 } hetlu_backend;

/* Where the hybrid target factors its panels: resolved with d (DEFAULT), on the CPUs, or on the
 * device (d = 0: everything there). */
typedef enum hetlu_panel { HETLU_PANEL_DEFAULT = 0, HETLU_PANEL_CPU = 1, HETLU_PANEL_DEVICE = 2 } hetlu_panel;

/* Optional settings; pass NULL for the defaults (GEPP on the CPUs, the default database, no
 * override), or a struct filled by hetlu_options_init and then changed (a zeroed struct asks for
 * d = 0, which the CPU target refuses). backend, cpu_block_columns and panel apply to the hybrid
 * target only. */
typedef struct hetlu_options {
  hetlu_solver solver;
  const char* db_path; /* NULL: $HETLU_DB, else $XDG_DATA_HOME/hetlu/tuning.db, else ~/.local/share/... */
  int nb;              /* > 0 overrides the panel width */
  /* Since 0.2 (the library's soname changed with them). */
  hetlu_target target;   /* default HETLU_TARGET_CPU; HYBRID without a GPU runs on the host backend */
  hetlu_backend backend; /* hybrid: default HETLU_BACKEND_DEFAULT; CUDA without a GPU is an error */
  int cpu_block_columns; /* hybrid: >= 0 overrides d, the CPUs' block columns; default -1: resolved */
  hetlu_panel panel;     /* hybrid: default HETLU_PANEL_DEFAULT; contradicting d is an error */
  /* Since 0.3. */
  const char* devices; /* hybrid: several devices, e.g. "cuda,host:4" (host:K: K of this machine's cores);
                          NULL (default): backend's one device; with backend set too, an error */
} hetlu_options;

/* The plan a call used (or would use) and where it came from. */
typedef struct hetlu_plan {
  hetlu_solver solver;
  int nb, ib, cpu_block_columns, panel_threads, lookahead;
  char source[16];          /* "override", "tuned", "model" or "default" */
  char source_detail[256];  /* e.g. "tuned at m=2000, n=2000 (exact, level quick)" */
  double predicted_seconds; /* the model's prediction; < 0 when there is none */
  /* Added after the fields above, which keep their offsets. */
  char precision[8];      /* "double" or "single" */
  char target[8];         /* "cpu" or "hybrid" */
  char backend[8];        /* hybrid: "cuda" or "host" */
  char panel_location[8]; /* "cpu", or "device" when cpu_block_columns = 0 on the hybrid target */
  char refinement[8];     /* "none" or "working" */
  /* Since 0.3. */
  char devices[192]; /* hybrid: the devices, e.g. "cuda" or "cuda,host:4" (backend: the first one's kind) */
} hetlu_plan;

typedef struct hetlu_report {
  hetlu_plan plan;
  double seconds;
  double gflops;
} hetlu_report;

void hetlu_options_init(hetlu_options* options);

/* P A = L U of the m x n matrix A. report may be NULL. */
hetlu_status hetlu_dgetrf(int m, int n, double* A, int lda, int* ipiv, int* info, const hetlu_options* options,
                          hetlu_report* report);
hetlu_status hetlu_sgetrf(int m, int n, float* A, int lda, int* ipiv, int* info, const hetlu_options* options,
                          hetlu_report* report);

hetlu_status hetlu_zgetrf(int m, int n, hetlu_complex_double* A, int lda, int* ipiv, int* info,
                          const hetlu_options* options, hetlu_report* report);
hetlu_status hetlu_cgetrf(int m, int n, hetlu_complex_float* A, int lda, int* ipiv, int* info,
                          const hetlu_options* options, hetlu_report* report);

/* Solves A X = B (trans 'N'), A^T X = B ('T') or A^H X = B ('C'; for real A the same as 'T') with
 * the factors from getrf. Factors with an exactly zero U(k,k) (getrf's info > 0) are
 * HETLU_ERROR_SINGULAR with B untouched, where LAPACK's getrs divides by it; an X that overflowed is
 * HETLU_ERROR_NOT_FINITE (B then holds it). */
hetlu_status hetlu_dgetrs(char trans, int n, int nrhs, const double* LU, int lda, const int* ipiv, double* B, int ldb);
hetlu_status hetlu_sgetrs(char trans, int n, int nrhs, const float* LU, int lda, const int* ipiv, float* B, int ldb);
hetlu_status hetlu_zgetrs(char trans, int n, int nrhs, const hetlu_complex_double* LU, int lda, const int* ipiv,
                          hetlu_complex_double* B, int ldb);
hetlu_status hetlu_cgetrs(char trans, int n, int nrhs, const hetlu_complex_float* LU, int lda, const int* ipiv,
                          hetlu_complex_float* B, int ldb);

/* The reciprocal 1-norm condition number of A from its getrf factors and pivots, as LAPACK's ?gecon
 * (Hager's estimate with Higham's refinements: about five solves with the factors): anorm is ||A||_1
 * of A before it was factored; *rcond is 0 where a pivot U(k,k) is exactly zero, and below eps
 * (1.1e-16 in double, 6.0e-8 in single) A is singular to working precision: a solution may have no
 * correct digit (dgesvx's info = n + 1). Since 0.3. */
hetlu_status hetlu_dgecon(int n, const double* LU, int lda, const int* ipiv, double anorm, double* rcond);
hetlu_status hetlu_sgecon(int n, const float* LU, int lda, const int* ipiv, double anorm, double* rcond);
hetlu_status hetlu_zgecon(int n, const hetlu_complex_double* LU, int lda, const int* ipiv, double anorm, double* rcond);
hetlu_status hetlu_cgecon(int n, const hetlu_complex_float* LU, int lda, const int* ipiv, double anorm, double* rcond);

/* Solves A X = B; A is overwritten by its factors and B by X (B untouched when singular). With
 * HETLU_SOLVER_PRBT, which factors a randomized copy, A is left unchanged and ipiv zeroed: no L U of
 * A exists, and hetlu_?getrs refuses those pivots. As LAPACK's ?gesv, X is not checked beyond being
 * finite: where the factors grew (GEPP on Wilkinson's matrix grows 2^(n-1)) X may be wrong with
 * HETLU_SUCCESS. hetlu_?solve_checked below checks it. */
hetlu_status hetlu_dgesv(int n, int nrhs, double* A, int lda, int* ipiv, double* B, int ldb, int* info,
                         const hetlu_options* options, hetlu_report* report);
hetlu_status hetlu_sgesv(int n, int nrhs, float* A, int lda, int* ipiv, float* B, int ldb, int* info,
                         const hetlu_options* options, hetlu_report* report);
/* Complex: the plan (and report.plan.precision) is that of the real type, "double" or "single";
 * the hybrid target runs it on either backend (cuBLAS's and cuSOLVER's Z and C routines on cuda). */
hetlu_status hetlu_zgesv(int n, int nrhs, hetlu_complex_double* A, int lda, int* ipiv, hetlu_complex_double* B, int ldb,
                         int* info, const hetlu_options* options, hetlu_report* report);
hetlu_status hetlu_cgesv(int n, int nrhs, hetlu_complex_float* A, int lda, int* ipiv, hetlu_complex_float* B, int ldb,
                         int* info, const hetlu_options* options, hetlu_report* report);

/* Solves A X = B and checks the answer, as the hetlu command and Python's hetlu.solve do (since 0.3;
 * hetlu::solve_checked): A is left unchanged, B is overwritten by X. X's componentwise backward
 * error omega is measured; above 30 (n + 1) eps (eps = 1.1e-16 in double, 6.0e-8 in single) the
 * system is solved again with refinement, and with options->solver = HETLU_SOLVER_AUTO through the
 * other solvers, until one is accurate; X is the most accurate answer found. A badly scaled A is
 * equilibrated as LAPACK's ?gesvx does. options NULL: GEPP on the CPUs. Returns
 *   HETLU_SUCCESS: omega <= 30 (n + 1) eps, *info = 0;
 *   HETLU_ERROR_SINGULAR with *info = k: U(k,k) is exactly zero, B unchanged;
 *   HETLU_ERROR_ILL_CONDITIONED with *info = n + 1, as ?gesvx's INFO: A is singular to working
 *     precision (its estimated reciprocal condition number is below eps, and dgerfs' forward error
 *     bound does not show X accurate: badly scaled columns can make rcond tiny while X is right,
 *     and that is a success); X is written, its backward error small, but it may have no correct digit;
 *   HETLU_ERROR_INACCURATE (*info = -7): omega stayed above 30 (n + 1) eps on every try; X is written;
 *   HETLU_ERROR_NOT_FINITE (*info = -6): X overflowed;
 * and the argument errors of the other calls. *backward_error (omega of X) and *rcond (the
 * reciprocal 1-norm condition number, estimated as ?gecon, or bounded by X itself where the factors
 * tell nothing) are set wherever X is written, else -1 (untouched where the call is refused because
 * they overlap another argument); either may be NULL. report->plan is the plan of the solve that
 * answered. */
hetlu_status hetlu_dsolve_checked(int n, int nrhs, const double* A, int lda, double* B, int ldb, int* info,
                                  double* backward_error, double* rcond, const hetlu_options* options,
                                  hetlu_report* report);
hetlu_status hetlu_ssolve_checked(int n, int nrhs, const float* A, int lda, float* B, int ldb, int* info,
                                  double* backward_error, double* rcond, const hetlu_options* options,
                                  hetlu_report* report);
hetlu_status hetlu_zsolve_checked(int n, int nrhs, const hetlu_complex_double* A, int lda, hetlu_complex_double* B,
                                  int ldb, int* info, double* backward_error, double* rcond,
                                  const hetlu_options* options, hetlu_report* report);
hetlu_status hetlu_csolve_checked(int n, int nrhs, const hetlu_complex_float* A, int lda, hetlu_complex_float* B,
                                  int ldb, int* info, double* backward_error, double* rcond,
                                  const hetlu_options* options, hetlu_report* report);

/* Mixed precision (since 0.3), as LAPACK's dsgesv and zcgesv: X (n x nrhs, ldx) from a single-
 * precision factorization of A by options->solver (GEPP, CALU, or PRBT's butterflies and GENP),
 * refined in double (then by GMRES where classical refinement stalls). B is left unchanged. *iter
 * is LAPACK's ITER: >= 0 the refinement steps, < 0 why the double solver answered instead (-2: an
 * entry outside single's range, -3: a zero pivot in single, -31: no convergence, or, beyond
 * LAPACK's normwise test, a componentwise backward error still above 30 (n + 1) u); A is then
 * overwritten by its double factors. iter may be NULL. On the hybrid target one device keeps the
 * single factors (GEPP's, CALU's, or PRBT's of the randomized A) and A in double and refines there;
 * a device too small for the factorization leaves it to the CPUs (a warning says so). */
hetlu_status hetlu_dsgesv(int n, int nrhs, double* A, int lda, int* ipiv, const double* B, int ldb, double* X, int ldx,
                          int* iter, int* info, const hetlu_options* options, hetlu_report* report);
hetlu_status hetlu_zcgesv(int n, int nrhs, hetlu_complex_double* A, int lda, int* ipiv, const hetlu_complex_double* B,
                          int ldb, hetlu_complex_double* X, int ldx, int* iter, int* info, const hetlu_options* options,
                          hetlu_report* report);

/* Precision auto (since 0.3): X (n x nrhs, ldx) in double from the mixed path (as hetlu_dsgesv)
 * where the model prices it faster and it converges, else from the double solver, as
 * hetlu::auto_precision_gesv decides (hetlu.hpp: a system beyond single's reach is detected after
 * one refinement step, and the next few calls of the same solver, target and order go to double at
 * once). report->plan.precision says which answered: "mixed" or "double". B is left unchanged; A
 * is overwritten by the double factors where double answered (PRBT's double, as hetlu_dgesv,
 * leaves A unchanged and ipiv zeroed). */
hetlu_status hetlu_dgesv_auto_precision(int n, int nrhs, double* A, int lda, int* ipiv, const double* B, int ldb,
                                        double* X, int ldx, int* info, const hetlu_options* options,
                                        hetlu_report* report);
hetlu_status hetlu_zgesv_auto_precision(int n, int nrhs, hetlu_complex_double* A, int lda, int* ipiv,
                                        const hetlu_complex_double* B, int ldb, hetlu_complex_double* X, int ldx,
                                        int* info, const hetlu_options* options, hetlu_report* report);

/* batch independent n x n systems A_i X_i = B_i in one call, in parallel across the batch (each with
 * partial pivoting on one thread): system i's A at A + i * stride_a (leading dimension lda), its
 * pivots at ipiv + i * stride_ipiv, its B at B + i * stride_b (ldb), overwritten as gesv overwrites
 * them; info[i] is system i's LAPACK info (> 0: singular, its B untouched). HETLU_SUCCESS when every
 * argument is valid, whatever the infos; strides that make systems overlap are invalid (each system
 * begins after the last one's entries, or all are stacked down the rows of one tall array). A system
 * whose A or B holds a NaN or Inf is left as it is, info[i] = -3 (A) or -6 (B), and the call returns
 * HETLU_ERROR_INVALID_ARGUMENT naming the first, once the others are solved. Otherwise a system whose
 * X overflowed from finite input keeps info[i] = 0 (LAPACK's) and the call returns
 * HETLU_ERROR_NOT_FINITE naming the first such system and entry; the message counts every such
 * system (also beside a NaN or Inf input's refusal). A call refused for its arguments
 * (sizes, strides, pointers, options) leaves info[] as it was. */
hetlu_status hetlu_dgesv_batched(int batch, int n, int nrhs, double* A, int lda, long long stride_a, int* ipiv,
                                 long long stride_ipiv, double* B, int ldb, long long stride_b, int* info);
hetlu_status hetlu_sgesv_batched(int batch, int n, int nrhs, float* A, int lda, long long stride_a, int* ipiv,
                                 long long stride_ipiv, float* B, int ldb, long long stride_b, int* info);
hetlu_status hetlu_zgesv_batched(int batch, int n, int nrhs, hetlu_complex_double* A, int lda, long long stride_a,
                                 int* ipiv, long long stride_ipiv, hetlu_complex_double* B, int ldb, long long stride_b,
                                 int* info);
hetlu_status hetlu_cgesv_batched(int batch, int n, int nrhs, hetlu_complex_float* A, int lda, long long stride_a,
                                 int* ipiv, long long stride_ipiv, hetlu_complex_float* B, int ldb, long long stride_b,
                                 int* info);
/* The same where options say (since 0.3; NULL: as above): target HETLU_TARGET_HYBRID runs the batch
 * on one device, options->devices' or backend's, else a GPU where there is one (cuBLAS's batched
 * LU, s and d only), else the host backend's team; the systems go up and come back in chunks through
 * page-locked memory (smaller chunks where the device holds less; HETLU_ERROR_OUT_OF_MEMORY where it
 * cannot hold one system). options->nb, cpu_block_columns (other than -1), panel and a solver other
 * than HETLU_SOLVER_GEPP are refused: a batch has no plan. */
hetlu_status hetlu_dgesv_batched_x(int batch, int n, int nrhs, double* A, int lda, long long stride_a, int* ipiv,
                                   long long stride_ipiv, double* B, int ldb, long long stride_b, int* info,
                                   const hetlu_options* options);
hetlu_status hetlu_sgesv_batched_x(int batch, int n, int nrhs, float* A, int lda, long long stride_a, int* ipiv,
                                   long long stride_ipiv, float* B, int ldb, long long stride_b, int* info,
                                   const hetlu_options* options);
hetlu_status hetlu_zgesv_batched_x(int batch, int n, int nrhs, hetlu_complex_double* A, int lda, long long stride_a,
                                   int* ipiv, long long stride_ipiv, hetlu_complex_double* B, int ldb,
                                   long long stride_b, int* info, const hetlu_options* options);
hetlu_status hetlu_cgesv_batched_x(int batch, int n, int nrhs, hetlu_complex_float* A, int lda, long long stride_a,
                                   int* ipiv, long long stride_ipiv, hetlu_complex_float* B, int ldb,
                                   long long stride_b, int* info, const hetlu_options* options);

/* The plan for an m x n problem in precision 'd' or 's'. */
hetlu_status hetlu_recommend(char precision, int m, int n, const hetlu_options* options, hetlu_plan* plan);

/* A fixed description of a status, and the message of this thread's last failure ("" if none). */
const char* hetlu_strerror(hetlu_status status);
const char* hetlu_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* HETLU_H */
