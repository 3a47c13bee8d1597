// Front ends of the LU solvers: check arguments, then dispatch on the plan's solver and target.
// Column-major storage, LAPACK conventions: ipiv is 1-based, info > 0 is the 1-based index of the
// first exactly-zero pivot (the factorization is finished anyway, U is singular).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "hetlu/types.hpp"

namespace hetlu {

// What a solve did beyond LAPACK's info: refinement steps, the componentwise backward error when
// it was computed, whether PRBT fell back to GEPP (and why), and where the time went.
struct SolveDetails {
  int refinement_steps = 0;
  std::optional<double> backward_error;
  bool fell_back_to_gepp = false;
  std::string note;
  // Seconds per phase, in order, e.g. PRBT on a device: "copy", "upload and randomization",
  // "factorization", "solve and refinement".
  std::vector<std::pair<std::string, double>> phase_seconds;
};

}  // namespace hetlu

namespace hetlu::solvers {

// P A = L U of the m x n matrix A, in place. Returns info.
template <class T>
int getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv, InputCheck check = InputCheck::finite);

// Solves A X = B (or A^T X = B) with the factors from getrf; B (n x nrhs) is overwritten by X.
template <class T>
void getrs(const Plan& plan, Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb,
           InputCheck check = InputCheck::finite);

// Solves A X = B. GEPP and CALU: getrf then getrs (A overwritten by its factors), refined when
// plan.refinement asks. PRBT: A is left unchanged, ipiv is the identity, always refined.
// Returns info; when info > 0, B is left untouched.
template <class T>
int gesv(const Plan& plan, int n, int nrhs, T* A, int lda, int* ipiv, T* B, int ldb,
         InputCheck check = InputCheck::finite, SolveDetails* details = nullptr);

// LAPACK's dgetrf from the BLAS library (OpenBLAS), the reference hetlu is measured against.
int reference_getrf(int m, int n, double* A, int lda, int* ipiv);

}  // namespace hetlu::solvers
