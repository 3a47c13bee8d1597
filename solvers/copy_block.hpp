// Copies a rows x cols column-major block between leading dimensions (in parallel when large:
// an n x n copy is memory-bound, and one core does not saturate the memory bus).
#pragma once

#include <algorithm>

namespace hetlu::kernels {

template <class T>
void copy_block(int rows, int cols, const T* from, int ld_from, T* to, int ld_to) {
#pragma omp parallel for schedule(static) if (static_cast <long long>(rows) * cols > (1 << 18))
  for (int j = 0; j < cols; ++j)
    std::copy(from + static_cast<long long>(j) * ld_from, from + static_cast<long long>(j) * ld_from + rows,
              to + static_cast<long long>(j) * ld_to);
}

}  // namespace hetlu::kernels
