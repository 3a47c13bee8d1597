/* A module that overrides LAPACK's xerbla_, as NumPy's extension modules do, loaded with
   RTLD_LOCAL by test_xerbla: it records the last report instead of printing it. */
#include <string.h>

static char last_routine[7];
static int last_argument, reports;

void xerbla_(const char* srname, const int* info, size_t srname_len) {
  size_t n = srname_len < 6 ? srname_len : 6;
  memcpy(last_routine, srname, n);
  last_routine[n] = '\0';
  last_argument = *info;
  ++reports;
}

int xerbla_module_reports(char routine[7], int* argument) {
  memcpy(routine, last_routine, sizeof last_routine);
  *argument = last_argument;
  return reports;
}
