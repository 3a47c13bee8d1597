// Matrix Market files: read real or integer matrices in array or coordinate format (general or
// symmetric), write dense results in array format.
#pragma once

#include <string>
#include <vector>

#include "hetlu/types.hpp"

namespace hetlu::cli {

struct DenseMatrix {
  int rows = 0, cols = 0;
  std::vector<double> values;  // column-major, leading dimension = rows
  double& at(int i, int j) { return values[i + static_cast<size_t>(j) * rows]; }
};

// Throws InvalidArgument as "FILE:LINE: what is wrong" for anything malformed, including NaN/Inf.
DenseMatrix read_matrix_market(const std::string& path);

// Writes to a temporary file beside path and renames it into place: never a partial file.
void write_matrix_market(const std::string& path, const DenseMatrix& matrix);

// The same for any text.
void write_text_file(const std::string& path, const std::string& text);

}  // namespace hetlu::cli
