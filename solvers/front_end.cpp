#include <algorithm>
#include <complex>
#include <string>
#include <vector>

#include "solvers/backend.hpp"
#include "solvers/blas_threads.hpp"
#include "solvers/checks.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/lu.hpp"
#include "solvers/variants.hpp"
#include "solvers/workspace.hpp"

namespace hetlu::solvers {

using kernels::BlasHold;

template <class T>
int getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv, InputCheck check, LoadBalance* balance) {
  checks::factorization(m, n, A, lda, ipiv);
  checks::precision_matches<T>(plan);
  checks::plan(plan);
  const BlasHold hold(plan);
  return variants::lu_getrf(plan, m, n, A, lda, ipiv, balance, check);  // checks A's finiteness where it reads A
}

template <class T>
void check_getrs_arguments(const Plan& plan, int n, int nrhs, const T* LU, int lda, const int* ipiv, const T* B,
                           int ldb, InputCheck check) {
  checks::non_negative("n", n);
  checks::non_negative("nrhs", nrhs);
  checks::at_least("lda", lda, "max(1, n)", std::max(1, n));
  checks::at_least("ldb", ldb, "max(1, n)", std::max(1, n));
  checks::not_null("LU", LU, static_cast<long long>(n) * n);
  checks::not_null("ipiv", ipiv, nrhs > 0 ? n : 0);  // LAPACK's quick return reads no ipiv
  checks::not_null("B", B, static_cast<long long>(n) * nrhs);
  checks::precision_matches<T>(plan);
  if (nrhs == 0) return;              // LAPACK's quick return: nothing is read, ipiv included
  if (check == InputCheck::finite) {  // B is written while LU and the pivots are read
    checks::apart("B", B, ldb, nrhs, "LU", LU, lda, n, n);
    checks::entries_apart(checks::Entries::of("B", B, ldb, nrhs, n), checks::pivot_entries(ipiv, n));
  }
  checks::pivots("ipiv", n, ipiv);  // O(n), and an out-of-range pivot would address outside B
  if (check == InputCheck::finite) checks::finite("B", n, nrhs, B, ldb);
}

template <class T>
void getrs(const Plan& plan, Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb,
           InputCheck check) {
  check_getrs_arguments(plan, n, nrhs, LU, lda, ipiv, B, ldb, check);
  if (nrhs == 0) return;
  const kernels::SharedBlas hold;
  variants::lu_getrs(trans, n, nrhs, LU, lda, ipiv, B, ldb);
}

template <class T>
int gesv(const Plan& plan, int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb, InputCheck check,
         SolveDetails* details) {
  checks::square_system(n, nrhs, A, lda, B, ldb);
  checks::not_null("ipiv", ipiv, n);
  checks::precision_matches<T>(plan);
  checks::plan(plan);
  // Before any work: B here; A here too, except where the solver tests it as it reads A before
  // writing anything (lu_getrf: the hybrid LU on its upload; PRBT: its pass over A), so that the
  // caller's A and B are untouched on error.
  const BlasHold hold(plan);
  const bool refine = plan.refinement == Refinement::working;
  const bool a_checked_by_solver = plan.solver == Solver::prbt || !refine;
  if (check == InputCheck::finite) {
    if (!a_checked_by_solver) checks::finite("A", n, n, A, lda);
    checks::finite("B", n, nrhs, B, ldb);
  }
  if (plan.solver == Solver::prbt) return variants::prbt_gesv(plan, n, nrhs, A, lda, ipiv, B, ldb, details, check);
  // Refinement needs A itself; the factors overwrite it.
  kernels::Workspace<T> original(refine ? static_cast<size_t>(n) * n : 0);
  if (refine) kernels::copy_block(n, n, A, lda, original.data(), std::max(1, n));
  return variants::lu_gesv(plan, n, nrhs, A, lda, ipiv, refine ? original.data() : nullptr, std::max(1, n), B, ldb,
                           details, a_checked_by_solver ? check : InputCheck::none);
}

template int getrf<float>(const Plan&, int, int, float*, int, int*, InputCheck, LoadBalance*);
template int getrf<double>(const Plan&, int, int, double*, int, int*, InputCheck, LoadBalance*);
template int getrf<std::complex<double>>(const Plan&, int, int, std::complex<double>*, int, int*, InputCheck,
                                         LoadBalance*);
template int getrf<std::complex<float>>(const Plan&, int, int, std::complex<float>*, int, int*, InputCheck,
                                        LoadBalance*);
template void check_getrs_arguments<float>(const Plan&, int, int, const float*, int, const int*, const float*, int,
                                           InputCheck);
template void check_getrs_arguments<double>(const Plan&, int, int, const double*, int, const int*, const double*, int,
                                            InputCheck);
template void check_getrs_arguments<std::complex<double>>(const Plan&, int, int, const std::complex<double>*, int,
                                                          const int*, const std::complex<double>*, int, InputCheck);
template void check_getrs_arguments<std::complex<float>>(const Plan&, int, int, const std::complex<float>*, int,
                                                         const int*, const std::complex<float>*, int, InputCheck);
template void getrs<float>(const Plan&, Transpose, int, int, const float*, int, const int*, float*, int, InputCheck);
template void getrs<double>(const Plan&, Transpose, int, int, const double*, int, const int*, double*, int, InputCheck);
template void getrs<std::complex<double>>(const Plan&, Transpose, int, int, const std::complex<double>*, int,
                                          const int*, std::complex<double>*, int, InputCheck);
template void getrs<std::complex<float>>(const Plan&, Transpose, int, int, const std::complex<float>*, int, const int*,
                                         std::complex<float>*, int, InputCheck);
template int gesv<float>(const Plan&, int, int, float*, int, int*, float*, int, InputCheck, SolveDetails*);
template int gesv<double>(const Plan&, int, int, double*, int, int*, double*, int, InputCheck, SolveDetails*);
template int gesv<std::complex<double>>(const Plan&, int, int, std::complex<double>*, int, int*, std::complex<double>*,
                                        int, InputCheck, SolveDetails*);
template int gesv<std::complex<float>>(const Plan&, int, int, std::complex<float>*, int, int*, std::complex<float>*,
                                       int, InputCheck, SolveDetails*);

}  // namespace hetlu::solvers
