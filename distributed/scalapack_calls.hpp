// p?gesv and p?gemr2d by scalar type, for the templates of distributed/.
#pragma once

#include "distributed/scalapack.hpp"

namespace hetlu::distributed {

inline int scalapack_gesv(int n, int nrhs, double* a, int ia, int ja, const int* desca, int* ipiv, double* b, int ib,
                          int jb, const int* descb) {
  int info = 0;
  pdgesv_(&n, &nrhs, a, &ia, &ja, desca, ipiv, b, &ib, &jb, descb, &info);
  return info;
}
inline int scalapack_gesv(int n, int nrhs, float* a, int ia, int ja, const int* desca, int* ipiv, float* b, int ib,
                          int jb, const int* descb) {
  int info = 0;
  psgesv_(&n, &nrhs, a, &ia, &ja, desca, ipiv, b, &ib, &jb, descb, &info);
  return info;
}
inline void redistribute(int m, int n, const double* a, const int* desca, double* b, const int* descb, int context) {
  const int one = 1;
  pdgemr2d_(&m, &n, a, &one, &one, desca, b, &one, &one, descb, &context);
}
inline void redistribute(int m, int n, const float* a, const int* desca, float* b, const int* descb, int context) {
  const int one = 1;
  psgemr2d_(&m, &n, a, &one, &one, desca, b, &one, &one, descb, &context);
}

// p?getrf's steps (ScaLAPACK's own routines) for getrf_resident.cpp, by scalar type.
inline int scalapack_getf2(int m, int n, double* a, int ia, int ja, const int* desca, int* ipiv) {
  int info = 0;
  pdgetf2_(&m, &n, a, &ia, &ja, desca, ipiv, &info);
  return info;
}
inline int scalapack_getf2(int m, int n, float* a, int ia, int ja, const int* desca, int* ipiv) {
  int info = 0;
  psgetf2_(&m, &n, a, &ia, &ja, desca, ipiv, &info);
  return info;
}
// Rows k1..k2's interchanges (forward) in the n columns from column ja.
inline void scalapack_laswp(int n, double* a, int ja, const int* desca, int k1, int k2, const int* ipiv) {
  const int one = 1;
  pdlaswp_("F", "R", &n, a, &one, &ja, desca, &k1, &k2, ipiv, 1, 1);
}
inline void scalapack_laswp(int n, float* a, int ja, const int* desca, int k1, int k2, const int* ipiv) {
  const int one = 1;
  pslaswp_("F", "R", &n, a, &one, &ja, desca, &k1, &k2, ipiv, 1, 1);
}
// A(i:i+m-1, jb:jb+n-1) <- L^-1 A(...), L the unit lower triangle of A(i:i+m-1, ja:ja+m-1).
inline void scalapack_trsm_lower_unit(int m, int n, double* a, int i, int ja, int jb, const int* desca) {
  const double one = 1;
  pdtrsm_("L", "L", "N", "U", &m, &n, &one, a, &i, &ja, desca, a, &i, &jb, desca);
}
inline void scalapack_trsm_lower_unit(int m, int n, float* a, int i, int ja, int jb, const int* desca) {
  const float one = 1;
  pstrsm_("L", "L", "N", "U", &m, &n, &one, a, &i, &ja, desca, a, &i, &jb, desca);
}
inline int scalapack_getrs(int n, int nrhs, const double* a, const int* desca, const int* ipiv, double* b,
                           const int* descb) {
  const int one = 1;
  int info = 0;
  pdgetrs_("N", &n, &nrhs, a, &one, &one, desca, ipiv, b, &one, &one, descb, &info, 1);
  return info;
}
inline int scalapack_getrs(int n, int nrhs, const float* a, const int* desca, const int* ipiv, float* b,
                           const int* descb) {
  const int one = 1;
  int info = 0;
  psgetrs_("N", &n, &nrhs, a, &one, &one, desca, ipiv, b, &one, &one, descb, &info, 1);
  return info;
}
// A broadcast of an m x n block along a process row ("Rowwise") or column ("Columnwise"): the
// source sends, the others receive from (source_row, source_col).
inline void blacs_broadcast(int context, const char* scope, bool source, int m, int n, double* a, int lda,
                            int source_row, int source_col) {
  if (source)
    Cdgebs2d(context, scope, " ", m, n, a, lda);
  else
    Cdgebr2d(context, scope, " ", m, n, a, lda, source_row, source_col);
}
inline void blacs_broadcast(int context, const char* scope, bool source, int m, int n, float* a, int lda,
                            int source_row, int source_col) {
  if (source)
    Csgebs2d(context, scope, " ", m, n, a, lda);
  else
    Csgebr2d(context, scope, " ", m, n, a, lda, source_row, source_col);
}

}  // namespace hetlu::distributed
