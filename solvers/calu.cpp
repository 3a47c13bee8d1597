// CALU on the CPU: the blocked LU driver with tournament pivoting in the panel (hybrid-calu-prbt-
// gepp §3.1, async-calu §2.4). Two levels of blocking: the outer panel of width plan.nb (B) is
// itself factored recursively down to inner panels of width plan.ib (b), each a TSLU run by
// plan.panel_threads threads (over at least that many row blocks; see tslu.cpp).
#include <algorithm>
#include <complex>

#include "solvers/blocked_lu.hpp"
#include "solvers/variants.hpp"

namespace hetlu::kernels {

// The B-wide panel, factored recursively (as getrf_recursive, so that most updates are wide GEMMs
// with inner dimension B/2, B/4, ...) down to leaves of width b, each a TSLU.
template <class T>
int calu_panel(int m, int n, T* A, int lda, int* ipiv, int inner, int panel_threads) {
  if (m == 0 || n == 0) return 0;
  if (n <= inner || m <= inner) return kernels::tslu_panel(m, n, A, lda, ipiv, panel_threads);
  const int half = std::min(m, n) / 2;
  const int n1 = std::max(inner, half / inner * inner);  // leaves stay b wide
  const int n2 = n - n1;
  T* A12 = A + static_cast<long long>(n1) * lda;
  int info = calu_panel(m, n1, A, lda, ipiv, inner, panel_threads);
  kernels::laswp(n2, A12, lda, 0, n1, ipiv);
  blas::trsm(blas::Side::left, blas::Uplo::lower, blas::Op::no_trans, blas::Diag::unit, n1, n2, T(1), A, lda, A12, lda);
  blas::gemm(blas::Op::no_trans, blas::Op::no_trans, m - n1, n2, n1, T(-1), A + n1, lda, A12, lda, T(1), A12 + n1, lda);
  const int info2 = calu_panel(m - n1, n2, A12 + n1, lda, ipiv + n1, inner, panel_threads);
  if (info == 0 && info2 > 0) info = info2 + n1;
  const int k = std::min(m, n);
  for (int i = n1; i < k; ++i) ipiv[i] += n1;
  kernels::laswp(n1, A, lda, n1, k, ipiv);
  return info;
}

template int calu_panel<float>(int, int, float*, int, int*, int, int);
template int calu_panel<double>(int, int, double*, int, int*, int, int);
template int calu_panel<std::complex<double>>(int, int, std::complex<double>*, int, int*, int, int);
template int calu_panel<std::complex<float>>(int, int, std::complex<float>*, int, int*, int, int);

}  // namespace hetlu::kernels

namespace hetlu::variants {

template <class T>
int calu_cpu_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv) {
  const int inner = std::max(1, std::min(plan.ib, plan.nb));
  const int panel_threads = std::max(1, plan.panel_threads);
  auto calu_panel = [inner, panel_threads](int rows, int width, T* panel, int ld, int* panel_ipiv) {
    return kernels::calu_panel(rows, width, panel, ld, panel_ipiv, inner, panel_threads);
  };
  return blocked_lu(m, n, A, lda, ipiv, plan.nb, plan.lookahead > 0, calu_panel);
}

template int calu_cpu_getrf<float>(const Plan&, int, int, float*, int, int*);
template int calu_cpu_getrf<double>(const Plan&, int, int, double*, int, int*);
template int calu_cpu_getrf<std::complex<double>>(const Plan&, int, int, std::complex<double>*, int, int*);
template int calu_cpu_getrf<std::complex<float>>(const Plan&, int, int, std::complex<float>*, int, int*);

}  // namespace hetlu::variants
