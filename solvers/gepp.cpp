// GEPP on the CPU: blocked right-looking LU with partial pivoting (LAPACK getrf semantics), the
// panel factored by recursive LU (Toledo; LAPACK's getrf2), look-ahead per plan.lookahead.
#include <complex>

#include "solvers/blocked_lu.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {

template <class T>
int gepp_cpu_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv) {
  return blocked_lu(m, n, A, lda, ipiv, plan.nb, plan.lookahead > 0, kernels::getrf_recursive<T>);
}

template int gepp_cpu_getrf<float>(const Plan&, int, int, float*, int, int*);
template int gepp_cpu_getrf<double>(const Plan&, int, int, double*, int, int*);
template int gepp_cpu_getrf<std::complex<double>>(const Plan&, int, int, std::complex<double>*, int, int*);
template int gepp_cpu_getrf<std::complex<float>>(const Plan&, int, int, std::complex<float>*, int, int*);

}  // namespace hetlu::variants
