// hetlu::distributed under mpirun (#18): every rank runs this; the root checks each answer. Systems
// of several orders (block sizes that do not divide them), right-hand-side counts, both precisions,
// the grid chosen and given, a singular matrix, bad arguments refused on every rank alike.
// Prints one row per case on the root; exits non-zero on every rank when any case failed.
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "distributed/blacs_grid.hpp"
#include "distributed/scalapack_calls.hpp"
#include "hetlu/distributed.hpp"
#include "hetlu/hetlu_distributed.h"
#include "hetlu/types.hpp"

using namespace hetlu;

// Plans here name their first fields, {rows, cols, nb[, threads]}: the rest (the source and its
// detail, the prediction) are rightly left to their defaults.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

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

// |P A - L U|_1 / (n |A|_1 eps) for the factors F (L unit lower, U upper, in place) of A0. p?gesv
// leaves no pivots with the root, so P is recovered: each row of L U is found among A0's rows (the
// one it matches best), which a wrong factorization cannot pass.
template <class T>
double factorization_error(int n, const std::vector<T>& A0, const std::vector<T>& F) {
  std::vector<double> LU(static_cast<size_t>(n) * n, 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      double sum = 0;
      for (int k = 0; k <= std::min(i, j); ++k) {
        const double l = k == i ? 1.0 : double(F[i + static_cast<size_t>(k) * n]);
        sum += l * double(F[k + static_cast<size_t>(j) * n]);
      }
      LU[i + static_cast<size_t>(j) * n] = sum;
    }
  double norm_a = 0;
  for (int j = 0; j < n; ++j) {
    double column = 0;
    for (int i = 0; i < n; ++i) column += std::abs(double(A0[i + static_cast<size_t>(j) * n]));
    norm_a = std::max(norm_a, column);
  }
  std::vector<double> column_error(n, 0.0);
  std::vector<char> used(n, 0);
  for (int i = 0; i < n; ++i) {  // row i of L U against the unused row of A0 nearest it
    int best = -1;
    double best_distance = 0;
    for (int r = 0; r < n; ++r) {
      if (used[r]) continue;
      double distance = 0;
      for (int j = 0; j < n; ++j)
        distance += std::abs(LU[i + static_cast<size_t>(j) * n] - double(A0[r + static_cast<size_t>(j) * n]));
      if (best < 0 || distance < best_distance) best = r, best_distance = distance;
    }
    used[best] = 1;
    for (int j = 0; j < n; ++j)
      column_error[j] += std::abs(LU[i + static_cast<size_t>(j) * n] - double(A0[best + static_cast<size_t>(j) * n]));
  }
  const double worst = *std::max_element(column_error.begin(), column_error.end());
  return norm_a > 0 ? worst / (n * norm_a * std::numeric_limits<T>::epsilon()) : 0;
}

template <class T>
void solve_case(int n, int nrhs, distributed::DistributedPlan plan, const char* precision,
                const Device* resident = nullptr) {
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
                                                     std::max(1, n), plan, "", resident);
  if (rank_ != 0) return;
  const double omega = n ? backward_error(n, nrhs, A0, B, B0) : 0;
  const double bound = (n + 1) * std::numeric_limits<T>::epsilon() * 10;
  // The factors as p?getrf leaves them: |P A - L U| / (n |A| eps), the pivots applied to A0.
  const double factor_error = n ? factorization_error(n, A0, A) : 0;
  check(report.info == 0 && omega <= bound && factor_error < 30,
        report.engine + " " + std::string(precision) + " n=" + std::to_string(n) + " nrhs=" + std::to_string(nrhs) +
            " grid " + std::to_string(report.plan.grid_rows) + "x" + std::to_string(report.plan.grid_cols) +
            " nb=" + std::to_string(report.plan.nb) + ": omega " + scientific(omega) + ", |PA-LU|/(n|A|eps) " +
            scientific(factor_error));
}

// hetlu_pdgesv on a matrix the caller distributed itself (its own grid and descriptors); with
// `resident`, hetlu_pdgesv_resident with each rank's part on that device.
void descriptor_case(int n, int nrhs, const char* resident = nullptr) {
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  int rows = 1, cols = 1;
  distributed::squarest_grid(ranks, rows, cols);
  std::vector<double> A, B, A0, B0;
  if (rank_ == 0) {
    std::mt19937 rng(n);
    std::uniform_real_distribution<double> u(-1, 1);
    A.resize(static_cast<size_t>(n) * n), B.resize(static_cast<size_t>(n) * nrhs);
    for (auto& x : A) x = u(rng);
    for (auto& x : B) x = u(rng);
    if (resident && std::string(resident).find("overflow") != std::string::npos)  // Wilkinson's growth x 1.5e308
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          A[i + static_cast<size_t>(j) * n] = (j == n - 1 || i == j ? 1.0 : i > j ? -1.0 : 0.0) * 1.5e308;
    A0 = A, B0 = B;
  }
  const int nb = 8;
  distributed::BlacsGrid grid(MPI_COMM_WORLD, rows, cols), root(MPI_COMM_WORLD, 1, 1, 0);
  const int my_rows = distributed::local_count(n, nb, grid.row(), rows);
  const int lld = std::max(1, my_rows);
  std::vector<double> a(static_cast<size_t>(lld) * std::max(1, distributed::local_count(n, nb, grid.col(), cols)));
  std::vector<double> b(static_cast<size_t>(lld) * std::max(1, distributed::local_count(nrhs, nb, grid.col(), cols)));
  std::vector<int> ipiv(my_rows + nb);
  const auto da = distributed::descriptor(grid, n, n, nb, lld), db = distributed::descriptor(grid, n, nrhs, nb, lld);
  const auto ra = distributed::descriptor(root, n, n, nb, n), rb = distributed::descriptor(root, n, nrhs, nb, n);
  distributed::redistribute(n, n, A.data(), ra.data(), a.data(), da.data(), grid.context());
  distributed::redistribute(n, nrhs, B.data(), rb.data(), b.data(), db.data(), grid.context());
  int info = -1;
  // Arguments refused on one rank: "bogus-on-the-root" (the root names no device, the others
  // host:1), "threads-bad-on-the-root" (the root's threads per rank out of range), "nb-differs-on-
  // the-last" (its descriptors' NB one more; PBLAS hung or aborted), each resident on host:1; and
  // plain p?gesv's "plain-threads-bad-on-the-root", "plain-null-ipiv-on-the-last" (both hung the
  // other ranks) and "plain-null-a-on-the-last" (a crash in the BLAS). "nan-on-the-last" and
  // "plain-nan-on-the-last": a NaN in the last rank's part of A (X all NaN with success before);
  // "m-beyond-n": resident, desc_a's M three rows more than n with an LLD for n rows (ScaLAPACK's
  // p?getf2 aborted the job). "overflow" and "plain-overflow": finite A whose X overflows (p?gesv's
  // INFO = 0 with X Inf): HETLU_ERROR_NOT_FINITE on every rank.
  const std::string mode = resident ? resident : "";
  const bool last = rank_ == ranks - 1;
  if (mode.find("overflow") != std::string::npos) {
    const bool plain_call = mode.rfind("plain-", 0) == 0;
    const hetlu_status status =
        plain_call
            ? hetlu_pdgesv(n, nrhs, a.data(), 1, 1, da.data(), ipiv.data(), b.data(), 1, 1, db.data(), &info, 1)
            : hetlu_pdgesv_resident(n, nrhs, a.data(), da.data(), ipiv.data(), b.data(), db.data(), "host:1", &info, 1);
    int said = status == HETLU_ERROR_NOT_FINITE, every = 0;  // on a 2 x 2 grid ScaLAPACK's info is 30
    MPI_Allreduce(&said, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(every == 1, std::string(plain_call ? "hetlu_pdgesv" : "hetlu_pdgesv_resident") +
                          ": an X that overflowed is NOT_FINITE on every rank: " + hetlu_last_error());
    return;
  }
  const bool refused_somewhere = mode == "bogus-on-the-root" || mode == "threads-bad-on-the-root" ||
                                 mode.find("nb-differs-on-the-last") != std::string::npos ||
                                 mode.rfind("plain-", 0) == 0 || mode == "nan-on-the-last" || mode == "m-beyond-n";
  const bool plain = !resident || mode.rfind("plain-", 0) == 0;
  const char* device = mode == "bogus-on-the-root" ? (rank_ == 0 ? "bogus" : "host:1")
                       : refused_somewhere         ? "host:1"
                                                   : resident;
  const int threads =
      (mode == "threads-bad-on-the-root" || mode == "plain-threads-bad-on-the-root") && rank_ == 0 ? -5 : 1;
  auto da_used = da, db_used = db;
  if (mode == "nb-differs-on-the-last" && last)
    for (auto* d : {&da_used, &db_used}) (*d)[4] = (*d)[5] = nb + 1;
  if (mode == "a-nb-differs-on-the-last" && last) da_used[4] = da_used[5] = nb + 1;  // getrf's own agreement
  if (mode.find("nan-on-the-last") != std::string::npos && last) a.back() = std::nan("");
  if (mode == "m-beyond-n") da_used[2] = n + 3;
  if (mode == "nrhs-beyond-b") {  // B's descriptor was checked after A was factored: A lost
    const auto a_before = a;
    const hetlu_status refused =
        hetlu_pdgesv_resident(n, nrhs + 3, a.data(), da.data(), ipiv.data(), b.data(), db.data(), "host:1", &info, 1);
    int fine = refused == HETLU_ERROR_INVALID_ARGUMENT && a == a_before, every = 0;
    MPI_Allreduce(&fine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(every == 1, std::string("hetlu_pdgesv_resident: nrhs beyond desc_b's N is refused before A changes: ") +
                          hetlu_last_error());
    auto db_outside = db;
    db_outside[7] = cols;  // CSRC past the grid's last process column
    const hetlu_status outside = hetlu_pdgesv_resident(n, nrhs, a.data(), da.data(), ipiv.data(), b.data(),
                                                       db_outside.data(), "host:1", &info, 1);
    fine = outside == HETLU_ERROR_INVALID_ARGUMENT && a == a_before;
    MPI_Allreduce(&fine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(every == 1, std::string("hetlu_pdgesv_resident: desc_b's CSRC outside the grid is refused before A "
                                  "changes: ") +
                          hetlu_last_error());
    return;
  }
  if (mode == "one-zero") {  // n = 1, A = 0: p?gesv's argument checks first, then info 1 with B as it was
    if (grid.row() == 0 && grid.col() == 0) a[0] = 0;
    const auto b_before = b;
    hetlu_status status =
        hetlu_pdgesv(1, -1, a.data(), 1, 1, da.data(), ipiv.data(), b.data(), 1, 1, db.data(), &info, 1);
    int fine = status == HETLU_ERROR_INVALID_ARGUMENT, every = 0;
    MPI_Allreduce(&fine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(every == 1,
          std::string("hetlu_pdgesv: a 1 x 1 zero with nrhs = -1 is refused, not singular: ") + hetlu_last_error());
    status = hetlu_pdgesv(1, nrhs, a.data(), 1, 1, da.data(), ipiv.data(), b.data(), 1, 1, db.data(), &info, 1);
    fine = status == HETLU_ERROR_SINGULAR && info == 1 && b == b_before &&
           (grid.row() != 0 || grid.col() != 0 || a[0] == 0);
    MPI_Allreduce(&fine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(every == 1, std::string("hetlu_pdgesv: a 1 x 1 zero is singular, info 1, A and B as they were"));
    return;
  }
  if (mode == "a-and-b-in-one-array") {  // [A | B] under one descriptor, B at jb = n + 1: apart, solved
    const int width = n + nrhs;
    std::vector<double> M;
    if (rank_ == 0) {
      M = A0;
      M.insert(M.end(), B0.begin(), B0.end());
    }
    std::vector<double> m(static_cast<size_t>(lld) *
                          std::max(1, distributed::local_count(width, nb, grid.col(), cols)));
    const auto dm = distributed::descriptor(grid, n, width, nb, lld);
    const auto rm = distributed::descriptor(root, n, width, nb, n);
    distributed::redistribute(n, width, M.data(), rm.data(), m.data(), dm.data(), grid.context());
    const hetlu_status status =
        hetlu_pdgesv(n, nrhs, m.data(), 1, 1, dm.data(), ipiv.data(), m.data(), 1, n + 1, dm.data(), &info, 1);
    distributed::redistribute(n, width, m.data(), dm.data(), M.data(), rm.data(), grid.context());
    int fine = status == HETLU_SUCCESS && info == 0, every = 0;
    MPI_Allreduce(&fine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    double omega = 0;
    if (rank_ == 0) {
      const std::vector<double> X(M.begin() + static_cast<long>(n) * n, M.end());
      omega = backward_error(n, nrhs, A0, X, B0);
    }
    check(every == 1 && omega < 1e-14, std::string("hetlu_pdgesv: [A | B] in one array (B at jb = n + 1) is solved, "
                                                   "backward error ") +
                                           scientific(omega) + ": " + hetlu_last_error());
    return;
  }
  if (mode == "b-over-a") {  // B's local arrays A's own, or one entry on: success with X wrong (0.99)
    const auto a_before = a;
    auto db_square = distributed::descriptor(grid, n, n, nb, lld);
    for (int shift : {0, 1})
      for (bool plain_call : {true, false}) {
        const hetlu_status status = plain_call
                                        ? hetlu_pdgesv(n, n - shift, a.data(), 1, 1, da.data(), ipiv.data(),
                                                       a.data() + shift, 1, 1, db_square.data(), &info, 1)
                                        : hetlu_pdgesv_resident(n, n - shift, a.data(), da.data(), ipiv.data(),
                                                                a.data() + shift, db_square.data(), "host:1", &info, 1);
        int fine = status == HETLU_ERROR_INVALID_ARGUMENT && a == a_before, every = 0;
        MPI_Allreduce(&fine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        check(every == 1, std::string(plain_call ? "hetlu_pdgesv" : "hetlu_pdgesv_resident") + ": B " +
                              (shift ? "one entry into" : "over") +
                              " A is refused on every rank: " + hetlu_last_error());
      }
    // ipiv inside B (its first entries)
    const auto b_before = b;
    const hetlu_status status = hetlu_pdgesv(n, nrhs, a.data(), 1, 1, da.data(), reinterpret_cast<int*>(b.data()),
                                             b.data(), 1, 1, db.data(), &info, 1);
    int fine = status == HETLU_ERROR_INVALID_ARGUMENT && a == a_before && b == b_before, every = 0;
    MPI_Allreduce(&fine, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(every == 1, std::string("hetlu_pdgesv: ipiv inside B is refused on every rank: ") + hetlu_last_error());
    return;
  }
  int* ipiv_used = mode == "plain-null-ipiv-on-the-last" && last ? nullptr : ipiv.data();
  double* a_used = mode == "plain-null-a-on-the-last" && last ? nullptr : a.data();
  const hetlu_status status = plain ? hetlu_pdgesv(n, nrhs, a_used, 1, 1, da_used.data(), ipiv_used, b.data(), 1, 1,
                                                   db_used.data(), &info, threads)
                                    : hetlu_pdgesv_resident(n, nrhs, a_used, da_used.data(), ipiv_used, b.data(),
                                                            db_used.data(), device, &info, threads);
  distributed::redistribute(n, nrhs, b.data(), db.data(), B.data(), rb.data(), grid.context());
  if (refused_somewhere) {  // refused on one rank: every rank fails, with the caller's status
    int refused = status == HETLU_ERROR_INVALID_ARGUMENT, every = 0;
    MPI_Allreduce(&refused, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(every == 1, std::string(plain ? "hetlu_pdgesv: " : "hetlu_pdgesv_resident: ") + mode +
                          ": every rank fails: " + hetlu_last_error());
    if (mode.find("nan-on-the-last") != std::string::npos && last)
      check(std::string(hetlu_last_error()).find(") is NaN; the input must be finite") != std::string::npos,
            std::string("the rank holding the NaN names its entry: ") + hetlu_last_error());
    return;
  }
  int ok = status == HETLU_SUCCESS && info == 0, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  if (rank_ != 0) return;
  const double omega = backward_error(n, nrhs, A0, B, B0);
  check(all == 1 && omega <= (n + 1) * 10 * std::numeric_limits<double>::epsilon(),
        std::string(resident ? "hetlu_pdgesv_resident on " + std::string(resident) : "hetlu_pdgesv") +
            " on the caller's " + std::to_string(rows) + "x" + std::to_string(cols) + " grid, n=" + std::to_string(n) +
            ": omega " + scientific(omega));
}

// hetlu_pdgesv_root with options (one thread per rank, the grid's rows given; `resident`: each
// rank's part on that device).
void root_c_api_case(int n, const char* resident = nullptr) {
  std::vector<double> A, B, A0, B0;
  if (rank_ == 0) {
    std::mt19937 rng(n + 5);
    std::uniform_real_distribution<double> u(-1, 1);
    A.resize(static_cast<size_t>(n) * n), B.resize(n);
    for (auto& x : A) x = u(rng);
    for (auto& x : B) x = u(rng);
    A0 = A, B0 = B;
  }
  hetlu_distributed_options options{1, 0, 12, 1, nullptr, resident};
  int info = -1;
  const hetlu_status status = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, n, 1, A.data(), n, B.data(), n, &info, &options);
  if (rank_ != 0) return;
  const double omega = backward_error(n, 1, A0, B, B0);
  check(status == HETLU_SUCCESS && info == 0 && omega <= (n + 1) * 10 * std::numeric_limits<double>::epsilon(),
        std::string("hetlu_pdgesv_root") + (resident ? " resident on " + std::string(resident) : "") +
            ", 1 x ranks grid, nb 12: omega " + scientific(omega));
}

}  // namespace

// The root C API called outside MPI's life: a status and a message, where MPI aborted the job on
// its first collective.
bool refused_outside_mpi(const char* said) {
  double a = 1, b = 1;
  int info = 0;
  const hetlu_status status = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, 1, 1, &a, 1, &b, 1, &info, nullptr);
  return status == HETLU_ERROR_INVALID_ARGUMENT && info == -status &&
         std::string(hetlu_last_error()).find(said) != std::string::npos;
}

int main(int argc, char** argv) {
  const bool refused_before = refused_outside_mpi("MPI is not initialized");
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
    for (int rows = 1; rows <= ranks; ++rows)  // every grid shape of the rank count
      if (ranks % rows == 0) {
        solve_case<double>(97, 2, {rows, ranks / rows, 16}, "double");
        solve_case<float>(61, 1, {rows, 0, 5}, "single");  // columns from the rows given
      }
    solve_case<double>(131, 2, {0, 0, 200}, "double");   // nb larger than n / P: one block
    solve_case<double>(120, 1, {0, 0, 0, 1}, "double");  // one BLAS thread per rank
    solve_case<double>(0, 2, {}, "double");

    // The device-resident LU (#18 item 4) on a host backend of one thread per rank (or on the
    // device HETLU_TEST_RESIDENT names: cuda on the GPU machine): every grid shape, orders nb does
    // not divide, nb > n / P, one block, both precisions.
    const char* named = std::getenv("HETLU_TEST_RESIDENT");
    const std::string resident_text = named && *named ? named : "host:1";
    const Device team = distributed::resident_device(resident_text);
    if (rank_ == 0) std::printf("resident cases on %s\n", resident_text.c_str());
    for (int rows = 1; rows <= ranks; ++rows)
      if (ranks % rows == 0) {
        solve_case<double>(97, 2, {rows, ranks / rows, 16}, "double", &team);
        solve_case<double>(131, 1, {rows, ranks / rows, 7}, "double", &team);
        solve_case<float>(61, 1, {rows, 0, 5}, "single", &team);
      }
    for (int n : {1, 2, 50}) solve_case<double>(n, 1, {0, 0, 8}, "double", &team);
    solve_case<double>(131, 2, {0, 0, 200}, "double", &team);  // one block: the panel is the matrix
    solve_case<double>(40, 1, {0, 0, 16}, "double", &team);
    solve_case<double>(0, 1, {}, "double", &team);
    descriptor_case(90, 2);
    root_c_api_case(77);
    descriptor_case(90, 2, resident_text.c_str());  // the resident LU from C, on the caller's layout and from the root
    root_c_api_case(77, resident_text.c_str());
    descriptor_case(30, 1, "bogus-on-the-root");
    descriptor_case(30, 1, "threads-bad-on-the-root");
    descriptor_case(30, 1, "plain-threads-bad-on-the-root");
    descriptor_case(30, 1, "plain-null-ipiv-on-the-last");
    descriptor_case(30, 1, "plain-null-a-on-the-last");
    descriptor_case(30, 1, "plain-nan-on-the-last");
    descriptor_case(30, 1, "nan-on-the-last");
    descriptor_case(30, 1, "m-beyond-n");
    descriptor_case(30, 1, "overflow");
    descriptor_case(30, 1, "plain-overflow");
    descriptor_case(30, 2, "nrhs-beyond-b");
    descriptor_case(30, 2, "b-over-a");
    descriptor_case(30, 3, "a-and-b-in-one-array");
    descriptor_case(1, 2, "one-zero");
    if (ranks > 1) {
      descriptor_case(31, 1, "nb-differs-on-the-last");
      descriptor_case(31, 1, "a-nb-differs-on-the-last");
    }
    // 1 x 1 on a grid of several process rows: a rank holding no row once called it singular.
    solve_case<double>(1, 1, {ranks, 1, 8}, "double", &team);
    {
      // A NaN on the root, through the C API: refused on every rank (p?gesv returned X all NaN, info 0).
      std::vector<double> A(16, 1.0), B(4, 1.0);
      for (int i = 0; i < 4; ++i) A[i * 5] = 4;
      A[3] = std::numeric_limits<double>::quiet_NaN();
      int info = 0;
      const hetlu_status status = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, 4, 1, A.data(), 4, B.data(), 4, &info, nullptr);
      int refused = status == HETLU_ERROR_INVALID_ARGUMENT, every = 0;
      MPI_Allreduce(&refused, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      check(every == 1, std::string("hetlu_pdgesv_root: a NaN in A is refused on every rank: ") + hetlu_last_error());
    }
    {
      // B = A on the root, as hetlu_dgesv refuses it (success with a wrong X, a hostile helper's finding).
      std::vector<double> A(16, 1.0);
      for (int i = 0; i < 4; ++i) A[i * 5] = 4;
      int info = 0;
      const hetlu_status status = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, 4, 1, A.data(), 4, A.data(), 4, &info, nullptr);
      int refused = status == HETLU_ERROR_INVALID_ARGUMENT &&
                    std::string(hetlu_last_error()).find("B overlaps A") != std::string::npos,
          every = 0;
      MPI_Allreduce(&refused, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      check(every == 1, std::string("hetlu_pdgesv_root: B = A is refused on every rank: ") + hetlu_last_error());
    }
    {
      // Finite input whose X overflows (Wilkinson's growth matrix scaled by 1.5e308): p?gesv's INFO
      // is 0 with X Inf on the root; every rank returns HETLU_ERROR_NOT_FINITE.
      const int w = 40;
      std::vector<double> W(w * w), wb(w, 1.0);
      for (int j = 0; j < w; ++j)
        for (int i = 0; i < w; ++i) W[i + j * w] = (j == w - 1 || i == j ? 1.0 : i > j ? -1.0 : 0.0) * 1.5e308;
      int info = 0;
      const hetlu_status status = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, w, 1, W.data(), w, wb.data(), w, &info, nullptr);
      int said = status == HETLU_ERROR_NOT_FINITE, every = 0;
      MPI_Allreduce(&said, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      check(every == 1,
            std::string("hetlu_pdgesv_root: an X that overflowed is NOT_FINITE on every rank: ") + hetlu_last_error());
    }
    {
      // A resident device refused on one rank, or named on some ranks only: every rank fails, none hangs.
      std::vector<double> A(25, 1.0), B(5, 1.0);
      hetlu_distributed_options bad;
      hetlu_distributed_options_init(&bad);
      bad.resident = rank_ == 0 ? "tpu:3" : "host:1";
      check(bad.grid_rows == 0 && bad.nb == 0 && bad.db == nullptr, "hetlu_distributed_options_init zeroes");
      int info = 0;
      hetlu_status status = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, 5, 1, A.data(), 5, B.data(), 5, &info, &bad);
      int refused = status == HETLU_ERROR_INVALID_ARGUMENT, every = 0;
      MPI_Allreduce(&refused, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      check(every == 1, std::string("hetlu_pdgesv_root: a bad resident device on the root fails every rank: ") +
                            hetlu_last_error());
      if (ranks > 1) {
        hetlu_distributed_options some{0, 0, 0, 0, nullptr, rank_ == 0 ? "host:1" : nullptr};
        status = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, 5, 1, A.data(), 5, B.data(), 5, &info, &some);
        refused = status == HETLU_ERROR_INVALID_ARGUMENT &&
                  std::string(hetlu_last_error()).find("some ranks") != std::string::npos;
        MPI_Allreduce(&refused, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        check(every == 1,
              std::string("hetlu_pdgesv_root: resident on some ranks only fails every rank: ") + hetlu_last_error());
        // Ranks naming different roots waited for each other in the scatter, forever.
        status = hetlu_pdgesv_root(MPI_COMM_WORLD, rank_ == 0 ? 0 : 1, 5, 1, A.data(), 5, B.data(), 5, &info, nullptr);
        refused = status == HETLU_ERROR_INVALID_ARGUMENT &&
                  std::string(hetlu_last_error()).find("root differs between ranks") != std::string::npos;
        MPI_Allreduce(&refused, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        check(every == 1, std::string("hetlu_pdgesv_root: roots that differ fail every rank: ") + hetlu_last_error());
        // psgesv on the root beside pdgesv on the others corrupted the heap (a hostile test).
        std::vector<float> As(25, 1.0f), Bs(5, 1.0f);
        for (int i = 0; i < 5; ++i) A[i * 6] = 2.0, As[i * 6] = 2.0f;
        status = rank_ == 0 ? hetlu_psgesv_root(MPI_COMM_WORLD, 0, 5, 1, As.data(), 5, Bs.data(), 5, &info, nullptr)
                            : hetlu_pdgesv_root(MPI_COMM_WORLD, 0, 5, 1, A.data(), 5, B.data(), 5, &info, nullptr);
        refused = status == HETLU_ERROR_INVALID_ARGUMENT &&
                  std::string(hetlu_last_error()).find("precision differs between ranks") != std::string::npos;
        MPI_Allreduce(&refused, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        check(every == 1,
              std::string("hetlu_p?gesv_root: precisions that differ fail every rank: ") + hetlu_last_error());
        // A device refused on one rank: every rank says which and why.
        hetlu_distributed_options other{0, 0, 0, 0, nullptr, rank_ == 1 ? "tpu:3" : "host:1"};
        status = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, 5, 1, A.data(), 5, B.data(), 5, &info, &other);
        refused = status == HETLU_ERROR_INVALID_ARGUMENT &&
                  std::string(hetlu_last_error()).find("rank 1: ") != std::string::npos &&
                  std::string(hetlu_last_error()).find("tpu") != std::string::npos;
        MPI_Allreduce(&refused, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
        check(every == 1, std::string("hetlu_pdgesv_root: a device refused on rank 1 is named on every rank: ") +
                              hetlu_last_error());
      }
    }

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
    if (rank_ == 0)
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) A[i + static_cast<size_t>(j) * n] = j == 12 ? 0.0 : 1.0 / (i + j + 1) + (i == j);
    const auto resident_singular =
        distributed::gesv_from_root<double>(MPI_COMM_WORLD, 0, n, 1, A.data(), n, B.data(), n, {0, 0, 8}, "", &team);
    int agreed = resident_singular.info == 13, all_agree = 0;
    MPI_Allreduce(&agreed, &all_agree, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(all_agree == 1,
          "resident: a zero column 13 gives info " + std::to_string(resident_singular.info) + " on every rank");

    // A 1 x 1 zero: p?getrf's quick return does not look at it, and p?gesv divided by it (X = Inf,
    // "not finite"); info 1 on every rank and every grid shape, B as it was.
    for (const distributed::DistributedPlan& grid :
         {distributed::DistributedPlan{ranks, 1, 8}, distributed::DistributedPlan{1, ranks, 8},
          distributed::DistributedPlan{}}) {
      double zero = 0, b = 2;
      const auto one = distributed::gesv_from_root<double>(MPI_COMM_WORLD, 0, 1, 1, &zero, 1, &b, 1, grid);
      int right = one.info == 1 && (rank_ != 0 || b == 2), every_rank = 0;
      MPI_Allreduce(&right, &every_rank, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      check(every_rank == 1, "a 1 x 1 zero on a " + std::to_string(grid.grid_rows) + " x " +
                                 std::to_string(grid.grid_cols) + " grid gives info " + std::to_string(one.info));
      int info = 0;
      const hetlu_status status = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, 1, 1, &zero, 1, &b, 1, &info, nullptr);
      right = status == HETLU_ERROR_SINGULAR && info == 1;
      MPI_Allreduce(&right, &every_rank, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      check(every_rank == 1, std::string("hetlu_pdgesv_root: a 1 x 1 zero is singular, info 1: ") + hetlu_last_error());
    }

    // The application's own BLACS handle on its communicator survives a call on that communicator:
    // hetlu freed it (BLACS hands out one handle per communicator), and the application's next
    // gridinit aborted the job ("No system context corresponding to BLACS system context handle").
    {
      MPI_Comm mine = MPI_COMM_NULL;
      MPI_Comm_dup(MPI_COMM_WORLD, &mine);
      const int handle = Csys2blacs_handle(mine);
      const int order = 30;
      std::vector<double> M, v;
      if (rank_ == 0) {
        M.assign(static_cast<size_t>(order) * order, 0.5), v.assign(order, 1.0);
        for (int i = 0; i < order; ++i) M[i + static_cast<size_t>(i) * order] = order;
      }
      const auto solved = distributed::gesv_from_root<double>(mine, 0, order, 1, M.data(), order, v.data(), order, {});
      check(solved.info == 0, "a solve on the application's communicator");
      int context = handle;
      Cblacs_gridinit(&context, "Row", 1, ranks);
      check(context >= 0, "the application's own BLACS handle still names its communicator");
      if (context >= 0) Cblacs_gridexit(context);
      Cfree_blacs_system_handle(handle);
      MPI_Comm_free(&mine);
    }

    // One rank's descriptor wrong (its LLD below its rows): every rank fails, none hangs.
    {
      int rows = 1, cols = 1;
      distributed::squarest_grid(ranks, rows, cols);
      distributed::BlacsGrid grid(MPI_COMM_WORLD, rows, cols);
      const int m = 40, nb = 8, mine = distributed::local_count(m, nb, grid.row(), rows);
      std::vector<double> a(static_cast<size_t>(mine) * m + 1, 1.0), b(static_cast<size_t>(mine) + 1, 1.0);
      std::vector<int> ipiv(mine + nb);
      auto da = distributed::descriptor(grid, m, m, nb, std::max(1, mine));
      const auto db = distributed::descriptor(grid, m, 1, nb, std::max(1, mine));
      if (rank_ == ranks - 1) da[8] = mine - 1;  // too small, on this rank alone
      std::string refused;
      try {
        distributed::gesv_resident(m, 1, a.data(), da.data(), ipiv.data(), b.data(), db.data(), team);
      } catch (const Error& e) {
        refused = e.what();
      }
      agreed = refused.find("device-resident") != std::string::npos, all_agree = 0;
      MPI_Allreduce(&agreed, &all_agree, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
      check(all_agree == 1, "resident: one rank's LLD too small fails every rank: " + refused);
      // Plain p?gesv with every rank's LLD too small: ScaLAPACK's code said in words ("argument 609").
      auto small = da;
      small[8] = std::max(1, mine - 1);
      if (mine > 1) {
        std::string said;
        try {
          distributed::gesv(m, 1, a.data(), 1, 1, small.data(), ipiv.data(), b.data(), 1, 1, db.data(), 1);
        } catch (const Error& e) {
          said = e.what();
        }
        check(said.find("LLD of desc_a (argument 6) is illegal") != std::string::npos,
              "p?gesv names the descriptor entry it refused: " + said);
      }
    }

    // One rank's device too small for its part: every rank fails with an error, none hangs.
    if (rank_ == ranks - 1) setenv("HETLU_HOST_BACKEND_MEMORY_MIB", "1", 1);
    std::vector<double> big, big_b;
    const int big_n = 800;  // 5 MiB in all: more than 1 MiB on the last rank whatever the grid
    if (rank_ == 0) {
      big.assign(static_cast<size_t>(big_n) * big_n, 0.0), big_b.assign(big_n, 1.0);
      for (int i = 0; i < big_n; ++i) big[i + static_cast<size_t>(i) * big_n] = 2.0;
    }
    std::string why;
    try {
      distributed::gesv_from_root<double>(MPI_COMM_WORLD, 0, big_n, 1, big.data(), big_n, big_b.data(), big_n,
                                          {0, 0, 64}, "", &team);
    } catch (const DeviceOutOfMemory& e) {  // on every rank: the C status is the failing rank's
      why = e.what();
    } catch (const Error& e) {
      why = std::string("not DeviceOutOfMemory: ") + e.what();
    }
    unsetenv("HETLU_HOST_BACKEND_MEMORY_MIB");
    agreed = why.find("device-resident") != std::string::npos && why.rfind("not ", 0) != 0, all_agree = 0;
    MPI_Allreduce(&agreed, &all_agree, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(all_agree == 1, "resident: one rank's device out of memory fails every rank: " + why);

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
    try {  // a grid of one rank more than there are
      distributed::gesv_from_root<double>(MPI_COMM_WORLD, 0, 5, 1, A.data(), 5, B.data(), 5, {1, ranks + 1, 0});
    } catch (const InvalidArgument& e) {
      threw = std::string(e.what()).find("does not use") != std::string::npos;
    }
    all = threw ? 1 : 0;
    MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(every == 1, "a grid that does not use every rank is refused on every rank");

    // The C API: a singular matrix is HETLU_ERROR_SINGULAR with info on every rank; bad arguments a
    // status and a message, never an exception.
    int info = 0;
    const hetlu_status status = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, n, 1, A.data(), n, B.data(), n, &info, nullptr);
    all = status == HETLU_ERROR_SINGULAR && info == 13;
    MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(every == 1, "hetlu_pdgesv_root: singular, info 13 on every rank");
    hetlu_distributed_options bad{0, 0, -3, 0, nullptr, nullptr};
    const hetlu_status refused = hetlu_pdgesv_root(MPI_COMM_WORLD, 0, 5, 1, A.data(), 5, B.data(), 5, &info, &bad);
    all = refused == HETLU_ERROR_INVALID_ARGUMENT && std::string(hetlu_last_error()).find("nb") != std::string::npos;
    MPI_Allreduce(&all, &every, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    check(every == 1, std::string("hetlu_pdgesv_root: nb = -3 refused on every rank: ") + hetlu_last_error());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rank %d: %s\n", rank_, e.what());
    ++failures;
  }
  check(refused_before, "hetlu_pdgesv_root before MPI_Init is refused with a status");
  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  MPI_Finalize();
  if (!refused_outside_mpi("MPI is finalized")) {
    if (rank_ == 0) std::printf("FAILED  hetlu_pdgesv_root after MPI_Finalize is refused with a status\n");
    total = 1;
  }
  if (rank_ == 0) std::printf("%d ranks: %s\n", ranks, total ? "FAILED" : "all passed");
  return total ? 1 : 0;
}
