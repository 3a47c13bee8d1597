// Asynchronous CALU with dynamic balancing (async-calu §3, Algorithm 2): the CPUs own the first d
// block columns and factor every panel by TSLU (plan.panel_threads row blocks, inner width
// plan.ib); at each step one block column moves from the device to the CPUs; the device drops out
// when fewer than d block columns remain. See hybrid_lu.hpp and hybrid_panels.hpp.
#include <algorithm>
#include <complex>

#include "solvers/hybrid_lu.hpp"
#include "solvers/hybrid_panels.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {

template <class T>
int calu_async_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv, LoadBalance* balance, InputCheck check) {
  return hybrid_lu(plan, m, n, A, lda, ipiv, /*pivoting=*/true, calu_hybrid_panel<T>(plan), balance, check);
}

template int calu_async_getrf<float>(const Plan&, int, int, float*, int, int*, LoadBalance*, InputCheck);
template int calu_async_getrf<double>(const Plan&, int, int, double*, int, int*, LoadBalance*, InputCheck);
template int calu_async_getrf<std::complex<double>>(const Plan&, int, int, std::complex<double>*, int, int*,
                                                    LoadBalance*, InputCheck);
template int calu_async_getrf<std::complex<float>>(const Plan&, int, int, std::complex<float>*, int, int*, LoadBalance*,
                                                   InputCheck);

}  // namespace hetlu::variants
