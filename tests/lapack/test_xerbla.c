/* An illegal argument reaches the program's own xerbla_ even where a module loaded locally defines
   it (NumPy's, which raises ValueError): linked or preloaded, the drop-in's calls, and the BLAS
   library's, had reached OpenBLAS's xerbla_ (print and return) instead. Before the module is
   loaded, and after, every call returns LAPACK's INFO. A plugin loaded before it that defines
   xerbla_ and uses no BLAS is never asked, as without the drop-in. Usage: test_xerbla MODULE PLUGIN. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void zgesv_(const int* n, const int* nrhs, void* a, const int* lda, int* ipiv, void* b, const int* ldb, int* info);
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);

static int failures;
static void expect(int ok, const char* what) {
  if (!ok) {
    printf("FAILED: %s\n", what);
    ++failures;
  }
}

int main(int argc, char** argv) {
  if (argc != 3) return 2;
  double a[4] = {4, 1, 1, 3}, z[8] = {0};
  int ipiv[2], info = 0, n = 2, zero = 0, one = 1;
  dgetrf_(&n, &n, a, &one, ipiv, &info); /* LDA 1 < N: argument 4, reported by the BLAS library's */
  expect(info == -4, "dgetrf_ with LDA < M returns INFO -4 before the module is loaded");

  void* plugin = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
  void* module = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!module || !plugin) {
    printf("dlopen: %s\n", dlerror());
    return 1;
  }
  int (*reports)(char[7], int*) = (int (*)(char[7], int*))dlsym(module, "xerbla_module_reports");
  char routine[7];
  int argument = 0, seen = 0;

  dgetrf_(&n, &n, a, &one, ipiv, &info);
  expect(info == -4 && reports(routine, &argument) == ++seen && !strcmp(routine, "DGETRF") && argument == 4,
         "dgetrf_ (hetlu's) reports argument 4 to the module's xerbla_");
  zgesv_(&n, &one, z, &n, ipiv, z, &one, &info); /* LDB 1 < N: argument 7 */
  expect(info == -7 && reports(routine, &argument) == ++seen && !strcmp(routine, "ZGESV") && argument == 7,
         "zgesv_ (hetlu's) reports argument 7 to the module's xerbla_");
  dpotrf_("X", &zero, a, &one, &info, 1); /* not hetlu's: the BLAS library's call reaches it too */
  expect(info == -1 && reports(routine, &argument) == ++seen && !strcmp(routine, "DPOTRF") && argument == 1,
         "dpotrf_ (the BLAS library's) reports argument 1 to the module's xerbla_");

  char plugin_routine[7];
  int plugin_argument = 0;
  int (*plugin_reports)(char[7], int*) = (int (*)(char[7], int*))dlsym(plugin, "xerbla_module_reports");
  expect(plugin_reports(plugin_routine, &plugin_argument) == 0, "the plugin without a BLAS is never asked");
  dlclose(module);
  dlclose(plugin);
  dgetrf_(&n, &n, a, &one, ipiv, &info); /* the module gone: the BLAS library's again, no crash */
  expect(info == -4, "dgetrf_ with LDA < M returns INFO -4 after the module is unloaded");
  if (!failures) printf("xerbla: the program's own handler answered\n");
  return failures != 0;
}
