// The hetlu command under mpirun (#18): a Matrix Market system solved on 1, 2 and 4 ranks and checked
// against the answer, a singular matrix, bad input reported once by rank 0 with a non-zero status,
// calibrate storing what it tuned and recommend --ranks answering from it, bench in one run.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>

#include "../common/temp_dir.hpp"

namespace {

struct Result {
  int exit_code = -1;
  std::string out, err;
};

std::string slurp(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// hetlu under mpirun with `ranks` ranks (0: without mpirun); stdout and stderr captured.
Result run(int ranks, const std::string& args, const hetlu::test_support::TempDir& dir) {
  const std::string out = dir.file("stdout.txt"), err = dir.file("stderr.txt");
  const std::string launcher =
      ranks > 0 ? std::string("'") + HETLU_MPIEXEC + "' --oversubscribe -n " + std::to_string(ranks) + " " : "";
  // OpenMPI refuses root (CI may be) without its two variables; one BLAS thread per rank.
  const std::string environment = "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 ";
  const std::string command = environment + launcher + "'" + HETLU_COMMAND + "' " + args + " --db '" +
                              dir.file("t.db") + "' >'" + out + "' 2>'" + err + "'";
  const int status = std::system(command.c_str());
  Result r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  r.out = slurp(out), r.err = slurp(err);
  return r;
}

// Each rank's exit status of hetlu under mpirun with `ranks` ranks, in rank order: a wrapper
// records each (mpirun's own status is one rank's, and launchers read every rank's).
std::vector<int> exit_codes_of_every_rank(int ranks, const std::string& args, const hetlu::test_support::TempDir& dir) {
  const std::string wrapper = dir.file("record_exit.sh");
  std::ofstream(wrapper) << "#!/bin/sh\n\"$@\" >/dev/null 2>&1\necho $? > '" << dir.file("exit.")
                         << "'$OMPI_COMM_WORLD_RANK\n";
  std::filesystem::permissions(wrapper, std::filesystem::perms::owner_all);
  const std::string command =
      std::string("OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMP_NUM_THREADS=1 '") + HETLU_MPIEXEC +
      "' --oversubscribe -n " + std::to_string(ranks) + " '" + wrapper + "' '" + HETLU_COMMAND + "' " + args +
      " --db '" + dir.file("t.db") + "' >/dev/null 2>&1";
  [[maybe_unused]] const int status = std::system(command.c_str());
  std::vector<int> codes;
  for (int r = 0; r < ranks; ++r) {
    std::ifstream in(dir.file("exit." + std::to_string(r)));
    int code = -1;
    in >> code;
    codes.push_back(code);
  }
  return codes;
}

// The lines of stderr that hetlu wrote (mpirun adds its own banner on a failure).
std::vector<std::string> hetlu_errors(const std::string& err) {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("hetlu: error:", 0) == 0) lines.push_back(line);
  return lines;
}

class DistributedCli : public ::testing::Test {
 protected:
  hetlu::test_support::TempDir dir;
  std::string A, B;
  std::vector<double> a, b;
  int n = 57;
  void SetUp() override {
    std::mt19937 rng(7);
    std::uniform_real_distribution<double> u(-1, 1);
    a.resize(n * n), b.resize(n * 2);
    for (auto& x : a) x = u(rng);
    for (auto& x : b) x = u(rng);
    A = write("A.mtx", n, n, a), B = write("B.mtx", n, 2, b);
  }
  std::string write(const std::string& name, int rows, int cols, const std::vector<double>& values) {
    std::ofstream f(dir.file(name));
    f << "%%MatrixMarket matrix array real general\n" << rows << " " << cols << "\n";
    f.precision(17);
    for (double v : values) f << v << "\n";
    return dir.file(name);
  }
  // max_i |b - A x|_i / (|A| |x| + |b|)_i over both right-hand sides.
  double omega(const std::vector<double>& x) const {
    double worst = 0;
    for (int c = 0; c < 2; ++c)
      for (int i = 0; i < n; ++i) {
        double r = b[i + c * n], s = std::abs(r);
        for (int j = 0; j < n; ++j) r -= a[i + j * n] * x[j + c * n], s += std::abs(a[i + j * n] * x[j + c * n]);
        worst = std::max(worst, std::abs(r) / s);
      }
    return worst;
  }
};

TEST_F(DistributedCli, SolvesAMatrixMarketFileOnEveryRankCount) {
  for (int ranks : {1, 2, 4}) {
    const auto r = run(ranks, "solve '" + A + "' '" + B + "' --distributed --json", dir);
    ASSERT_EQ(r.exit_code, 0) << ranks << " ranks: " << r.err;
    const auto j = nlohmann::json::parse(r.out);  // one document: rank 0 alone prints
    EXPECT_EQ(j["ranks"], ranks);
    EXPECT_EQ(j["plan"]["grid_rows"].get<int>() * j["plan"]["grid_cols"].get<int>(), ranks);
    EXPECT_LT(omega(j["x"].get<std::vector<double>>()), 30 * (n + 1) * 1.1e-16) << ranks;
    EXPECT_LT(j["backward_error"].get<double>(), 30 * (n + 1) * 1.1e-16);
  }
  // A grid, a block size and threads given; single precision; X written to a file.
  const auto r = run(4,
                     "solve '" + A + "' '" + B +
                         "' --distributed --grid 4x0 --nb 5 --threads-per-rank 1 "
                         "--precision single -o '" +
                         dir.file("X.mtx") + "'",
                     dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("4 x 1 grid, nb = 5"), std::string::npos) << r.err;
  EXPECT_NE(slurp(dir.file("X.mtx")).find(std::to_string(n) + " 2"), std::string::npos);
  // Without mpirun: one rank.
  const auto alone = run(0, "solve '" + A + "' --distributed --json", dir);
  ASSERT_EQ(alone.exit_code, 0) << alone.err;
  EXPECT_EQ(nlohmann::json::parse(alone.out)["ranks"], 1);
}

// How singular A is, estimated on rank 0 from the factors gathered back (the pivots stay on the
// grid): a matrix singular to working precision exits 5 with X written, as hetlu solve does, on
// every rank count and grid; a random one exits 0 with numpy's 1 / kappa_1 within a factor 3.
TEST_F(DistributedCli, SaysAMatrixIsSingularToWorkingPrecision) {
  auto dependent = a;
  for (int i = 0; i < n; ++i) dependent[i + (n - 1) * n] = a[i] + a[i + n];  // last column = first + second
  std::vector<double> consistent(n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) consistent[i] += dependent[i + j * n];
  const std::string S = write("S.mtx", n, n, dependent), b1 = write("b1.mtx", n, 1, consistent);
  for (int ranks : {1, 2, 4})
    for (const char* precision : {"double", "single"}) {
      const auto r =
          run(ranks, "solve '" + S + "' '" + b1 + "' --distributed --json --nb 8 --precision " + precision, dir);
      ASSERT_EQ(r.exit_code, 5) << ranks << " " << precision << ": " << r.err;
      if (ranks == 4 && std::string(precision) == "double") {  // on every rank, not rank 0's alone
        EXPECT_EQ(exit_codes_of_every_rank(ranks, "solve '" + S + "' '" + b1 + "' --distributed --nb 8", dir),
                  std::vector<int>(4, 5));
      }
      const auto j = nlohmann::json::parse(r.out);
      EXPECT_TRUE(j["singular_to_working_precision"].get<bool>());
      EXPECT_LT(j["rcond"].get<double>(), std::string(precision) == "double" ? 1.2e-16 : 6e-8);
      EXPECT_NE(r.err.find("singular to working precision"), std::string::npos) << r.err;
    }
  // Rows scaled by 10^(-12..12): A's own rcond is about 1e-25, R A's (rows equilibrated, as hetlu
  // solve and dgesvx) is not, and x is right: exit 0, as hetlu solve says it.
  auto scaled = a;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) scaled[i + j * n] *= std::pow(10.0, -12.0 + 24.0 * i / (n - 1));
  std::vector<double> rb(n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) rb[i] += scaled[i + j * n];
  const std::string R = write("R.mtx", n, n, scaled), rb1 = write("rb.mtx", n, 1, rb);
  for (const char* precision : {"double", "single"}) {
    const auto r = run(2, "solve '" + R + "' '" + rb1 + "' --distributed --json --nb 8 --precision " + precision, dir);
    ASSERT_EQ(r.exit_code, 0) << precision << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_GT(j["rcond"].get<double>(), 1e-5) << precision;
    for (double x : j["x"].get<std::vector<double>>())
      EXPECT_NEAR(x, 1.0, std::string(precision) == "double" ? 1e-10 : 1e-3) << precision;
  }
  const auto resident = run(2, "solve '" + S + "' '" + b1 + "' --distributed --resident host:1 --json --nb 8", dir);
  EXPECT_EQ(resident.exit_code, 5) << resident.err;  // its factors come back as p?getrf's
  const auto fine = run(4, "solve '" + A + "' '" + B + "' --distributed --json --nb 8", dir);
  ASSERT_EQ(fine.exit_code, 0) << fine.err;
  const auto j = nlohmann::json::parse(fine.out);
  EXPECT_FALSE(j["singular_to_working_precision"].get<bool>());
  const double rcond = j["rcond"].get<double>();
  EXPECT_GT(rcond, 1e-5);  // kappa_1 of a random 57 x 57 matrix is about 1e3 to 1e4
  EXPECT_LT(rcond, 1e-1);
}

TEST_F(DistributedCli, ColumnsNearTheEndsOfTheRangeAreScaledToo) {
  // Columns 10^-165 .. 10^165: with R alone the small columns underflowed (exit 3, "exactly
  // singular", or 4), as hetlu solve's R A C solves them. x = 1 / c_j, right to 1e-12; R A's rcond
  // counts the columns' spread, and dgerfs' forward error bound clears it, as in hetlu solve: exit 0
  // (exit 5 before the bound came to --distributed).
  auto graded = a;
  std::vector<double> x(n), graded_b(n, 0.0);
  for (int j = 0; j < n; ++j) {
    const double c = std::pow(10.0, -165.0 + 330.0 * j / (n - 1));
    for (int i = 0; i < n; ++i) graded[i + j * n] *= c;
    x[j] = 1 / c;
  }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) graded_b[i] += graded[i + j * n] * x[j];
  const std::string G = write("G.mtx", n, n, graded), gb = write("gb.mtx", n, 1, graded_b);
  for (int ranks : {1, 2}) {
    const auto r = run(ranks, "solve '" + G + "' '" + gb + "' --distributed --json --nb 8", dir);
    ASSERT_EQ(r.exit_code, 0) << ranks << ": " << r.err;
    const auto report = nlohmann::json::parse(r.out);
    EXPECT_LT(report["rcond"].get<double>(), 1e-16);
    EXPECT_LE(report["forward_error_bound"].get<double>(), 0.01);
    EXPECT_FALSE(report["singular_to_working_precision"].get<bool>());
    const auto X = report["x"].get<std::vector<double>>();
    for (int j = 0; j < n; ++j) EXPECT_NEAR(X[j] / x[j], 1.0, 1e-12) << ranks << " x_" << j;
  }
  // omega as hetlu solve measures it: |A| |x| overflowed double here (backward error inf, exit 4).
  const std::string E = write("E.mtx", 2, 2, {1e300, 1, 1e300, 2}), eb = write("eb.mtx", 2, 1, {0, -1e10});
  const auto r = run(1, "solve '" + E + "' '" + eb + "' --distributed --json", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(nlohmann::json::parse(r.out)["backward_error"].get<double>(), 1e-15);
}

// A row near the bottom of the range (all 1e-309) with an ordinary b: R b overflowed, and the
// solve was refused as "B(1,1) is Inf", an input that was finite. Solved now, A's rows as read, X
// written with its backward error; n = 40, x about 2.5e307.
TEST_F(DistributedCli, ARowNearTheBottomOfTheRangeIsNotRefused) {
  const int m = 40;
  std::vector<double> spread(m * m, 0.0);  // row 1: 1e-309 sum x = 1; row i: x_i - x_1 = 1
  for (int j = 0; j < m; ++j) spread[0 + j * m] = 1e-309;
  for (int i = 1; i < m; ++i) spread[i + 0 * m] = -1, spread[i + i * m] = 1;
  const std::string S = write("S.mtx", m, m, spread);
  const auto r = run(2, "solve '" + S + "' --distributed --json", dir);
  EXPECT_TRUE(r.exit_code == 0 || r.exit_code == 5) << r.err;  // 5: rcond of A as read says unreliable
  EXPECT_EQ(r.err.find("is Inf"), std::string::npos) << r.err;
  if (r.exit_code == 0 || r.exit_code == 5) {
    EXPECT_LT(nlohmann::json::parse(r.out)["backward_error"].get<double>(), 1e-13);
  }
}

// Every entry subnormal (1e-310 (G + 5 I), kappa of 2^1030 A about 100) with an ordinary b: x
// overflows. R b overflowed too, and A as read went in instead: p?getf2's reciprocals of subnormal
// pivots made a 2 x 2 grid call it "exactly singular" (exit 3) where other grids said "not finite"
// (a hostile test). b goes in scaled down by a power of two now, x comes back scaled up: exit 4 on
// every grid and every rank.
TEST_F(DistributedCli, ASubnormalMatrixWhoseSolutionOverflowsIsNotCalledSingular) {
  const int m = 40;
  std::mt19937 rng(21);
  std::normal_distribution<double> normal;
  std::vector<double> tiny(m * m), ordinary(m);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) tiny[i + j * m] = (normal(rng) + (i == j ? 5 : 0)) * 1e-310;
  for (auto& v : ordinary) v = normal(rng);
  const std::string T = write("T.mtx", m, m, tiny), tb = write("tb.mtx", m, 1, ordinary);
  for (const char* grid : {"2x2", "4x1", "1x4"}) {
    const auto codes = exit_codes_of_every_rank(
        4, "solve '" + T + "' '" + tb + "' -o '" + dir.file("X.mtx") + "' --distributed --nb 4 --grid " + grid, dir);
    EXPECT_EQ(codes, std::vector<int>(4, 4)) << grid;
  }
  // The same A with b scaled so that x is finite: solved.
  for (auto& v : ordinary) v *= 1e-300;
  write("tb.mtx", m, 1, ordinary);
  const auto r = run(4, "solve '" + T + "' '" + tb + "' --distributed --json --nb 4 --grid 2x2", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(nlohmann::json::parse(r.out)["backward_error"].get<double>(), 1e-13);
}

// R b beyond the range while x is finite: row 0 of A is 2^-1000 (1, ..., 1), so R scales it by
// 2^1000 and R b's first entry (3.7e7 2^1000) overflows, while x = 1e307 (1, ..., 1) is finite. b
// goes in scaled down by a power of two and x comes back scaled up, right to working precision on
// every rank count and grid.
TEST_F(DistributedCli, ARightHandSideThatEquilibrationWouldOverflowIsScaledAndSolved) {
  const int m = 40;
  std::mt19937 rng(3);
  std::normal_distribution<double> normal;
  std::vector<double> a_(m * m), x_(m, 1e307), b_(m, 0.0);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) a_[i + j * m] = i == 0 ? std::ldexp(1.0, -1000) : (i == j) + 0.1 * normal(rng);
  for (int j = 0; j < m; ++j)
    for (int i = 0; i < m; ++i) b_[i] += a_[i + j * m] * x_[j];
  ASSERT_GT(std::ldexp(b_[0], 1000), std::numeric_limits<double>::max());  // R b overflows without the shift
  const std::string S = write("S.mtx", m, m, a_), sb = write("sb.mtx", m, 1, b_);
  for (const auto& [ranks, grid] : std::vector<std::pair<int, std::string>>{{1, "1x1"}, {2, "1x2"}, {4, "2x2"}}) {
    const auto r = run(ranks, "solve '" + S + "' '" + sb + "' --distributed --json --nb 4 --grid " + grid, dir);
    ASSERT_EQ(r.exit_code, 0) << grid << ": " << r.err;
    const auto x = nlohmann::json::parse(r.out)["x"].get<std::vector<double>>();
    ASSERT_EQ(x.size(), static_cast<std::size_t>(m));
    for (int i = 0; i < m; ++i) EXPECT_NEAR(x[i] / 1e307, 1.0, 1e-12) << grid << ", x(" << i + 1 << ")";
  }
}

TEST_F(DistributedCli, ReportsBadInputOnceWithANonZeroStatus) {
  std::vector<double> singular(9, 1.0);
  const auto S = write("S.mtx", 3, 3, singular);
  const auto s = run(4, "solve '" + S + "' --distributed", dir);
  EXPECT_EQ(s.exit_code, 3) << s.err;
  ASSERT_EQ(hetlu_errors(s.err).size(), 1u) << s.err;
  EXPECT_NE(hetlu_errors(s.err)[0].find("singular"), std::string::npos);

  // In single precision: a matrix singular there only says so, with double to use instead.
  const auto in_single =
      run(2, "solve '" + write("N.mtx", 2, 2, {1, 1, 1, 1 + 1e-10}) + "' --distributed --precision single", dir);
  EXPECT_EQ(in_single.exit_code, 3) << in_single.err;
  ASSERT_EQ(hetlu_errors(in_single.err).size(), 1u) << in_single.err;
  EXPECT_NE(hetlu_errors(in_single.err)[0].find("singular in single precision"), std::string::npos) << in_single.err;
  EXPECT_NE(hetlu_errors(in_single.err)[0].find("--precision double"), std::string::npos) << in_single.err;

  // In single precision: a matrix below its range became zeros (said so, with double to use
  // instead), and one beyond it became Inf.
  for (double scale : {1e-300, 1e300}) {
    auto scaled = a;
    for (auto& x : scaled) x *= scale;
    const auto out = run(2, "solve '" + write("R.mtx", n, n, scaled) + "' --distributed --precision single", dir);
    EXPECT_EQ(out.exit_code, scale < 1 ? 3 : 1) << out.err;
    ASSERT_EQ(hetlu_errors(out.err).size(), 1u) << out.err;
    EXPECT_NE(hetlu_errors(out.err)[0].find(scale < 1 ? "below single precision's range" : "beyond single"),
              std::string::npos)
        << out.err;
    EXPECT_NE(hetlu_errors(out.err)[0].find("--precision double"), std::string::npos) << out.err;
  }

  // A bad file is 1; a bad command line, or one that contradicts the ranks mpirun started (--grid
  // 3x1 on 2: it was 1), is 2. Each said once, by rank 0, every time (mpirun ended rank 0 before it
  // had said a usage error the others met first in 4 of 50 runs).
  const std::pair<std::string, int> failures[] = {{"solve '" + dir.file("missing.mtx") + "' --distributed", 1},
                                                  {"solve '" + A + "' --distributed --grid 3x1", 2},
                                                  {"bench --distributed -n 8 --grid 1x3", 2},
                                                  {"solve '" + A + "' --distributed --grid 2y", 2},
                                                  {"solve '" + A + "' --distributed --solver calu", 2},
                                                  {"solve '" + A + "' --distributed --precision mixed", 2},
                                                  {"solve '" + A + "' --distributed --grid ''", 2},
                                                  {"solve '" + A + "' --distributed --resident ''", 2},
                                                  {"solve '" + A + "' --distributed --grid 1048576x1", 2},
                                                  {"solve '" + A + "' --distributed --no-such-option", 2},
                                                  {"solve '" + A + "' '" + dir.file("S.mtx") + "' --distributed", 1}};
  for (const auto& [args, code] : failures) {
    const auto r = run(2, args, dir);
    EXPECT_EQ(r.exit_code, code) << args << ": " << r.err;
    EXPECT_EQ(hetlu_errors(r.err).size(), 1u) << args << ": " << r.err;
  }
  // The output is never clobbered onto an input.
  const auto clobber = run(2, "solve '" + A + "' --distributed -o '" + A + "'", dir);
  EXPECT_NE(clobber.exit_code, 0);
  EXPECT_NE(slurp(A).find("%%MatrixMarket"), std::string::npos);
  // Nor onto the database (run() passes --db t.db), by its name or a link to it.
  { std::ofstream(dir.file("t.db")) << "not yet a database"; }
  std::filesystem::create_symlink(dir.file("t.db"), dir.file("t-link"));
  for (const std::string& output : {dir.file("t.db"), dir.file("t-link")}) {
    const auto onto_db = run(2, "solve '" + A + "' --distributed -o '" + output + "'", dir);
    EXPECT_NE(onto_db.exit_code, 0) << output;
    ASSERT_EQ(hetlu_errors(onto_db.err).size(), 1u) << onto_db.err;
    EXPECT_NE(hetlu_errors(onto_db.err)[0].find("which this command reads"), std::string::npos) << onto_db.err;
    EXPECT_EQ(slurp(dir.file("t.db")), "not yet a database");
  }
  std::filesystem::remove(dir.file("t-link"));
  std::filesystem::remove(dir.file("t.db"));
  // A size that cannot fit: the memory check, made by every rank before MPI starts, said once.
  const auto huge = run(2, "bench --distributed -n 2000000", dir);  // 29 TiB
  EXPECT_EQ(huge.exit_code, 1) << huge.err;
  EXPECT_EQ(hetlu_errors(huge.err).size(), 1u) << huge.err;
  const auto needs = run(0, "solve '" + A + "' --grid 2x1", dir);
  EXPECT_EQ(needs.exit_code, 2);
}

TEST_F(DistributedCli, CalibratesStoresAndRecommends) {
  const auto before = run(0, "recommend --ranks 2 -n 300 --json", dir);
  ASSERT_EQ(before.exit_code, 0) << before.err;
  EXPECT_NE(nlohmann::json::parse(before.out)["source"], "tuned");

  const auto c = run(2, "calibrate --distributed --sizes 300 --candidates 2 --reps 1 --json", dir);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const auto j = nlohmann::json::parse(c.out);
  EXPECT_EQ(j["ranks"], 2);
  EXPECT_GT(j["network"]["bandwidth_bytes_per_second"].get<double>(), 0);
  EXPECT_EQ(j["cpu_rates"], "datasheet");  // no probe stored yet: said (it priced 16 ranks 1.5x fast once)
  ASSERT_GE(j["trials"].size(), 2u);       // the model's best two, and the defaults unless among them
  double best = 1e300;
  for (const auto& t : j["trials"]) best = std::min(best, t["median_seconds"].get<double>());

  const auto after = run(0, "recommend --ranks 2 -n 300 --json --explain", dir);
  ASSERT_EQ(after.exit_code, 0) << after.err;
  const auto rec = nlohmann::json::parse(after.out);
  EXPECT_EQ(rec["source"], "tuned");
  EXPECT_EQ(rec["grid_rows"].get<int>() * rec["grid_cols"].get<int>(), 2);
  EXPECT_GT(rec["predicted_seconds"].get<double>(), 0);
  EXPECT_NE(rec["network"].get<std::string>().find("measured on 2 ranks"), std::string::npos);

  // A second calibration reuses what is stored: every configuration the first measured, and only
  // those. It probes the network again, and where the probe moved (a noisy machine), the model's best
  // two may differ from the first run's: those are measured (a ctest run failed when it expected
  // every row reused).
  ASSERT_EQ(run(0, "probe --gemm-size 64", dir).exit_code, 0);  // the model's rates measured from now on
  // A loaded machine's all-cores probe below one core's (the model takes one core's) is still a probe:
  // CI's once was called the datasheet's.
  const std::string slowed =
      "sqlite3 '" + dir.file("t.db") + "' \"UPDATE probe_results SET value = 1 WHERE name = 'dgemm_all_cores'\"";
  ASSERT_EQ(std::system(slowed.c_str()), 0);
  const auto again = run(2, "calibrate --distributed --sizes 300 --candidates 2 --reps 1 --json", dir);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(nlohmann::json::parse(again.out)["cpu_rates"], "probed");
  auto configuration = [](const nlohmann::json& t) {
    const auto& p = t["plan"];
    return p["grid_rows"].dump() + "x" + p["grid_cols"].dump() + " " + p["nb"].dump() + " " +
           p["threads_per_rank"].dump();
  };
  std::set<std::string> measured_first;
  for (const auto& t : j["trials"]) measured_first.insert(configuration(t));
  int reused = 0;
  for (const auto parsed = nlohmann::json::parse(again.out); const auto& t : parsed["trials"]) {
    EXPECT_EQ(t["stored_before"].get<bool>(), measured_first.count(configuration(t)) == 1) << t.dump();
    reused += t["stored_before"].get<bool>();
  }
  EXPECT_GE(reused, 1);  // the defaults, measured in every run

  // A tuned block wider than the matrix (an import or a hand edit: ScaLAPACK refused nb = 2e9
  // with a message of its own on every rank) is the matrix's width, whatever the source.
  const std::string edit = "sqlite3 '" + dir.file("t.db") +
                           "' \"UPDATE distributed_trials SET nb = 2000000000, median_s = 1e-9, status = 'ok' "
                           "WHERE id = (SELECT min(id) FROM distributed_trials)\"";
  ASSERT_EQ(std::system(edit.c_str()), 0);
  const auto wide = nlohmann::json::parse(run(0, "recommend --ranks 2 -n 300 --json", dir).out);
  EXPECT_EQ(wide["source"], "tuned");
  EXPECT_EQ(wide["nb"], 300);

  // A cluster of a described machine: the model alone.
  const auto cluster = run(0,
                           "recommend --ranks 16 -n 100000 --json --machine '" HETLU_SOURCE_DIR
                           "/configs/machines/epyc-7763x2-hdr-node.yaml'",
                           dir);
  ASSERT_EQ(cluster.exit_code, 0) << cluster.err;
  const auto k = nlohmann::json::parse(cluster.out);
  EXPECT_EQ(k["source"], "model");
  EXPECT_EQ(k["ranks_per_node"], 1);
  EXPECT_EQ(k["grid_rows"].get<int>() * k["grid_cols"].get<int>(), 16);
  EXPECT_EQ(k["fits_memory"], true);  // 4.7 GB a node of its 512
  EXPECT_NEAR(k["bytes_per_node"].get<double>(), 8.0 * 1e10 / 16, 0.01 * 8e10 / 16);
  // An order no node of it holds (8 TB over 4 nodes of 512 GB): said, and still priced.
  const auto huge = run(0,
                        "recommend --ranks 4 -n 1000000 --json --machine '" HETLU_SOURCE_DIR
                        "/configs/machines/epyc-7763x2-hdr-node.yaml'",
                        dir);
  ASSERT_EQ(huge.exit_code, 0) << huge.err;
  EXPECT_EQ(nlohmann::json::parse(huge.out)["fits_memory"], false);
  EXPECT_NE(huge.err.find("would not fit"), std::string::npos) << huge.err;
  EXPECT_NE(huge.err.find("more than the 476.8 GiB of a node"), std::string::npos) << huge.err;
  // This machine as the node (hwloc's installed memory): 16 TB on 2 ranks of it is said too.
  const auto here = run(0, "recommend --ranks 2 -n 2000000 --json", dir);
  ASSERT_EQ(here.exit_code, 0) << here.err;
  EXPECT_EQ(nlohmann::json::parse(here.out)["fits_memory"], false);
  EXPECT_NE(here.err.find("more than this node's"), std::string::npos) << here.err;
  EXPECT_EQ(run(0, "recommend --ranks 2 --ranks-per-node 3 -n 10", dir).exit_code, 2);
}

TEST_F(DistributedCli, BenchesTheTunedPlanAgainstTheDefaults) {
  const auto r = run(2, "bench --distributed -n 200 --reps 1 --json --threads-per-rank 1", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["hetlu"]["info"], 0);
  EXPECT_EQ(j["defaults"]["plan"]["nb"], 64);
  EXPECT_GT(j["speedup_over_defaults"].get<double>(), 0);
  EXPECT_GT(j["hetlu"]["plan"]["predicted_seconds"].get<double>(), 0);
  // The device-resident variant in the same run, on a host team here, with its phases and price.
  EXPECT_EQ(j["resident"]["info"], 0);
  EXPECT_EQ(j["resident"]["device"], "host:1");
  EXPECT_GT(j["resident"]["phases"]["update"].get<double>(), 0);
  EXPECT_GT(j["resident"]["phases"]["link_bytes"].get<double>(), 200.0 * 200 * 8 / 2);  // at least its part once
  EXPECT_GT(j["resident"]["plan"]["predicted_seconds"].get<double>(), 0);
}

TEST_F(DistributedCli, SolvesWithEachRanksPartOnItsDevice) {
  for (int ranks : {1, 2, 4}) {
    const auto r = run(ranks, "solve '" + A + "' '" + B + "' --distributed --resident host:1 --nb 8 --json", dir);
    ASSERT_EQ(r.exit_code, 0) << ranks << " ranks: " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["engine"], "resident on host:1");
    EXPECT_LT(omega(j["x"].get<std::vector<double>>()), 30 * (n + 1) * 1.1e-16) << ranks;
  }
  std::vector<double> singular(9, 1.0);
  const auto s = run(2, "solve '" + write("S.mtx", 3, 3, singular) + "' --distributed --resident host:1", dir);
  EXPECT_EQ(s.exit_code, 3) << s.err;
  EXPECT_EQ(hetlu_errors(s.err).size(), 1u) << s.err;
  for (const char* device : {"gpu", "host:1,host:1", "host:0"}) {  // one line, a usage error
    const auto bad = run(2, "solve '" + A + "' --distributed --resident " + std::string(device), dir);
    EXPECT_EQ(bad.exit_code, 2) << device << ": " << bad.err;
    EXPECT_EQ(hetlu_errors(bad.err).size(), 1u) << device << ": " << bad.err;
  }
  EXPECT_EQ(run(0, "solve '" + A + "' --resident host:1", dir).exit_code, 2);  // needs --distributed
}

}  // namespace
