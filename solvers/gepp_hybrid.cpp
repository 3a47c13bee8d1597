// Hybrid GEPP (MAGMA's algorithm with look-ahead, async-calu §2.2 Algorithm 1, generalized to d
// block columns on the CPUs): the CPUs factor each panel with the recursive GEPP kernel, the
// device updates the trailing matrix, the next panel's block column first. See hybrid_lu.hpp.
#include <complex>

#include "solvers/hybrid_lu.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {

template <class T>
int gepp_hybrid_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv, LoadBalance* balance,
                      InputCheck check) {
  return hybrid_lu(plan, m, n, A, lda, ipiv, /*pivoting=*/true, kernels::getrf_recursive<T>, balance, check);
}

template int gepp_hybrid_getrf<float>(const Plan&, int, int, float*, int, int*, LoadBalance*, InputCheck);
template int gepp_hybrid_getrf<double>(const Plan&, int, int, double*, int, int*, LoadBalance*, InputCheck);
template int gepp_hybrid_getrf<std::complex<double>>(const Plan&, int, int, std::complex<double>*, int, int*,
                                                     LoadBalance*, InputCheck);
template int gepp_hybrid_getrf<std::complex<float>>(const Plan&, int, int, std::complex<float>*, int, int*,
                                                    LoadBalance*, InputCheck);

}  // namespace hetlu::variants
