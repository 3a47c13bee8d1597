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

// Writes through write_output (output_file.hpp): never a partial file, never one of `inputs`.
void write_matrix_market(const std::string& path, const DenseMatrix& matrix, const std::vector<std::string>& inputs);

// The same for any text.
void write_text_file(const std::string& path, const std::string& text, const std::vector<std::string>& inputs);

}  // namespace hetlu::cli
