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

}  // namespace hetlu::distributed
