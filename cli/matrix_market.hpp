// Matrix Market files: read real, integer, complex or pattern matrices in array or coordinate format
// (general, symmetric or skew-symmetric; complex also hermitian), write dense results in array format.
#pragma once

#include <complex>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "hetlu/types.hpp"

namespace hetlu::cli {

struct DenseMatrix {
  int rows = 0, cols = 0;
  // Column-major, leading dimension = rows: a real matrix in values, a complex one (field complex)
  // in complex_values, the other left empty.
  bool is_complex = false;
  std::vector<double> values;
  std::vector<std::complex<double>> complex_values;
  double& at(int i, int j) { return values[i + static_cast<size_t>(j) * rows]; }
  std::complex<double>& complex_at(int i, int j) { return complex_values[i + static_cast<size_t>(j) * rows]; }
  // A real matrix as a complex one (imaginary parts zero); a complex one stays as it is.
  void make_complex();
};

// What a matrix is read for. system: the A of A X = B, which a coordinate file proves singular
// where a row or column has no nonzero entry: CommandFailure(exit_singular), before the dense matrix
// is allocated. any (the default): read as the file says.
enum class MatrixRole { any, system };

// The matrix a file's header declares, for a caller's check (the memory its whole use needs) before
// anything is allocated: a 400 KB diagonal declaring 30000 x 30000 was allocated (7 GB) before the
// solve's own check refused it.
struct DeclaredMatrix {
  long long rows = 0, cols = 0;
  bool is_complex = false;
};
using DeclaredCheck = std::function<void(const DeclaredMatrix&)>;

// Throws InvalidArgument as "FILE:LINE: what is wrong" for anything malformed, including NaN/Inf.
// `check` (none by default) sees the declared matrix once the header is read, and may throw.
DenseMatrix read_matrix_market(const std::string& path, MatrixRole role = MatrixRole::any,
                               const DeclaredCheck& check = {});

// Writes through write_output (output_file.hpp): never a partial file, never one of `inputs`.
void write_matrix_market(const std::string& path, const DenseMatrix& matrix, const std::vector<std::string>& inputs);

// The same on a stream (standard output).
void write_matrix_market(std::ostream& out, const DenseMatrix& matrix);

// The same for any text.
void write_text_file(const std::string& path, const std::string& text, const std::vector<std::string>& inputs);

}  // namespace hetlu::cli
