// TSLU: the panel factorization of CALU with tournament pivoting (hybrid-calu-prbt-gepp §3.1,
// async-calu §2.4). The rows are split into row blocks; each block is factored with partial
// pivoting to nominate `width` candidate pivot rows; candidates meet pairwise up a binary tree, each
// match a GEPP of the 2 x width stacked candidates; the winners become the pivot rows, are moved to
// the top, and the panel is factored without further pivoting.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "solvers/blas.hpp"
#include "solvers/copy_block.hpp"
#include "solvers/gepp_kernels.hpp"

namespace hetlu::kernels {
namespace {

// A leaf's share of the panel: 2 MiB, twice the dev machine's L2 and a slice of its L3. Fewer,
// larger leaves mean fewer tournament matches; measured on 100000 x 512 (CALU, one panel, ib 16 and
// 32) against 0.5, 1, 4 and 8 MiB, 2-4 MiB were fastest: 0.41-0.43 s against 0.44-0.47 s at 0.5 MiB.
constexpr long long leaf_bytes = 2048 * 1024;

// body(0 .. count-1) in parallel. Inside a task graph (the look-ahead schedule runs panels as
// tasks) the iterations become child tasks that idle threads pick up, so the panel on the critical
// path is not left to one thread; elsewhere, a parallel loop over `threads` threads.
template <class Body>
void for_each_in_parallel(int count, int threads, Body&& body) {
  if (omp_in_parallel()) {
#pragma omp taskloop grainsize(1) if (count > 1)
    for (int i = 0; i < count; ++i) body(i);
    return;
  }
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads) if (threads > 1 && count > 1)
  for (int i = 0; i < count; ++i) body(i);
}

// GEPP of the rows `candidates` of the panel (copied into a workspace); returns the rows it picks,
// in pivot order (the first min(#candidates, width) of them).
template <class T>
std::vector<int> play_round(const std::vector<int>& candidates, int width, const T* A, int lda) {
  const int rows = static_cast<int>(candidates.size());
  std::vector<T> work(static_cast<size_t>(rows) * width);
  for (int j = 0; j < width; ++j)
    for (int i = 0; i < rows; ++i)
      work[i + static_cast<size_t>(j) * rows] = A[candidates[i] + static_cast<long long>(j) * lda];
  const int k = std::min(rows, width);
  std::vector<int> ipiv(std::max(1, k));
  getrf_recursive(rows, width, work.data(), rows, ipiv.data());  // a zero pivot still ranks the rows
  std::vector<int> order = candidates;
  for (int i = 0; i < k; ++i) std::swap(order[i], order[ipiv[i] - 1]);
  order.resize(k);
  return order;
}

// Whether every pivot U(i,i), i < k, is a normal number the BLAS library can invert (its trsm
// multiplies by reciprocals): one that can be divided by safely.
template <class T>
bool pivots_are_normal(int k, const T* A, int lda) {
  for (int i = 0; i < k; ++i)
    if (const T p = A[i + static_cast<long long>(i) * lda];
        !(std::abs(p) >= scalar::safe_minimum<T>()) || scalar::beyond_complex_division(p))
      return false;
  return true;
}

}  // namespace

template <class T>
int tslu_panel(int m, int width, T* A, int lda, int* ipiv, int panel_threads) {
  if (m == 0 || width == 0) return 0;
  const int k = std::min(m, width);
  // Leaves: at least one per panel thread, and small enough that a leaf's GEPP runs in cache (a
  // GEPP of a panel taller than the cache streams it from memory once per recursion level), but
  // each with at least `width` rows, so that it can nominate a full set of candidates.
  const long long rows_in_cache = std::max<long long>(width, leaf_bytes / (static_cast<long long>(width) * sizeof(T)));
  const int leaves = static_cast<int>(std::max<long long>(
      1, std::min<long long>(m / std::max(1, width),
                             std::max<long long>(panel_threads, (m + rows_in_cache - 1) / rows_in_cache))));
  std::vector<std::vector<int>> winners(leaves);
  const int threads = std::max(1, std::min(panel_threads, leaves));
  for_each_in_parallel(leaves, threads, [&](int b) {
    const int first = static_cast<int>(static_cast<long long>(m) * b / leaves);
    const int last = static_cast<int>(static_cast<long long>(m) * (b + 1) / leaves);
    std::vector<int> rows(last - first);
    std::iota(rows.begin(), rows.end(), first);
    winners[b] = play_round(rows, width, A, lda);
  });
  // Binary reduction tree: log2(leaves) rounds of pairwise matches, each round's in parallel.
  for (int stride = 1; stride < leaves; stride *= 2) {
    const int matches = (leaves + 2 * stride - 1) / (2 * stride);
    for_each_in_parallel(matches, threads, [&](int match) {
      const int b = match * 2 * stride;
      if (b + stride >= leaves) return;  // no opponent this round
      std::vector<int> stacked = winners[b];
      stacked.insert(stacked.end(), winners[b + stride].begin(), winners[b + stride].end());
      winners[b] = play_round(stacked, width, A, lda);
    });
  }
  const std::vector<int>& pivots = winners[0];

  // The winners as LAPACK interchanges: row i swaps with the current position of winner i.
  std::vector<int> position(m), row_at(m);
  std::iota(position.begin(), position.end(), 0);
  std::iota(row_at.begin(), row_at.end(), 0);
  for (int i = 0; i < k; ++i) {
    const int p = position[pivots[i]];
    ipiv[i] = p + 1;
    std::swap(row_at[i], row_at[p]);
    position[row_at[i]] = i;
    position[row_at[p]] = p;
  }
  laswp(width, A, lda, 0, k, ipiv);
  // The winners on top: A11 = L11 U11 without pivoting, then L21 = A21 U11^-1 in one triangular
  // solve over all the rows below (one wide BLAS-3 call rather than a recursion of thin ones).
  // A pivot that is zero or subnormal ends the tournament's claim: below it L21 would be A21 / 0,
  // and a triangular solve with a subnormal diagonal overflows (BLAS inverts the diagonal). The
  // panel is then factored again with partial pivoting from its original rows, so that the factors
  // are complete and info is LAPACK's, as getrf promises. The copy costs k x width, a sliver.
  std::vector<T> top(static_cast<size_t>(k) * width);
  copy_block(k, width, A, lda, top.data(), k);
  if (getrf_nopivot_recursive(k, width, A, lda) == 0 && pivots_are_normal(k, A, lda)) {
    if (m > k)
      blas::trsm(blas::Side::right, blas::Uplo::upper, blas::Op::no_trans, blas::Diag::non_unit, m - k, k, T(1), A, lda,
                 A + k, lda);
    return 0;
  }
  copy_block(k, width, top.data(), k, A, lda);
  laswp_reverse(width, A, lda, 0, k, ipiv);
  return getrf_recursive(m, width, A, lda, ipiv);
}

template <class T>
int getrf_nopivot_recursive(int m, int n, T* A, int lda) {
  if (m == 0 || n == 0) return 0;
  if (n == 1) {
    if (A[0] == T(0)) return 1;
    divide_by_pivot(m - 1, A[0], A + 1);
    return 0;
  }
  const int n1 = std::min(m, n) / 2, n2 = n - n1;
  if (n1 == 0) return A[0] == T(0) ? 1 : 0;  // m == 1: the row is U
  T* A12 = A + static_cast<long long>(n1) * lda;
  int info = getrf_nopivot_recursive(m, n1, A, lda);
  blas::trsm(blas::Side::left, blas::Uplo::lower, blas::Op::no_trans, blas::Diag::unit, n1, n2, T(1), A, lda, A12, lda);
  blas::gemm(blas::Op::no_trans, blas::Op::no_trans, m - n1, n2, n1, T(-1), A + n1, lda, A12, lda, T(1), A12 + n1, lda);
  const int info2 = getrf_nopivot_recursive(m - n1, n2, A12 + n1, lda);
  if (info == 0 && info2 > 0) info = info2 + n1;
  return info;
}

template int tslu_panel<float>(int, int, float*, int, int*, int);
template int tslu_panel<double>(int, int, double*, int, int*, int);
template int tslu_panel<std::complex<double>>(int, int, std::complex<double>*, int, int*, int);
template int tslu_panel<std::complex<float>>(int, int, std::complex<float>*, int, int*, int);
template int getrf_nopivot_recursive<float>(int, int, float*, int);
template int getrf_nopivot_recursive<double>(int, int, double*, int);
template int getrf_nopivot_recursive<std::complex<double>>(int, int, std::complex<double>*, int);
template int getrf_nopivot_recursive<std::complex<float>>(int, int, std::complex<float>*, int);

}  // namespace hetlu::kernels
