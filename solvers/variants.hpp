// The algorithm variants behind the front ends, one file each. Arguments are already checked.
#pragma once

#include "hetlu/types.hpp"
#include "solvers/lu.hpp"

namespace hetlu::variants {

template <class T>
int gepp_cpu_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv);

template <class T>
int calu_cpu_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv);

// The hybrid forms (plan.target == hybrid) on the plan's backend; see hybrid_lu.hpp. `check`:
// HybridLu::check_input (A's finiteness, tested where it is read anyway).
template <class T>
int gepp_hybrid_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv, LoadBalance* balance, InputCheck check);

template <class T>
int calu_async_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv, LoadBalance* balance, InputCheck check);

// P A = L U by the plan's solver (GEPP or CALU); the hybrid target's load balance into *balance.
// check finite: A's entries are tested before anything changes (error: checks::finite's).
template <class T>
int lu_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv, LoadBalance* balance = nullptr,
             InputCheck check = InputCheck::none);

// Solves A X = B (or A^T X = B) with the factors of any LU variant that leaves P A = L U in place.
template <class T>
void lu_getrs(Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb);

// B <- op(U)^-1 B for the upper triangle U of LU (n x n): the BLAS's trsm where every pivot has a
// reciprocal (kernels::pivots_have_reciprocals), else hetlu's loops, dividing: the BLAS multiplies
// by reciprocals, Inf for a subnormal pivot and 0 for a complex one beyond complex division.
template <class T>
void solve_upper(Transpose trans, int n, int nrhs, const T* LU, int lda, T* B, int ldb);

// The reciprocal 1-norm condition number of A (||A||_1 = anorm) estimated from those factors, as
// dgecon (gecon.cpp): 0 where a pivot is exactly zero or a solve overflows.
template <class T>
double lu_reciprocal_condition(int n, const T* LU, int lda, const int* ipiv, double anorm);

// Factors LU in place (GEPP or CALU) and solves into B; refines with A_original when the plan asks.
// check: LU's finiteness, as lu_getrf's.
template <class T>
int lu_gesv(const Plan& plan, int n, int nrhs, T* LU, int ldlu, int* ipiv, const T* A_original, int lda, T* B, int ldb,
            SolveDetails* details, InputCheck check = InputCheck::none);

// PRBT solve; A is left unchanged and ipiv zeroed: no L U of A exists (getrs refuses those pivots).
// check: A's finiteness, from the pass PRBT makes over A anyway (its column sums).
template <class T>
int prbt_gesv(const Plan& plan, int n, int nrhs, const T* A, int lda, int* ipiv, T* B, int ldb, SolveDetails* details,
              InputCheck check = InputCheck::none);

}  // namespace hetlu::variants
