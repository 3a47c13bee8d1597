#include "solvers/lu_factors.hpp"

#include <algorithm>
#include <complex>

#include "solvers/blas.hpp"
#include "solvers/blocked_lu.hpp"
#include "solvers/hybrid_lu.hpp"
#include "solvers/lu.hpp"
#include "solvers/randomized_solve.hpp"
#include "solvers/variants.hpp"
#include "solvers/vendor_lapack.hpp"

namespace hetlu::solvers {

template <class F>
void LuFactors<F>::solve(F* W, int ldw, int ncols, Transpose trans) const {
  if (n == 0 || ncols == 0) return;
  if (!U) {
    if (blas_library_solves && vendor::getrs(trans, n, ncols, lu.data(), ld, ipiv.data(), W, ldw)) return;
    variants::lu_getrs(trans, n, ncols, lu.data(), ld, ipiv.data(), W, ldw);
    return;
  }
  auto triangular = [&](F* X, int ldx, int columns, Transpose how) {
    using namespace blas;
    const Op op = op_of(how);
    if (how == Transpose::no) {
      trsm(Side::left, Uplo::lower, op, Diag::unit, ld, columns, F(1), lu.data(), ld, X, ldx);
      variants::solve_upper(how, ld, columns, lu.data(), ld, X, ldx);
    } else {  // (L U)^-T = L^-T U^-T: U's first
      variants::solve_upper(how, ld, columns, lu.data(), ld, X, ldx);
      trsm(Side::left, Uplo::lower, op, Diag::unit, ld, columns, F(1), lu.data(), ld, X, ldx);
    }
  };
  std::vector<F> work;
  kernels::apply_randomized_inverse(*U, *V, n, ncols, W, ldw, trans, work, triangular);
}

template <class F>
int factor(const Plan& plan, int n, kernels::WorkspaceVector<F>&& A, LuFactors<F>& factors) {
  factors = LuFactors<F>{};
  factors.n = n;
  const int lda = std::max(1, n);
  if (plan.solver != Solver::prbt) {
    factors.ld = lda;
    factors.lu = std::move(A);
    factors.ipiv.resize(n);
    return getrf(plan, n, n, factors.lu.data(), factors.ld, factors.ipiv.data(), InputCheck::none);
  }
  const int np = kernels::prbt_padded_order(n);
  factors.ld = np;
  factors.lu.resize(static_cast<size_t>(np) * np);
  factors.ipiv.resize(n);
  for (int i = 0; i < n; ++i) factors.ipiv[i] = i + 1;
  factors.U = kernels::Butterfly<F>::prbt_left(np);
  factors.V = kernels::Butterfly<F>::prbt_right(np);
  if (!kernels::randomize_two_sided(*factors.U, *factors.V, n, A.data(), lda, factors.lu.data(), np)) {
    // The first exactly zero column (or row) names the singularity, as GEPP's info would.
    for (int j = 0; j < n; ++j)
      if (std::all_of(A.begin() + static_cast<long long>(j) * lda, A.begin() + static_cast<long long>(j) * lda + n,
                      [](F x) { return x == F(0); }))
        return j + 1;
    return n;  // a zero row only: singular; the double solver finds where
  }
  A = {};
  std::vector<int> identity(np);
  if (plan.target == Target::hybrid)
    return variants::hybrid_lu(plan, np, np, factors.lu.data(), np, identity.data(), /*pivoting=*/false,
                               variants::genp_panel<F>);
  return variants::blocked_lu(np, np, factors.lu.data(), np, identity.data(), plan.nb, plan.lookahead > 0,
                              variants::genp_panel<F>);
}

template struct LuFactors<float>;
template struct LuFactors<double>;
template struct LuFactors<std::complex<float>>;
template struct LuFactors<std::complex<double>>;
template int factor<float>(const Plan&, int, kernels::WorkspaceVector<float>&&, LuFactors<float>&);
template int factor<std::complex<float>>(const Plan&, int, kernels::WorkspaceVector<std::complex<float>>&&,
                                         LuFactors<std::complex<float>>&);

}  // namespace hetlu::solvers
