// hetlu::distributed under mpirun (#18): every rank runs this; the root checks each answer. Systems
// of several orders (block sizes that do not divide them), right-hand-side counts, both precisions,
// the grid chosen and given, a singular matrix, bad arguments refused on every rank alike.
// Prints one row per case on the root; exits non-zero on every rank when any case failed.
#include <mpi.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "hetlu/distributed.hpp"
#include "hetlu/types.hpp"

using namespace hetlu;

namespace {

int rank_ = 0, failures = 0;

void check(bool ok, const std::string& what) {
  if (rank_ == 0) std::printf("%s  %s\n", ok ? "ok    " : "FAILED", what.c_str());
  if (!ok) ++failures;
}

std::string scientific(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2e", v);
  return text;
}

// omega = max_i |b - A x|_i / (|A| |x| + |b|)_i, in double.
template <class T>
double backward_error(int n, int nrhs, const std::vector<T>& A, const std::vector<T>& X, const std::vector<T>& B) {
  double worst = 0;
  for (int c = 0; c < nrhs; ++c)
    for (int i = 0; i < n; ++i) {
      double r = B[i + static_cast<size_t>(c) * n], s = std::abs(double(B[i + static_cast<size_t>(c) * n]));
      for (int j = 0; j < n; ++j) {
        const double term = double(A[i + static_cast<size_t>(j) * n]) * X[j + static_cast<size_t>(c) * n];
        r -= term;
        s += std::abs(term);
      }
      worst = std::max(worst, s > 0 ? std::abs(r) / s : 0.0);
    }
  return worst;
}

template <class T>
void solve_case(int n, int nrhs, distributed::DistributedPlan plan, const char* precision) {
  std::vector<T> A, B, A0, B0;
  if (rank_ == 0) {
    std::mt19937 rng(n * 31 + nrhs);
    std::uniform_real_distribution<double> u(-1, 1);
    A.resize(static_cast<size_t>(n) * n), B.resize(static_cast<size_t>(n) * nrhs);
    for (auto& x : A) x = T(u(rng));
    for (auto& x : B) x = T(u(rng));
    A0 = A, B0 = B;
  }
  const auto report = distributed::gesv_from_root<T>(MPI_COMM_WORLD, 0, n, nrhs, A.data(), std::max(1, n), B.data(),
                                                     std::max(1, n), plan);
  if (rank_ != 0) return;
  const double omega = n ? backward_error(n, nrhs, A0, B, B0) : 0;
  const double bound = (n + 1) * std::numeric_limits<T>::epsilon() * 10;
  check(report.info == 0 && omega <= bound,
        std::string(precision) + " n=" + std::to_string(n) + " nrhs=" + std::to_string(nrhs) + " grid " +
            std::to_string(report.plan.grid_rows) + "x" + std::to_string(report.plan.grid_cols) +
            " nb=" + std::to_string(report.plan.nb) + ": omega " + scientific(omega));
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  try {
    for (int n : {1, 7, 50, 131})
      for (int nrhs : {1, 3}) {
        solve_case<double>(n, nrhs, {}, "double");
        solve_case<float>(n, nrhs, {0, 0, 8}, "single");
      }
    solve_case<double>(97, 2, {1, ranks, 16}, "double");  // one grid row
    solve_case<double>(97, 2, {ranks, 0, 5}, "double");   // one grid column, given as rows only
    solve_case<double>(0, 2, {}, "double");

    // A zero column: ScaLAPACK's info names it, on every rank.
    const int n = 40;
    std::vector<double> A, B;
    if (rank_ == 0) {
      A.assign(static_cast<size_t>(n) * n, 1.0), B.assign(n, 1.0);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) A[i + static_cast<size_t>(j) * n] = j == 12 ? 0.0 : 1.0 / (i + j + 1) + (i == j);
    }
    const auto singular = distributed::gesv_from_root<double>(MPI_COMM_WORLD, 0, n, 1, A.data(), n, B.data(), n, {});
    check(singular.info == 13, "a zero column 13 gives info " + std::to_string(singular.info));

    // Bad arguments on the root: every rank throws, none hangs.
    bool threw = false;
    try {
      distributed::gesv_from_root<double>(MPI_COMM_WORLD, 0, 5, 1, A.data(), 2, B.data(), 5, {});
    } catch (const InvalidArgument& e) {
      threw = std::string(e.what()).find("lda") != std::string::npos;
    }
    int all = threw ? 1 : 0, every = 0;
    MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(every == 1, "lda < n on the root is refused on every rank, naming lda");
    threw = false;
    try {
      distributed::resolve({2, 2, 0}, 5);
    } catch (const InvalidArgument&) {
      threw = true;
    }
    check(threw, "a grid that does not use every rank is refused");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank_, e.what());
    ++failures;
  }
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank_ == 0) std::printf("%d ranks: %s\n", ranks, total ? "FAILED" : "all passed");
  MPI_Finalize();
  return total ? 1 : 0;
}
