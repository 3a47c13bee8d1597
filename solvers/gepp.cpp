// GEPP on the CPU: blocked right-looking LU with partial pivoting (LAPACK getrf semantics).
// Panel of width plan.nb factored recursively, then row interchanges, a triangular solve for the
// block row of U and one GEMM for the trailing matrix.
#include <algorithm>

#include "solvers/blas.hpp"
#include "solvers/gepp_kernels.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {

using blas::Diag;
using blas::Op;
using blas::Side;
using blas::Uplo;

template <class T>
int gepp_cpu_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv) {
  const int k = std::min(m, n);
  const int nb = std::max(1, plan.nb);
  auto at = [&](int i, int j) { return A + i + static_cast<long long>(j) * lda; };
  int info = 0;

  for (int j = 0; j < k; j += nb) {
    const int jb = std::min(k - j, nb);
    int panel_info = kernels::getrf_recursive(m - j, jb, at(j, j), lda, ipiv + j);
    if (info == 0 && panel_info > 0) info = panel_info + j;
    for (int i = j; i < j + jb; ++i) ipiv[i] += j;

    kernels::laswp(j, A, lda, j, j + jb, ipiv);  // L to the left of the panel
    const int right = n - j - jb;
    if (right > 0) {
      kernels::laswp(right, at(0, j + jb), lda, j, j + jb, ipiv);
      blas::trsm(Side::left, Uplo::lower, Op::no_trans, Diag::unit, jb, right, T(1), at(j, j), lda, at(j, j + jb), lda);
      blas::gemm(Op::no_trans, Op::no_trans, m - j - jb, right, jb, T(-1), at(j + jb, j), lda, at(j, j + jb), lda, T(1),
                 at(j + jb, j + jb), lda);
    }
  }
  return info;
}

template int gepp_cpu_getrf<float>(const Plan&, int, int, float*, int, int*);
template int gepp_cpu_getrf<double>(const Plan&, int, int, double*, int, int*);

}  // namespace hetlu::variants
