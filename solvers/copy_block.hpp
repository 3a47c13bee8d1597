// Copies a rows x cols column-major block between leading dimensions (in parallel when large:
// an n x n copy is memory-bound, and one core does not saturate the memory bus), or transposes it.
#pragma once

#include <algorithm>

namespace hetlu::kernels {

// Entries from which a copy (or a pass that copies) goes to threads.
inline constexpr long long parallel_copy_entries = 1 << 18;

// body(j) for j in [0, count): on the team where `parallel`, else serially without entering a
// parallel region. One with if (false) still sets up a team of one (in libgomp an aligned allocation
// and a free per call, with malloc_consolidate: a third of dsgesv_'s time at n = 4).
template <class Body>
void for_each_column(int count, bool parallel, Body&& body) {
  if (!parallel) {
    for (int j = 0; j < count; ++j) body(j);
    return;
  }
#pragma omp parallel for schedule(static)
  for (int j = 0; j < count; ++j) body(j);
}

template <class T>
void copy_block(int rows, int cols, const T* from, int ld_from, T* to, int ld_to) {
  for_each_column(cols, static_cast<long long>(rows) * cols > parallel_copy_entries, [&](int j) {
    std::copy(from + static_cast<long long>(j) * ld_from, from + static_cast<long long>(j) * ld_from + rows,
              to + static_cast<long long>(j) * ld_to);
  });
}

// to <- from^T: the rows x cols column-major block `from` as a cols x rows block (a C-ordered
// NumPy array, row-major, is its transpose in column-major terms). Serial: callers copy one small
// system per thread.
template <class T>
void transpose_block(int rows, int cols, const T* from, int ld_from, T* to, int ld_to) {
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i)
      to[j + static_cast<long long>(i) * ld_to] = from[i + static_cast<long long>(j) * ld_from];
}

// dense's row t <- A's row rows[t] (t < count), in each of cols columns; and back (scatter, the
// rows distinct): the rows a distributed step's interchanges touch, on the host and on the host
// backend's device (Backend::gather_rows).
template <class T>
void gather_rows(int count, int cols, const T* A, int lda, const int* rows, T* dense, int ldd) {
  for (int j = 0; j < cols; ++j)
    for (int t = 0; t < count; ++t)
      dense[t + static_cast<long long>(j) * ldd] = A[rows[t] + static_cast<long long>(j) * lda];
}
template <class T>
void scatter_rows(int count, int cols, const T* dense, int ldd, const int* rows, T* A, int lda) {
  for (int j = 0; j < cols; ++j)
    for (int t = 0; t < count; ++t)
      A[rows[t] + static_cast<long long>(j) * lda] = dense[t + static_cast<long long>(j) * ldd];
}

}  // namespace hetlu::kernels
