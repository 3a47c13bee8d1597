#include "cli/matrix_market.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/output_file.hpp"
#include "probes/memory.hpp"

namespace hetlu::cli {
namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// A token as an error message quotes it: cut to its first 40 characters (a 50 MB number was echoed
// whole, into one 50 MB line).
std::string quote_cut(const std::string& token) {
  constexpr std::size_t shown = 40;
  return "'" + (token.size() <= shown ? token : token.substr(0, shown) + "...") + "'";
}

// The longest line a Matrix Market file may have: far beyond any header, comment or entry, and a
// bound on what /dev/zero or a file without newlines makes the reader hold.
constexpr std::size_t max_line_bytes = 1 << 20;

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path), in_(path) {
    const int open_error = errno;  // the open's, before anything else sets it
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
      throw InvalidArgument(path + ": is a folder, not a Matrix Market file");
    if (!in_) throw InvalidArgument(path + ": " + why_unopened(open_error));
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw InvalidArgument(path_ + ":" + std::to_string(line_number_) + ": " + what);
  }

  // Next line that is not a comment or blank; false at end of file.
  bool next_data_line(std::string& line) {
    while (read_line(line)) {
      ++line_number_;
      const auto first = line.find_first_not_of(" \t\r");
      if (first == std::string::npos || line[first] == '%') continue;
      return true;
    }
    return false;
  }

  bool header(std::string& line) {
    if (!read_line(line)) return false;
    ++line_number_;
    if (line.rfind("\xEF\xBB\xBF", 0) == 0) line.erase(0, 3);  // a UTF-8 byte-order mark, as editors write it
    // A CR inside the first line: the file's lines end in a lone CR (classic Mac OS), and getline
    // saw it as one line; said so, not as a missing size line.
    if (const auto cr = line.find('\r'); cr != std::string::npos && cr + 1 < line.size())
      fail("lines end in a lone carriage return (CR): convert them to LF (or CR LF)");
    return true;
  }

  long long parse_int(std::istringstream& fields, const char* what) {
    std::string token;
    if (!(fields >> token)) fail(std::string("missing ") + what);
    char* end = nullptr;
    errno = 0;
    long long v = std::strtoll(token.c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE) fail(std::string("bad ") + what + " " + quote_cut(token));
    return v;
  }

  double parse_value(std::istringstream& fields, const std::string& where) {
    std::string token;
    if (!(fields >> token)) fail("missing value" + where);
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(token.c_str(), &end);
    // strtod also reads hexadecimal (0x1p3), which Matrix Market's decimal numbers are not.
    if (*end != '\0' || token.find_first_of("xX") != std::string::npos) fail("bad value " + quote_cut(token) + where);
    if (std::isnan(v)) fail("NaN" + where + "; the input must be finite");
    if (std::isinf(v)) fail("Inf or overflow (" + quote_cut(token) + ")" + where + "; the input must be finite");
    // Below the least subnormal a nonzero number reads as 0 (strtod's ERANGE), which would show up
    // as a singular matrix with no word of why; subnormals themselves are read.
    if (v == 0 && errno == ERANGE)
      fail("underflow (" + quote_cut(token) + ")" + where + ": nonzero, but below the least double (4.9e-324)");
    if (integer_field_) {  // an integer file holds whole numbers a double represents exactly
      if (token.find_first_not_of("+-0123456789") != std::string::npos)
        fail("bad integer value " + quote_cut(token) + where + " in an integer file");
      errno = 0;
      const long long exact = std::strtoll(token.c_str(), nullptr, 10);  // 2^53 + 1 read as a double is 2^53
      // Compared in long double, which holds every long long (2^60 is exact in a double, 2^53 + 1 is not).
      if (errno == ERANGE || static_cast<long double>(exact) != static_cast<long double>(v))
        fail("integer value " + quote_cut(token) + where + " is not held exactly by a double (beyond 2^53)");
    }
    return v;
  }

  void set_integer_field(bool integer) { integer_field_ = integer; }

  void expect_end(std::istringstream& fields) {
    std::string extra;
    if (fields >> extra) fail("unexpected extra field " + quote_cut(extra));
  }

  int line_number() const { return line_number_; }

 private:
  // The next line without its '\n'; false at the end of the file. Refuses a NUL byte and a line
  // longer than max_line_bytes as it reads, before holding more.
  bool read_line(std::string& line) {
    line.clear();
    std::streambuf* buffer = in_.rdbuf();
    for (bool any = false;; any = true) {
      const int c = next_byte(buffer);
      if (c == std::char_traits<char>::eof()) return any;
      if (c == '\n') return true;
      if (c == '\0') fail_on_next("a NUL byte: not a text file");
      if (line.size() >= max_line_bytes)
        fail_on_next(line.find('\r') != std::string::npos
                         ? "lines end in a lone carriage return (CR): convert them to LF (or CR LF)"
                         : "a line longer than 1 MiB: not a Matrix Market file");
      line.push_back(static_cast<char>(c));
    }
  }

  // libstdc++'s file buffer throws on a read error (EIO: /proc/self/mem, a failing disk), as
  // "basic_filebuf::underflow error reading the file", naming no file: said with the file and line.
  int next_byte(std::streambuf* buffer) {
    try {
      return buffer->sbumpc();
    } catch (const std::exception&) {
      fail_on_next(std::string("read error (") + std::strerror(errno) + ")");
    }
  }

  [[noreturn]] void fail_on_next(const std::string& what) {
    ++line_number_;
    fail(what);
  }

  bool integer_field_ = false;
  std::string path_;
  std::ifstream in_;
  int line_number_ = 0;
};

// An entry as a pipe's reader holds it until the last has arrived.
struct Entry {
  int row, col;
  std::complex<double> value;
  int line;  // where the file lists it, for what its sum with duplicates does
};

// The rows and columns a square coordinate file gives a nonzero entry (a symmetric one's mirror
// counts): a system's A that leaves one empty is singular, whatever its values. Said before the
// dense matrix is allocated and factored where the entries are staged (a 66-byte file declaring
// 20000 x 20000 took 6.3 GB and two minutes to be found singular), after the read otherwise.
class Occupancy {
 public:
  Occupancy(bool wanted, long long rows, long long cols, bool symmetric)
      : symmetric_(symmetric), rows_(wanted && rows == cols ? rows : 0, 0), cols_(rows_.size(), 0) {}
  void mark(int i, int j, std::complex<double> v) {
    if (rows_.empty() || v == 0.0) return;
    rows_[i] = cols_[j] = 1;
    if (symmetric_) rows_[j] = cols_[i] = 1;
  }
  void refuse_an_empty_row_or_column(const std::string& path) const {
    for (std::size_t k = 0; k < rows_.size(); ++k)
      for (const auto& [has, what] : {std::pair{&cols_, "column"}, std::pair{&rows_, "row"}})
        if (!(*has)[k])
          throw CommandFailure(exit_singular, fmt::format("{}: the matrix is singular: {} {} has no nonzero entry "
                                                          "in the file; no solution written",
                                                          path, what, k + 1));
  }

 private:
  bool symmetric_;
  std::vector<char> rows_, cols_;
};

}  // namespace

DenseMatrix read_matrix_market(const std::string& path, MatrixRole role, const DeclaredCheck& check) {
  Reader reader(path);
  std::string line;
  if (!reader.header(line)) reader.fail("empty file (expected a %%MatrixMarket header)");
  std::istringstream header(line);
  std::string banner, object, format, field, symmetry;
  header >> banner >> object >> format >> field >> symmetry;
  if (banner != "%%MatrixMarket")
    reader.fail("not a Matrix Market file (the first line must start with %%MatrixMarket)");
  // The banner has exactly five words (as SciPy's mmread reads it): a sixth is no qualifier this
  // reader knows, and ignoring it would read the file as something it says it is not.
  reader.expect_end(header);
  object = lower(object), format = lower(format), field = lower(field), symmetry = lower(symmetry);
  if (object != "matrix") reader.fail("object " + quote_cut(object) + " is not supported (expected matrix)");
  if (format != "array" && format != "coordinate")
    reader.fail("format " + quote_cut(format) + " is not supported (expected array or coordinate)");
  if (field != "real" && field != "integer" && field != "double" && field != "complex" && field != "pattern")
    reader.fail("field " + quote_cut(field) + " is not supported (expected real, integer, complex or pattern)");
  reader.set_integer_field(field == "integer");
  const bool complex = field == "complex";
  // A pattern file lists where the entries are, each 1 (as SciPy's mmread reads it); the format
  // has no pattern array.
  const bool pattern = field == "pattern";
  if (pattern && format != "coordinate") reader.fail("a pattern matrix must be in coordinate format");
  if (symmetry != "general" && symmetry != "symmetric" && symmetry != "skew-symmetric" &&
      !(complex && symmetry == "hermitian"))
    reader.fail("symmetry " + quote_cut(symmetry) + " is not supported (expected general, symmetric or skew-symmetric" +
                (complex ? ", or hermitian)" : ")"));
  const bool hermitian = symmetry == "hermitian";
  // A skew-symmetric file lists the strictly lower triangle: the diagonal is zero, A(j,i) = -A(i,j).
  const bool skew = symmetry == "skew-symmetric";
  if (skew && pattern) reader.fail("a pattern matrix cannot be skew-symmetric (its entries are all 1)");
  const bool symmetric = symmetry == "symmetric" || hermitian || skew;

  if (!reader.next_data_line(line)) reader.fail("missing size line");
  std::istringstream sizes(line);
  const long long rows = reader.parse_int(sizes, "row count");
  const long long cols = reader.parse_int(sizes, "column count");
  const bool coordinate = format == "coordinate";
  const long long declared_entries = coordinate ? reader.parse_int(sizes, "entry count") : 0;
  reader.expect_end(sizes);
  if (rows < 0 || cols < 0 || declared_entries < 0) reader.fail("sizes must be >= 0");
  // Each side bounded before the product is formed (3037000500 x 3037000500 overflows 64 bits).
  if (rows > 100000 || cols > 100000 || rows * cols > (1LL << 31))
    reader.fail("matrix of " + std::to_string(rows) + " x " + std::to_string(cols) + " is too large");
  const long long entries = coordinate ? declared_entries : rows * cols;
  if (symmetric && rows != cols) reader.fail("a " + symmetry + " matrix must be square");
  // What the header declares is checked against the file before anything is allocated: every
  // entry takes at least 2 bytes ("0\n") in an array file and 6 ("1 1 0\n") in a coordinate one.
  const long long stored = format == "array" && symmetric ? rows * (rows + (skew ? -1 : 1)) / 2 : entries;
  const long long least_entry_bytes = (format == "array" ? 2 : pattern ? 4 : 6) + (complex ? 2 : 0);
  std::error_code ec;
  const bool regular = std::filesystem::is_regular_file(path, ec);
  const auto file_bytes = regular ? std::filesystem::file_size(path, ec) : 0;
  // Divided, not multiplied: a declared count near 2^63 would overflow the product.
  if (regular && !ec && stored > static_cast<long long>(file_bytes) / least_entry_bytes)
    reader.fail("the size line declares " + std::to_string(stored) + " entries, more than a file of " +
                std::to_string(file_bytes) + " bytes can hold");
  if (check) check({rows, cols, complex});  // first: the caller's counts more than the matrix alone
  const double dense_bytes = (complex ? 16.0 : 8.0) * double(rows) * double(cols);
  probes::require_memory(dense_bytes,
                         path + ": a dense " + std::to_string(rows) + " x " + std::to_string(cols) + " matrix");

  DenseMatrix M;
  M.rows = static_cast<int>(rows);
  M.cols = static_cast<int>(cols);
  M.is_complex = complex;
  // A regular array file's size bounded what it declares: the dense matrix is allocated at once. A
  // pipe's (/dev/stdin) is unknown, and a coordinate file's few lines can declare a matrix of
  // gigabytes, so their entries are held as they arrive and the matrix allocated after the last
  // one (a system's A only where every row and column has a nonzero: see MatrixRole); but a
  // regular coordinate file dense enough that its staged entries (32 bytes each) would outweigh the
  // matrix is read into it at once (staged, a 1500 x 1500 file held 143 MB, 53 MB as an array). An
  // array file's values come in the matrix's own order (a general one's are the matrix: no copy), a
  // coordinate file's with their indices.
  const bool array = format == "array";
  const bool staging = !regular || (!array && double(entries) * sizeof(Entry) < dense_bytes);
  Occupancy occupied(role == MatrixRole::system && !array, rows, cols, symmetric);
  std::vector<Entry> staged;
  std::vector<double> staged_values;
  std::vector<std::complex<double>> staged_complex_values;
  auto allocate = [&] {
    if (complex)
      M.complex_values.assign(static_cast<size_t>(rows * cols), 0.0);
    else
      M.values.assign(static_cast<size_t>(rows * cols), 0.0);
  };
  if (!staging) allocate();
  // One entry's value(s) from its fields: a real number, or a complex one's real and imaginary parts.
  auto value = [&](std::istringstream& fields, const std::string& where) {
    if (pattern) return std::complex<double>(1.0, 0.0);
    const double re = reader.parse_value(fields, where);
    return std::complex<double>(re, complex ? reader.parse_value(fields, where + ", its imaginary part") : 0.0);
  };
  // Entry (i, j) and, below the diagonal of a symmetric, skew-symmetric or hermitian file, its
  // mirror; a hermitian diagonal is real. Duplicates add, as in the format; a sum beyond double's range is refused
  // where it happens (the file holds no Inf).
  auto add_to_matrix = [&](int i, int j, std::complex<double> v) {
    const std::complex<double> mirror = hermitian ? std::conj(v) : skew ? -v : v;
    bool finite = true;
    if (complex) {
      const std::complex<double> sum = M.complex_at(i, j) += v;
      finite = std::isfinite(sum.real()) && std::isfinite(sum.imag());
      if (symmetric && i != j) M.complex_at(j, i) += mirror;
    } else {
      finite = std::isfinite(M.at(i, j) += v.real());
      if (symmetric && i != j) M.at(j, i) += mirror.real();
    }
    return finite;
  };
  auto overflowed = [&](int i, int j) {
    return "entries (" + std::to_string(i + 1) + "," + std::to_string(j + 1) +
           ") listed more than once add up beyond the largest double";
  };
  auto add = [&](int i, int j, std::complex<double> v, const std::string& where) {
    if (hermitian && i == j && v.imag() != 0) reader.fail("a hermitian matrix's diagonal must be real" + where);
    occupied.mark(i, j, v);
    if (!staging) {
      if (!add_to_matrix(i, j, v)) reader.fail(overflowed(i, j));
    } else if (!array) {
      staged.push_back({i, j, v, reader.line_number()});
    } else if (complex) {
      staged_complex_values.push_back(v);
    } else {
      staged_values.push_back(v.real());
    }
  };

  if (format == "array") {
    // Column-major; a symmetric or hermitian array stores the lower triangle only, a skew-symmetric
    // one the strictly lower.
    for (int j = 0; j < M.cols; ++j)
      for (int i = symmetric ? j + skew : 0; i < M.rows; ++i) {
        if (!reader.next_data_line(line))
          reader.fail("file ends before entry (" + std::to_string(i + 1) + "," + std::to_string(j + 1) + ")");
        std::istringstream fields(line);
        const std::string where = " in entry (" + std::to_string(i + 1) + "," + std::to_string(j + 1) + ")";
        add(i, j, value(fields, where), where);
        reader.expect_end(fields);
      }
  } else {
    for (long long k = 0; k < entries; ++k) {
      if (!reader.next_data_line(line))
        reader.fail("file ends after " + std::to_string(k) + " of " + std::to_string(entries) + " entries");
      std::istringstream fields(line);
      const long long i = reader.parse_int(fields, "row index");
      const long long j = reader.parse_int(fields, "column index");
      if (i < 1 || i > rows) reader.fail("row index " + std::to_string(i) + " out of range 1.." + std::to_string(rows));
      if (j < 1 || j > cols)
        reader.fail("column index " + std::to_string(j) + " out of range 1.." + std::to_string(cols));
      const std::string where = " in entry (" + std::to_string(i) + "," + std::to_string(j) + ")";
      // The format stores a symmetric matrix's lower triangle only; an entry above the diagonal
      // would be added twice (A(1,2) = 2 from a file listing both triangles).
      if (symmetric && i < j)
        reader.fail("entry (" + std::to_string(i) + "," + std::to_string(j) + ") is above the diagonal; a " + symmetry +
                    " file lists the lower triangle only");
      if (skew && i == j)
        reader.fail("entry (" + std::to_string(i) + "," + std::to_string(j) +
                    ") is on the diagonal; a skew-symmetric file lists the strictly lower triangle only (its diagonal "
                    "is zero)");
      const std::complex<double> v = value(fields, where);
      reader.expect_end(fields);
      add(static_cast<int>(i - 1), static_cast<int>(j - 1), v, where);
    }
  }
  if (reader.next_data_line(line)) reader.fail("more entries than the size line declares");
  occupied.refuse_an_empty_row_or_column(path);  // a staged file's before its matrix is allocated
  if (!regular && array && !symmetric) {
    M.values = std::move(staged_values);
    M.complex_values = std::move(staged_complex_values);
  } else if (!regular && array) {  // the lower triangle, column by column, and its mirror
    allocate();
    std::size_t k = 0;
    for (int j = 0; j < M.cols; ++j)
      for (int i = j + skew; i < M.rows; ++i, ++k)
        add_to_matrix(i, j, complex ? staged_complex_values[k] : std::complex<double>(staged_values[k], 0));
  } else if (!array && staging) {
    allocate();
    for (const Entry& e : staged)
      if (!add_to_matrix(e.row, e.col, e.value))
        throw InvalidArgument(path + ":" + std::to_string(e.line) + ": " + overflowed(e.row, e.col));
  }
  return M;
}

void DenseMatrix::make_complex() {
  if (is_complex) return;
  complex_values.assign(values.begin(), values.end());
  values.clear();
  values.shrink_to_fit();
  is_complex = true;
}

void write_matrix_market(const std::string& path, const DenseMatrix& M, const std::vector<std::string>& inputs) {
  write_output(path, inputs, [&](std::ostream& out) { write_matrix_market(out, M); });
}

void write_matrix_market(std::ostream& out, const DenseMatrix& M) {
  out << "%%MatrixMarket matrix array " << (M.is_complex ? "complex" : "real") << " general\n% written by hetlu\n"
      << M.rows << " " << M.cols << "\n";
  char buffer[64];
  const size_t count = static_cast<size_t>(M.rows) * M.cols;
  for (size_t k = 0; k < count; ++k) {
    if (M.is_complex)
      std::snprintf(buffer, sizeof buffer, "%.17g %.17g\n", M.complex_values[k].real(), M.complex_values[k].imag());
    else
      std::snprintf(buffer, sizeof buffer, "%.17g\n", M.values[k]);
    out << buffer;
  }
}

void write_text_file(const std::string& path, const std::string& text, const std::vector<std::string>& inputs) {
  write_output(path, inputs, [&](std::ostream& out) { out << text; });
}

}  // namespace hetlu::cli
