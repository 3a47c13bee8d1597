#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../common/temp_dir.hpp"
#include "cli/commands.hpp"
#include "cli/matrix_market.hpp"
#include "cli/report.hpp"

using namespace hetlu;

namespace {
std::string write(const test_support::TempDir& dir, const std::string& text) {
  const auto path = dir.file("m.mtx");
  std::ofstream(path) << text;
  return path;
}

std::string error_of(const std::string& path, const cli::DeclaredCheck& check = {}) {
  try {
    cli::read_matrix_market(path, cli::MatrixRole::any, check);
  } catch (const InvalidArgument& e) {
    return e.what();
  }
  return "no error";
}
}  // namespace

TEST(MatrixMarket, ReadsArrayColumnMajor) {
  test_support::TempDir dir;
  const auto M = cli::read_matrix_market(
      write(dir, "%%MatrixMarket matrix array real general\n% comment\n\n2 3\n1\n2\n3\n4\n5\n6.5e0\n"));
  EXPECT_EQ(M.rows, 2);
  EXPECT_EQ(M.cols, 3);
  EXPECT_EQ(M.values, (std::vector<double>{1, 2, 3, 4, 5, 6.5}));
}

TEST(MatrixMarket, ReadsCoordinateWithZerosFilledIn) {
  test_support::TempDir dir;
  const auto M =
      cli::read_matrix_market(write(dir, "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 4.0\n3 2 -1\n"));
  EXPECT_EQ(M.values, (std::vector<double>{4, 0, 0, 0, 0, -1, 0, 0, 0}));
}

TEST(MatrixMarket, ReadsSymmetricAndInteger) {
  test_support::TempDir dir;
  const auto M =
      cli::read_matrix_market(write(dir, "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 3\n2 1 7\n"));
  EXPECT_EQ(M.values, (std::vector<double>{3, 7, 7, 0}));
}

TEST(MatrixMarket, ErrorsNameTheLine) {
  test_support::TempDir dir;
  const std::string header = "%%MatrixMarket matrix coordinate real general\n";
  EXPECT_EQ(error_of(write(dir, header + "2 2 2\n1 1 1\n1 x 2\n")), dir.file("m.mtx") + ":4: bad column index 'x'");
  EXPECT_EQ(error_of(write(dir, header + "2 2 1\n3 1 1\n")), dir.file("m.mtx") + ":3: row index 3 out of range 1..2");
  EXPECT_EQ(error_of(write(dir, header + "2 2 3\n1 1 1\n")), dir.file("m.mtx") + ":3: file ends after 1 of 3 entries");
  EXPECT_EQ(error_of(write(dir, header + "2 2 1\n1 1 nan\n")),
            dir.file("m.mtx") + ":3: NaN in entry (1,1); the input must be finite");
  EXPECT_NE(error_of(write(dir, header + "2 2 1\n1 1 1e400\n")).find(":3: Inf or overflow"), std::string::npos);
  EXPECT_EQ(error_of(write(dir, header + "2 2 1\n1 1 1\n2 2 2\n")),
            dir.file("m.mtx") + ":4: more entries than the size line declares");
  EXPECT_EQ(error_of(write(dir, "hello\n")),
            dir.file("m.mtx") + ":1: not a Matrix Market file (the first line must start with %%MatrixMarket)");
  EXPECT_EQ(error_of(write(dir, "%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1\n")),
            dir.file("m.mtx") + ":1: field 'quaternion' is not supported (expected real, integer, complex or pattern)");
  EXPECT_EQ(error_of(write(dir, "")), dir.file("m.mtx") + ":0: empty file (expected a %%MatrixMarket header)");
  // A sixth word in the banner was ignored: the file was read as the five said, whatever the sixth meant.
  EXPECT_EQ(error_of(write(dir, "%%MatrixMarket matrix coordinate real general symmetric\n1 1 1\n1 1 1\n")),
            dir.file("m.mtx") + ":1: unexpected extra field 'symmetric'");
  EXPECT_EQ(error_of(dir.file("missing.mtx")), dir.file("missing.mtx") + ": no such file");
  std::filesystem::create_symlink("loop.mtx", dir.file("loop.mtx"));  // was said as "no such file"
  EXPECT_EQ(error_of(dir.file("loop.mtx")),
            dir.file("loop.mtx") + ": cannot be read (Too many levels of symbolic links)");
  EXPECT_EQ(error_of(write(dir, "%%MatrixMarket matrix array real general\r2 2\r1\r2\r3\r4\r")),
            dir.file("m.mtx") + ":1: lines end in a lone carriage return (CR): convert them to LF (or CR LF)");
  EXPECT_EQ(cli::read_matrix_market(write(dir, "%%MatrixMarket matrix array real general\r\n1 1\r\n5\r\n")).values,
            std::vector<double>{5});  // CR LF is fine
  // Sizes whose product or byte count would overflow 64 bits: too large, never "sizes must be >= 0".
  EXPECT_EQ(error_of(write(dir, "%%MatrixMarket matrix array real general\n3037000500 3037000500\n1\n")),
            dir.file("m.mtx") + ":2: matrix of 3037000500 x 3037000500 is too large");
  EXPECT_EQ(error_of(write(dir, header + "2 2 9223372036854775807\n1 1 1\n")).find(":2: the size line declares "),
            dir.file("m.mtx").size());
}

TEST(MatrixMarket, IntegerFilesHoldWholeNumbersAndNulBytesAreRefused) {
  test_support::TempDir dir;
  const std::string integer = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n";
  EXPECT_NE(error_of(write(dir, integer + "1 1 2.5\n")).find(":3: bad integer value '2.5'"), std::string::npos);
  EXPECT_NE(error_of(write(dir, integer + "1 1 99999999999999999999999\n")).find(":3: integer value"),
            std::string::npos);
  EXPECT_NE(error_of(write(dir, integer + "1 1 9007199254740993\n")).find("beyond 2^53"), std::string::npos);
  // A whole number beyond 2^53 that a double holds exactly is read (2^60 was refused).
  EXPECT_EQ(cli::read_matrix_market(write(dir, integer + "1 1 -1152921504606846976\n")).values,
            (std::vector<double>{-1152921504606846976.0, 0, 0, 0}));
  EXPECT_EQ(error_of(write(dir, integer + "1 1 2.5\n")).find("2^53"), std::string::npos);  // not a range problem
  EXPECT_NE(error_of(write(dir, integer + "1 1 1e3\n")).find("bad integer value"), std::string::npos);
  EXPECT_EQ(cli::read_matrix_market(write(dir, integer + "1 1 -42\n")).values, (std::vector<double>{-42, 0, 0, 0}));
  const std::string with_nul =
      std::string("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 2") + '\0' + "junk\n";
  EXPECT_NE(error_of(write(dir, with_nul)).find(":3: a NUL byte"), std::string::npos);
}

TEST(MatrixMarket, WriteRoundTripsExactly) {
  test_support::TempDir dir;
  cli::DenseMatrix M;
  M.rows = 2, M.cols = 2, M.values = {1.0 / 3, -2e-300, 1e300, 0.1};
  cli::write_matrix_market(dir.file("x.mtx"), M, {});
  EXPECT_EQ(cli::read_matrix_market(dir.file("x.mtx")).values, M.values);
  // Nothing but the file itself is left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(MatrixMarket, UnwritableOutputLeavesNoFile) {
  test_support::TempDir dir;
  cli::DenseMatrix M;
  M.rows = M.cols = 1, M.values = {1};
  EXPECT_THROW(cli::write_matrix_market(dir.file("no/such/folder/x.mtx"), M, {}), InvalidArgument);
  EXPECT_FALSE(std::filesystem::exists(dir.file("no")));
}

TEST(MatrixMarket, ReadsComplexGeneralSymmetricAndHermitian) {
  test_support::TempDir dir;
  using Z = std::complex<double>;
  auto M = cli::read_matrix_market(write(dir, "%%MatrixMarket matrix array complex general\n2 1\n1 -2\n3.5 0\n"));
  EXPECT_TRUE(M.is_complex);
  EXPECT_TRUE(M.values.empty());
  EXPECT_EQ(M.complex_values, (std::vector<Z>{{1, -2}, {3.5, 0}}));
  M = cli::read_matrix_market(
      write(dir, "%%MatrixMarket matrix coordinate complex symmetric\n2 2 2\n2 1 1 1\n2 2 0 3\n"));
  EXPECT_EQ(M.complex_values, (std::vector<Z>{{0, 0}, {1, 1}, {1, 1}, {0, 3}}));
  M = cli::read_matrix_market(write(dir, "%%MatrixMarket matrix array complex hermitian\n2 2\n4 0\n1 2\n5 0\n"));
  EXPECT_EQ(M.complex_values, (std::vector<Z>{{4, 0}, {1, 2}, {1, -2}, {5, 0}}));
}

// Skew-symmetric files list the strictly lower triangle and mirror it negated; pattern files give
// each listed entry 1, as SciPy's mmread reads them (both had been refused).
TEST(MatrixMarket, ReadsSkewSymmetricAndPattern) {
  test_support::TempDir dir;
  using Z = std::complex<double>;
  auto M = cli::read_matrix_market(
      write(dir, "%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 5\n3 2 -1\n"));
  EXPECT_EQ(M.values, (std::vector<double>{0, 5, 0, -5, 0, -1, 0, 1, 0}));
  M = cli::read_matrix_market(write(dir, "%%MatrixMarket matrix array integer skew-symmetric\n3 3\n1\n2\n3\n"));
  EXPECT_EQ(M.values, (std::vector<double>{0, 1, 2, -1, 0, 3, -2, -3, 0}));
  M = cli::read_matrix_market(write(dir, "%%MatrixMarket matrix array complex skew-symmetric\n2 2\n1 2\n"));
  EXPECT_EQ(M.complex_values, (std::vector<Z>{{0, 0}, {1, 2}, {-1, -2}, {0, 0}}));
  EXPECT_NE(error_of(write(dir, "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 5\n"))
                .find(":3: entry (1,1) is on the diagonal; a skew-symmetric file lists the strictly lower triangle"),
            std::string::npos);
  M = cli::read_matrix_market(write(dir, "%%MatrixMarket matrix coordinate pattern general\n2 2 3\n1 1\n2 1\n2 2\n"));
  EXPECT_EQ(M.values, (std::vector<double>{1, 1, 0, 1}));
  M = cli::read_matrix_market(write(dir, "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n2 1\n2 2\n"));
  EXPECT_EQ(M.values, (std::vector<double>{0, 1, 1, 1}));
  EXPECT_NE(error_of(write(dir, "%%MatrixMarket matrix array pattern general\n1 1\n\n"))
                .find("a pattern matrix must be in coordinate format"),
            std::string::npos);
  EXPECT_NE(error_of(write(dir, "%%MatrixMarket matrix coordinate pattern general\n2 2 1\n1 1 7\n"))
                .find(":3: unexpected extra field '7'"),
            std::string::npos);
}

TEST(MatrixMarket, RejectsMalformedComplexFiles) {
  test_support::TempDir dir;
  EXPECT_NE(error_of(write(dir, "%%MatrixMarket matrix array complex general\n1 1\n1\n"))
                .find("m.mtx:3: missing value in entry (1,1), its imaginary part"),
            std::string::npos);
  EXPECT_NE(
      error_of(write(dir, "%%MatrixMarket matrix array complex hermitian\n1 1\n1 1\n")).find("diagonal must be real"),
      std::string::npos);
  EXPECT_NE(error_of(write(dir, "%%MatrixMarket matrix array complex general\n1 1\n1 nan\n")).find("NaN"),
            std::string::npos);
  EXPECT_NE(error_of(write(dir, "%%MatrixMarket matrix array real hermitian\n1 1\n1\n")).find("symmetry 'hermitian'"),
            std::string::npos);
  EXPECT_NE(error_of(write(dir, "%%MatrixMarket matrix coordinate complex hermitian\n2 2 1\n1 2 1 1\n"))
                .find("above the diagonal"),
            std::string::npos);
}

TEST(MatrixMarket, WritesAndReadsBackComplexExactly) {
  test_support::TempDir dir;
  cli::DenseMatrix M;
  M.rows = 1, M.cols = 2, M.is_complex = true, M.complex_values = {{1.0 / 3, -2e-300}, {1e300, 0.1}};
  cli::write_matrix_market(dir.file("z.mtx"), M, {});
  EXPECT_EQ(cli::read_matrix_market(dir.file("z.mtx")).complex_values, M.complex_values);
}

namespace {
// This process's peak resident memory in bytes since the last reset_peak_memory (Linux's VmHWM).
long long peak_memory_bytes() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stoll(line.substr(6)) * 1024;
  return -1;
}
bool reset_peak_memory() {
  return static_cast<bool>(std::ofstream("/proc/self/clear_refs") << "5");
}

// The error reading `text` through a pipe (/dev/fd/N: no file size bounds what its header declares).
std::string error_through_pipe(const std::string& text) {
  int ends[2];
  if (pipe(ends) != 0) return "no pipe";
  const bool written = ::write(ends[1], text.data(), text.size()) == static_cast<ssize_t>(text.size());
  close(ends[1]);
  const std::string error = written ? error_of("/dev/fd/" + std::to_string(ends[0])) : "not written";
  close(ends[0]);
  return error;
}
}  // namespace

// A pipe's header declared 20000 x 20000 (3.2 GB) and one entry: the whole matrix was allocated
// and zeroed before the second entry was found missing (9 s, 3.1 GB; 100000 x 21474 took 43 s and
// 16.8 GB).
TEST(MatrixMarket, APipesHeaderAloneAllocatesNothingItDeclares) {
  if (!reset_peak_memory() || peak_memory_bytes() < 0) GTEST_SKIP() << "no /proc/self/clear_refs or VmHWM";
  const long long before = peak_memory_bytes();
  EXPECT_NE(error_through_pipe("%%MatrixMarket matrix array real general\n20000 20000\n1\n")
                .find(":3: file ends before entry (2,1)"),
            std::string::npos);
  EXPECT_NE(error_through_pipe("%%MatrixMarket matrix coordinate complex general\n20000 20000 2\n1 1 1 0\n")
                .find(":3: file ends after 1 of 2 entries"),
            std::string::npos);
  EXPECT_LT(peak_memory_bytes() - before, 64LL << 20) << "bytes held at the peak beyond those before the reads";
}

TEST(MatrixMarket, APipeReadsAsTheSameFileDoes) {
  test_support::TempDir dir;
  for (const std::string text : {"%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 1\n2 2 3\n3 3 4\n",
                                 "%%MatrixMarket matrix array complex hermitian\n2 2\n4 0\n1 2\n5 0\n",
                                 "%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n1 1 2\n2 2 5\n",
                                 "%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n"}) {
    const auto from_file = cli::read_matrix_market(write(dir, text));
    int ends[2];
    ASSERT_EQ(pipe(ends), 0);
    ASSERT_EQ(::write(ends[1], text.data(), text.size()), static_cast<ssize_t>(text.size()));
    close(ends[1]);
    const auto from_pipe = cli::read_matrix_market("/dev/fd/" + std::to_string(ends[0]));
    close(ends[0]);
    EXPECT_EQ(from_pipe.values, from_file.values) << text;
    EXPECT_EQ(from_pipe.complex_values, from_file.complex_values) << text;
  }
}

// Values the file holds but a double cannot: a sum of duplicates beyond the largest double was
// "A(1,1) is Inf" with no file or line; a nonzero below the least subnormal read as 0 silently.
TEST(MatrixMarket, DuplicatesThatOverflowAndValuesThatUnderflowAreNamed) {
  test_support::TempDir dir;
  const std::string header = "%%MatrixMarket matrix coordinate real general\n2 2 3\n";
  EXPECT_EQ(error_of(write(dir, header + "1 1 1e308\n2 2 1\n1 1 1e308\n")),
            dir.file("m.mtx") + ":5: entries (1,1) listed more than once add up beyond the largest double");
  EXPECT_EQ(
      error_of(write(dir, header + "1 1 1\n2 2 1e-400\n1 2 1\n")),
      dir.file("m.mtx") + ":4: underflow ('1e-400') in entry (2,2): nonzero, but below the least double (4.9e-324)");
  EXPECT_EQ(cli::read_matrix_market(write(dir, header + "1 1 1e-310\n2 2 0e-999\n1 2 -0\n")).values[0], 1e-310);
}

// A system's A that a coordinate file leaves with an empty row or column is singular before anything
// is allocated: a 66-byte file declaring 20000 x 20000 took 6.3 GB and two minutes to be found so.
// Explicit zeros are no entry; a symmetric file's mirror is one. A right-hand side is read as it is.
TEST(MatrixMarket, ASystemWithAnEmptyRowOrColumnIsSingularBeforeItIsAllocated) {
  test_support::TempDir dir;
  auto singular_error = [&](const std::string& text) {
    try {
      cli::read_matrix_market(write(dir, text), cli::MatrixRole::system);
    } catch (const cli::CommandFailure& e) {
      EXPECT_EQ(e.exit_code, cli::exit_singular);
      return std::string(e.what());
    }
    return std::string("read");
  };
  const std::string m = dir.file("m.mtx");
  EXPECT_EQ(singular_error("%%MatrixMarket matrix coordinate real general\n20000 20000 1\n1 1 1\n"),
            m + ": the matrix is singular: column 2 has no nonzero entry in the file; no solution written");
  EXPECT_EQ(singular_error("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 1 1\n2 2 0\n3 3 1\n"),
            m + ": the matrix is singular: column 2 has no nonzero entry in the file; no solution written");
  EXPECT_EQ(singular_error("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n1 2 1\n"),
            m + ": the matrix is singular: row 2 has no nonzero entry in the file; no solution written");
  EXPECT_EQ(singular_error("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n3 2 1\n3 3 1\n"), "read");
  EXPECT_EQ(singular_error("%%MatrixMarket matrix coordinate complex general\n2 2 2\n1 2 0 1\n2 1 1 0\n"), "read");
  EXPECT_EQ(singular_error("%%MatrixMarket matrix array real general\n2 2\n0\n0\n0\n0\n"), "read");
  const auto b = cli::read_matrix_market(write(dir, "%%MatrixMarket matrix coordinate real general\n3 1 1\n2 1 5\n"));
  EXPECT_EQ(b.values, (std::vector<double>{0, 5, 0}));
}

// A caller's check sees the declared matrix before anything is allocated, and its refusal stands.
TEST(MatrixMarket, ACallersCheckSeesTheDeclaredMatrixFirst) {
  test_support::TempDir dir;
  std::vector<cli::DeclaredMatrix> seen;
  auto refuse = [&](const cli::DeclaredMatrix& declared) {
    seen.push_back(declared);
    throw InvalidArgument("refused before allocation");
  };
  for (const std::string& text : {std::string("%%MatrixMarket matrix coordinate complex general\n30000 30000 2\n1 1 1 "
                                              "0\n30000 30000 1 0\n"),
                                  std::string("%%MatrixMarket matrix array real general\n2 1\n1\n2\n")}) {
    EXPECT_EQ(error_of(write(dir, text), refuse), "refused before allocation");
  }
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].rows, 30000);
  EXPECT_EQ(seen[0].cols, 30000);
  EXPECT_TRUE(seen[0].is_complex);
  EXPECT_EQ(seen[1].rows, 2);
  EXPECT_EQ(seen[1].cols, 1);
  EXPECT_FALSE(seen[1].is_complex);
}

// A read error (EIO) names the file and line, where libstdc++'s "basic_filebuf::underflow error
// reading the file" named neither. /proc/self/mem reads EIO at offset 0 (nothing is mapped there).
TEST(MatrixMarket, AReadErrorNamesTheFile) {
  EXPECT_EQ(error_of("/proc/self/mem"), "/proc/self/mem:1: read error (Input/output error)");
}

// `hetlu probe` says when its probes were noisy: a busy loop beside it gave a 40 % spread and
// panel rates ten times low, reported without a word.
TEST(ProbeReport, ABusyMachinesSpreadIsSaid) {
  MachineProfile profile;
  profile.rates_measured = true;
  profile.measurements = {{"dgemm_all_cores", 100, 0.02, "GFlop/s", "n=2048"}};
  EXPECT_EQ(cli::describe(profile).find("machine was busy"), std::string::npos) << cli::describe(profile);
  profile.measurements.push_back({"panel_gepp", 0.2, 0.40, "GFlop/s", "threads=2"});  // small: noisy anyway
  EXPECT_EQ(cli::describe(profile).find("machine was busy"), std::string::npos) << cli::describe(profile);
  profile.measurements.push_back({"dgemm_all_cores", 60, 0.40, "GFlop/s", "n=2048"});
  EXPECT_NE(cli::describe(profile).find("dgemm_all_cores varied by 40 %"), std::string::npos) << cli::describe(profile);
}
