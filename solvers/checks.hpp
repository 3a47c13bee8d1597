// Argument checks shared by the solver front ends. Each throws hetlu::InvalidArgument with a
// message that names the argument and says what is wrong.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>

#include "hetlu/types.hpp"

namespace hetlu::checks {

void non_negative(const char* name, long long value);
void positive(const char* name, long long value);
void at_least(const char* name, long long value, const char* bound_name, long long bound);
void not_null(const char* name, const void* pointer, long long elements);

// The arguments of a square system A X = B in LAPACK's order (n, nrhs, lda, ldb, then the arrays).
void square_system(int n, int nrhs, const void* A, int lda, const void* B, int ldb);

// Every pivot ipiv[0..n) must be a row number in [1, n] (LAPACK's 1-based interchanges);
// names the first one that is not, as ipiv(i), 1-based.
void pivots(const char* name, int n, const int* ipiv);

// The 1-based k of the first exactly zero U(k,k) of n x n LU factors, else 0: getrs would divide
// by it (the C API and Python refuse such factors where LAPACK's getrs does not).
template <class T>
int first_zero_pivot(int n, const T* LU, int lda) {
  for (int k = 0; k < n; ++k)
    if (LU[k + static_cast<long long>(k) * lda] == T(0)) return k + 1;
  return 0;
}

// The arguments of getrf (m, n, lda, then the arrays A and ipiv).
void factorization(int m, int n, const void* A, int lda, const int* ipiv);

// Every entry of the m x n matrix must be finite; names the first offender as name(i,j), 1-based.
template <class T>
void finite(const char* name, int m, int n, const T* A, int lda);

// A system's A (n x n) and B (n x nrhs), in that order.
template <class T>
void finite_system(int n, int nrhs, const T* A, int lda, const T* B, int ldb) {
  finite("A", n, n, A, lda);
  finite("B", n, nrhs, B, ldb);
}

// Two column-major arrays of `rows` rows that must not share an entry (one is written while the
// other is read); names them. Entries, not address ranges: a B in A's leading-dimension padding
// (lda > n) is LAPACK-legal and shares none (a review finding). An empty one overlaps nothing.
template <class T>
void apart(const char* name, const T* M, int ldm, int columns, const char* other, const T* O, int ldo,
           int other_columns, int rows);

// An array as its entries lie in memory: `count` column-major blocks of rows x columns (leading
// dimension ld, in entries of `entry` bytes), each `stride` entries after the last: a batch of
// systems' A, B, ipiv or info, or one array (count 1).
struct Entries {
  const char* name;
  const void* base;
  long long entry, ld, columns, rows, stride = 0, count = 1;

  template <class T>
  static Entries of(const char* name, const T* base, long long ld, long long columns, long long rows,
                    long long stride = 0, long long count = 1) {
    return {name, base, static_cast<long long>(sizeof(T)), ld, columns, rows, stride, count};
  }
  bool empty() const { return count <= 0 || columns <= 0 || rows <= 0; }
  // Bytes from `base`: where block i begins, and where its last entry ends.
  long long block(long long i) const { return i * stride * entry; }
  long long block_end(long long i) const { return block(i) + ((columns - 1) * ld + rows) * entry; }
};

// Throws InvalidArgument, naming both, where `written` shares an entry with `other` (written while
// the other is read or written: pivots inside B, a batch's B inside another system's A). Entries,
// not address ranges, as apart: what lies in a leading dimension's padding shares none.
bool entries_meet_within(const Entries& written, const Entries& other);  // extents that meet: entry by entry
[[noreturn]] void refuse_overlap(const Entries& written, const Entries& other);

// The test alone. Inline up to the extents, which settle the usual call (apart as a whole) in a few
// instructions: the small path's per-call cost (hetlu_dgetrs at n = 1 is 0.05 us).
inline bool entries_meet(const Entries& written, const Entries& other) {
  if (written.empty() || other.empty()) return false;
  const auto w = reinterpret_cast<std::intptr_t>(written.base), o = reinterpret_cast<std::intptr_t>(other.base);
  const long long shift = static_cast<long long>(o - w);  // bytes, in written's frame
  if (written.block_end(written.count - 1) <= shift || shift + other.block_end(other.count - 1) <= 0) return false;
  return entries_meet_within(written, other);
}
inline void entries_apart(const Entries& written, const Entries& other) {
  if (entries_meet(written, other)) refuse_overlap(written, other);
}

// `count` pivots, as one column.
inline Entries pivot_entries(const int* ipiv, int count) {
  return Entries::of("ipiv", ipiv, count, 1, count);
}
// getrf's pivots: min(m, n) of them.
inline Entries getrf_pivots(int m, int n, const int* ipiv) {
  return pivot_entries(ipiv, std::max(0, std::min(m, n)));
}

template <class T>
void apart(const char* name, const T* M, int ldm, int columns, const char* other, const T* O, int ldo,
           int other_columns, int rows) {
  entries_apart(Entries::of(name, M, ldm, columns, rows), Entries::of(other, O, ldo, other_columns, rows));
}

// A system solved into a separate X (n x nrhs, ldx) with its pivots (mixed and auto precision):
// A and B as square_system, then ldx, X and ipiv; B finite and X apart from A and B unless `check`
// is none. A's finiteness is left to solvers::mixed_gesv, which tests it on the pass that rounds A
// to single (a separate pass over A cost 1.5 % of a mixed solve), or to whoever solves in double.
template <class T>
void system_into_x(int n, int nrhs, const T* A, int lda, const T* B, int ldb, const T* X, int ldx, const int* ipiv,
                   InputCheck check) {
  square_system(n, nrhs, A, lda, B, ldb);
  at_least("ldx", ldx, "max(1, n)", n > 1 ? n : 1);
  not_null("X", X, static_cast<long long>(n) * nrhs);
  not_null("ipiv", ipiv, n);
  if (check == InputCheck::finite) {  // hetlu's own calls (the drop-in keeps LAPACK's: no checks)
    finite("B", n, nrhs, B, ldb);
    // X is written while A and B are read: an X over B (B const) was zeroed with it and "converged".
    apart("X", X, ldx, nrhs, "B", B, ldb, nrhs, n);
    apart("X", X, ldx, nrhs, "A", A, lda, n, n);
    const auto pivots = pivot_entries(ipiv, n);  // written while A is factored, B and X used
    entries_apart(pivots, Entries::of("A", A, lda, n, n));
    entries_apart(pivots, Entries::of("B", B, ldb, nrhs, n));
    entries_apart(pivots, Entries::of("X", X, ldx, nrhs, n));
  }
}

// The plan must ask for the precision of the data it is given.
template <class T>
void precision_matches(const Plan& plan);

// The hybrid plan's devices: one to max_devices, each available here, shares one per device (or
// none), finite and >= 0.
void devices(const Plan& plan);

// The plan's own fields a factorization reads: nb >= 1; CALU's ib and panel threads >= 1; on the
// hybrid target d >= 0 and its devices (above).
void plan(const Plan& plan);

}  // namespace hetlu::checks
