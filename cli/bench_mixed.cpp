// hetlu bench --precision mixed (#15.4): for each solver, hetlu::mixed_gesv (single factorization,
// refinement in double) against OpenBLAS's dgesv and its own mixed dsgesv on the same system,
// alternating run by run so that drift on a shared machine hits all three alike; the median of
// --reps after one warm-up of each; with each answer's componentwise backward error omega and the
// refinement steps (ITER) of both mixed solvers. --precision auto (#15.3) times
// hetlu::auto_precision_gesv the same way, and its first call on its own: the one that meets the
// matrix without the process's memory of earlier fall-backs.
#include "cli/bench_mixed.hpp"

#include <fmt/core.h>
#include <lapacke.h>

#include <cmath>
#include <iostream>
#include <limits>
#include <random>

#include "cli/commands.hpp"
#include "cli/report.hpp"
#include "hetlu/detail/cuda_tf32.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/statistics.hpp"
#include "hetlu/detail/stopwatch.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"

namespace hetlu::cli {
namespace {

// Random rotations in a butterfly: for each level h = 1, 2, 4, ... below n, every pair (i, i + h)
// with bit h of i clear rotated by an angle of its own, drawn in a fixed order. Orthogonal, and after
// all levels every row (left) or column (right) mixes every other.
struct Rotations {
  std::vector<std::vector<double>> cosine, sine;  // per level, per first index of a pair
  Rotations(int n, std::mt19937_64& rng) {
    std::uniform_real_distribution<double> angle(0, 2 * M_PI);
    for (int h = 1; h < n; h *= 2) {
      std::vector<double> c(n, 1.0), s(n, 0.0);
      for (int i = 0; i < n; ++i)
        if (!(i & h) && i + h < n) {
          const double t = angle(rng);
          c[i] = std::cos(t), s[i] = std::sin(t);
        }
      cosine.push_back(std::move(c)), sine.push_back(std::move(s));
    }
  }
};

// Uniform in [-1, 1]; or, with cond > 0, a randsvd matrix: singular values graded from 1 to 1/cond
// (geometric), mixed from both sides by random rotation butterflies (kappa_2(A) = cond exactly, up
// to rounding). Until 2026-11-27 two Householder reflections a side mixed them: each moved an entry by
// about 1/n, which left A nearly diagonal (12 % of its norm off the diagonal at n = 1001), easy for
// mixed precision whatever cond said. log2 n passes a side (15 at n = 32768), each a read and a
// write of A down columns on all threads. Every entry is computed by the same operations on any
// number of threads.
std::vector<double> test_matrix(int n, double cond) {
  std::mt19937_64 rng(2026);
  std::vector<double> A(static_cast<size_t>(n) * n, 0.0);
  if (cond <= 0) {
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& a : A) a = u(rng);
    return A;
  }
  for (int j = 0; j < n; ++j) A[j + static_cast<size_t>(j) * n] = std::pow(cond, -double(j) / std::max(1, n - 1));
  auto column = [&](int j) { return A.data() + static_cast<size_t>(j) * n; };
  const Rotations left(n, rng), right(n, rng);
  for (std::size_t level = 0; level < left.cosine.size(); ++level) {
    const int h = 1 << level;
    const auto &c = left.cosine[level], &s = left.sine[level];
#pragma omp parallel for schedule(static)
    for (int j = 0; j < n; ++j) {  // rows i and i + h of every column
      double* a = column(j);
      for (int i = 0; i + h < n; ++i)
        if (!(i & h)) {
          const double x = a[i], y = a[i + h];
          a[i] = c[i] * x + s[i] * y, a[i + h] = c[i] * y - s[i] * x;
        }
    }
  }
  for (std::size_t level = 0; level < right.cosine.size(); ++level) {
    const int h = 1 << level;
    const auto &c = right.cosine[level], &s = right.sine[level];
#pragma omp parallel for schedule(static)
    for (int j = 0; j < n - h; ++j) {  // columns j and j + h
      if (j & h) continue;
      double *x = column(j), *y = column(j + h);
      for (int i = 0; i < n; ++i) {
        const double u = x[i], v = y[i];
        x[i] = c[j] * u + s[j] * v, y[i] = c[j] * v - s[j] * u;
      }
    }
  }
  return A;
}

struct Timed {
  std::vector<double> seconds;
  double first_seconds = 0;  // the warm-up call
  std::vector<double> x;
  int iter = 0;
};

struct MixedRow {
  Solver solver;
  SolveReport report;
  Timed ours, dgesv, dsgesv;
};

MixedRow bench_one(Solver solver, bool automatic, bool openblas, int n, int reps, const std::vector<double>& A,
                   const std::vector<double>& b, const Options& options) {
  MixedRow row;
  row.solver = solver;
  std::vector<double> a(A.size());
  std::vector<int> ipiv(std::max(1, n));
  std::vector<lapack_int> lapack_ipiv(ipiv.size());
  row.ours.x.resize(n), row.dgesv.x.resize(n), row.dsgesv.x.resize(n);
  if (automatic) {
    // auto's first call is timed apart: the plans, the BLAS's threads and the pages it meets are
    // warmed here, by the mixed path and the double plan's resolution, leaving auto's memory empty.
    std::copy(A.begin(), A.end(), a.begin());
    int iter = 0;
    mixed_gesv(solver, n, 1, a.data(), n, ipiv.data(), b.data(), n, row.ours.x.data(), n, &iter, options);
    resolve_plan(solver, Precision::double_, n, n, options);
  }
  for (int r = 0; r < 1 + reps; ++r) {
    const bool timed = r >= 1;
    std::copy(A.begin(), A.end(), a.begin());
    const double ours = detail::seconds_of([&] {
      row.report = automatic ? auto_precision_gesv(solver, n, 1, a.data(), n, ipiv.data(), b.data(), n,
                                                   row.ours.x.data(), n, options)
                             : mixed_gesv(solver, n, 1, a.data(), n, ipiv.data(), b.data(), n, row.ours.x.data(), n,
                                          &row.ours.iter, options);
    });
    if (automatic) row.ours.iter = row.report.refinement_steps;
    if (!timed) row.ours.first_seconds = ours;
    if (timed) row.ours.seconds.push_back(ours);
    if (!openblas) continue;
    std::copy(A.begin(), A.end(), a.begin());
    std::copy(b.begin(), b.end(), row.dgesv.x.begin());
    const double plain = detail::seconds_of(
        [&] { LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, a.data(), n, lapack_ipiv.data(), row.dgesv.x.data(), n); });
    std::copy(A.begin(), A.end(), a.begin());
    lapack_int iter = 0;
    const double mixed = detail::seconds_of([&] {
      LAPACKE_dsgesv(LAPACK_COL_MAJOR, n, 1, a.data(), n, lapack_ipiv.data(), const_cast<double*>(b.data()), n,
                     row.dsgesv.x.data(), n, &iter);
    });
    row.dsgesv.iter = iter;
    if (timed) row.dgesv.seconds.push_back(plain), row.dsgesv.seconds.push_back(mixed);
  }
  return row;
}

// On a GPU (#15 item 5): cuSOLVER's double solve of the same system with a double, single and TF32
// factorization (DDgesv, DSgesv, DXgesv), each from host memory as hetlu's hybrid runs are (A and
// b up, x back), against hetlu's fastest row; a table after hetlu's, or the JSON's "cusolver".
template <class Omega>
nlohmann::ordered_json cusolver_rows(int n, int reps, const std::vector<double>& A, const std::vector<double>& b,
                                     double fastest, bool json, Omega&& omega) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  if (!json)
    std::cout << fmt::format(
        "\ncuSOLVER on the same system, median of {}; ratio = its time from host memory / hetlu's fastest row "
        "above ({:.4f} s)\n\n| routine | device s | from host memory s | iter | omega | ratio |\n"
        "|---|---|---|---|---|---|\n",
        reps, fastest);
  using backends::VendorFactorPrecision;
  for (auto factored : {VendorFactorPrecision::double_, VendorFactorPrecision::single, VendorFactorPrecision::tf32}) {
    backends::VendorIrsTiming t;
    try {
      t = backends::time_vendor_irs(n, A.data(), n, b.data(), reps, factored);
    } catch (const Error& e) {
      if (json)
        rows.push_back({{"error", e.what()}});
      else
        std::cout << fmt::format("| {} | | | | | |\n", e.what());
      continue;
    }
    const double from_host = t.upload_seconds + t.solve_seconds + t.download_seconds;
    const double w = omega(Timed{{}, 0, t.x, t.iter});
    if (json)
      rows.push_back({{"routine", t.library},
                      {"seconds", t.solve_seconds},
                      {"from_host_memory_seconds", from_host},
                      {"iter", t.iter},
                      {"backward_error", w},
                      {"ratio", from_host / fastest}});
    else
      std::cout << fmt::format("| {} | {:.4f} | {:.4f} | {} | {:.1e} | {:.2f} |\n", t.library, t.solve_seconds,
                               from_host, t.iter, w, from_host / fastest);
  }
  return rows;
}

}  // namespace

void bench_mixed(const MixedBench& bench, const Options& options) {
  const int n = bench.n;
  const std::vector<double> A = test_matrix(n, bench.cond);
  std::vector<double> b(n);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (auto& x : b) x = u(rng);
  const double tolerance = accuracy::refinement_target<double>(n);
  auto omega = [&](const Timed& t) { return accuracy::backward_error(n, 1, A.data(), n, t.x.data(), n, b.data(), n); };
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  const char* ours_name = bench.automatic ? "auto" : "mixed";
  if (!bench.json)
    std::cout << fmt::format(
        "n = {}, {}, median of {}; ratio = OpenBLAS time / hetlu time (> 1: hetlu faster); omega: componentwise "
        "backward error ((n+1) eps = {:.1e}){}\n\n"
        "| solver | nb (source) | hetlu {} s | {}iter | omega | dgesv s | omega | dsgesv s | iter | omega | vs dgesv "
        "| vs dsgesv | note |\n|---|---|---|---|---|---|---|---|---|---|---|---|---|{}\n",
        n, bench.cond > 0 ? fmt::format("kappa_2(A) = {:.0e}", n > 1 ? bench.cond : 1.0) : "random A", bench.reps,
        tolerance,
        bench.automatic ? "; auto's first call (the warm-up) timed apart, and the precision its last call answered in"
        : !options.mixed_double_accuracy ? "; hetlu with LAPACK's dsgesv semantics (--lapack-test: its test alone, "
                                           "GMRES where classical refinement stalls; PRBT's answers stay certified)"
                                         : "",
        ours_name, bench.automatic ? "first call s | answered in | " : "", bench.automatic ? "---|---|" : "");
  double fastest = std::numeric_limits<double>::infinity();  // hetlu's fastest row, for cuSOLVER's
  for (Solver solver : bench.solvers) {
    const MixedRow r = bench_one(solver, bench.automatic, bench.openblas, n, bench.reps, A, b, options);
    const double ours = detail::median(r.ours.seconds), plain = detail::median(r.dgesv.seconds),
                 mixed = detail::median(r.dsgesv.seconds);
    fastest = std::min(fastest, ours);
    std::string note = bench.automatic ? r.report.auto_choice : r.report.warnings.empty() ? r.report.note : "";
    if (bench.automatic && r.report.plan.precision == Precision::mixed) note += "; " + r.report.note;
    if (!bench.automatic)
      for (const auto& w : r.report.warnings) note += (note.empty() ? "" : "; ") + w;
    if (!r.report.phase_seconds.empty()) note += (note.empty() ? "" : "; ") + describe(r.report.phase_seconds);
    // Whether HETLU_CUDA_TF32 reached the GEMMs: one panel on the device is cuSOLVER's getrf, which
    // takes no TF32 (the 2026-11-27 runs that said TF32 had such plans, and factored in FP32).
    if (uses_cuda(options) && detail::cuda_tf32_requested() && r.report.plan.precision != Precision::double_)
      note += (note.empty() ? "" : "; ") + std::string(r.report.plan.nb >= n && r.report.plan.cpu_block_columns == 0
                                                           ? "TF32 asked for but not used: one panel, cuSOLVER's getrf"
                                                           : "the single-precision GEMMs in TF32");
    if (bench.json) {
      nlohmann::ordered_json row = {{"solver", to_string(solver)},
                                    {"plan", to_json(r.report.plan)},
                                    {"seconds", ours},
                                    {"first_call_seconds", r.ours.first_seconds},
                                    {"answered_in", to_string(r.report.plan.precision)},
                                    {"iter", r.ours.iter},
                                    {"backward_error", omega(r.ours)}};
      if (bench.openblas) {
        row["dgesv_seconds"] = plain;
        row["dgesv_backward_error"] = omega(r.dgesv);
        row["dsgesv_seconds"] = mixed;
        row["dsgesv_iter"] = r.dsgesv.iter;
        row["dsgesv_backward_error"] = omega(r.dsgesv);
        row["ratio_dgesv"] = plain / ours;
        row["ratio_dsgesv"] = mixed / ours;
      }
      row["note"] = note;
      rows.push_back(std::move(row));
      continue;
    }
    const std::string auto_columns =
        bench.automatic
            ? fmt::format("{:.4f}{} | {} | ", r.ours.first_seconds,
                          bench.openblas ? fmt::format(" ({:.2f}x dgesv)", r.ours.first_seconds / plain) : "",
                          to_string(r.report.plan.precision))
            : "";
    const std::string openblas_columns =
        bench.openblas ? fmt::format("{:.4f} | {:.1e} | {:.4f} | {} | {:.1e} | {:.2f} | {:.2f}", plain, omega(r.dgesv),
                                     mixed, r.dsgesv.iter, omega(r.dsgesv), plain / ours, mixed / ours)
                       : "- | - | - | - | - | - | -";
    std::cout << fmt::format("| {} | {} ({}) | {:.4f} | {}{} | {:.1e} | {} | {} |\n", to_string(solver),
                             r.report.plan.nb, origin_of(r.report.plan, "nb"), ours, auto_columns, r.ours.iter,
                             omega(r.ours), openblas_columns, note);
  }
  const auto vendor = uses_cuda(options) ? cusolver_rows(n, bench.reps, A, b, fastest, bench.json, omega)
                                         : nlohmann::ordered_json::array();
  if (bench.json)
    print_json({{"n", n},
                {"precision", ours_name},
                {"cond", bench.cond},
                {"reps", bench.reps},
                {"lapack_test", !options.mixed_double_accuracy},  // --lapack-test: dsgesv's semantics
                {"rows", rows},
                {"cusolver", vendor}});
}

}  // namespace hetlu::cli
