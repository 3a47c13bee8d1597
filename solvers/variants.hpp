// The algorithm variants behind the front ends, one file each. Arguments are already checked.
#pragma once

#include "hetlu/types.hpp"

namespace hetlu::variants {

template <class T>
int gepp_cpu_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv);

// Solves A X = B with the factors of any LU variant that leaves P A = L U in place.
template <class T>
void lu_getrs(Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb);

}  // namespace hetlu::variants
