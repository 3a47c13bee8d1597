// Copies a rows x cols column-major block between leading dimensions.
#pragma once

#include <algorithm>

namespace hetlu::kernels {

template <class T>
void copy_block(int rows, int cols, const T* from, int ld_from, T* to, int ld_to) {
  for (int j = 0; j < cols; ++j)
    std::copy(from + static_cast<long long>(j) * ld_from, from + static_cast<long long>(j) * ld_from + rows,
              to + static_cast<long long>(j) * ld_to);
}

}  // namespace hetlu::kernels
