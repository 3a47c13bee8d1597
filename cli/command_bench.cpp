// hetlu bench: each solver against OpenBLAS in the same run, on the same matrix, runs alternating so
// that drift on a shared machine hits both alike; median of --reps after one warm-up of each.
// GEPP and CALU are timed as getrf against dgetrf; PRBT as gesv (refinement included) against dgesv
// (sgetrf and sgesv with --precision single).
#include <fmt/core.h>
#include <lapacke.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <optional>
#include <random>
#include <type_traits>

#include "cli/bench_devices.hpp"
#include "cli/bench_mixed.hpp"
#include "cli/commands.hpp"
#include "cli/distributed.hpp"
#include "cli/report.hpp"
#include "configs/configs.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/statistics.hpp"
#include "hetlu/detail/stopwatch.hpp"
#include "hetlu/hetlu.hpp"
#include "model/predict.hpp"
#include "probes/memory.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/backend.hpp"
#include "solvers/lu.hpp"
#include "solvers/scalar.hpp"

namespace hetlu::cli {

bool uses_cuda(const Options& options) {
  if (options.target != Target::hybrid) return false;
  return options.overrides.devices.value_or(default_devices()).has(BackendKind::cuda);
}

namespace {

// LAPACKE's getrf, getrs and gesv for the element type.
lapack_int lapacke_getrf(int m, int n, double* A, lapack_int* ipiv) {
  return LAPACKE_dgetrf(LAPACK_COL_MAJOR, m, n, A, std::max(1, m), ipiv);
}
lapack_int lapacke_getrf(int m, int n, float* A, lapack_int* ipiv) {
  return LAPACKE_sgetrf(LAPACK_COL_MAJOR, m, n, A, std::max(1, m), ipiv);
}
lapack_int lapacke_getrs(int n, const double* LU, const lapack_int* ipiv, double* x) {
  return LAPACKE_dgetrs(LAPACK_COL_MAJOR, 'N', n, 1, LU, n, ipiv, x, n);
}
lapack_int lapacke_getrs(int n, const float* LU, const lapack_int* ipiv, float* x) {
  return LAPACKE_sgetrs(LAPACK_COL_MAJOR, 'N', n, 1, LU, n, ipiv, x, n);
}
lapack_int lapacke_gesv(int n, double* A, lapack_int* ipiv, double* b) {
  return LAPACKE_dgesv(LAPACK_COL_MAJOR, n, 1, A, n, ipiv, b, n);
}
lapack_int lapacke_gesv(int n, float* A, lapack_int* ipiv, float* b) {
  return LAPACKE_sgesv(LAPACK_COL_MAJOR, n, 1, A, n, ipiv, b, n);
}
// "dgetrf" or "sgetrf": the OpenBLAS routine a row is compared with.
template <class T>
std::string lapack_name(const char* routine) {
  return (std::is_same_v<T, float> ? "s" : "d") + std::string(routine);
}

struct Row {
  Solver solver;
  Plan plan;
  double seconds = 0, reference_seconds = 0, flops = 0;
  double accuracy = 0, reference_accuracy = 0;  // factor residual (getrf) or backward error (gesv)
  std::string accuracy_kind;
  std::string note;
  std::string reference = "OpenBLAS";
  // cuSOLVER only: its time plus the copies a caller with the matrix in host memory pays.
  double reference_with_copies_seconds = std::nan("");
};

// The note on a row measured against cuSOLVER: the same comparison from host memory.
std::string with_copies_note(const Row& row) {
  if (std::isnan(row.reference_with_copies_seconds)) return "";
  return fmt::format("; cuSOLVER from host memory (A up{}): {:.4f} s, ratio {:.2f}",
                     row.solver == Solver::prbt ? "" : ", factors back", row.reference_with_copies_seconds,
                     row.reference_with_copies_seconds / row.seconds);
}

// What hetlu's timings are compared with. With the cuda backend, cuSOLVER on the device (timed once
// per bench, matrix resident, device time only: the stricter comparison); otherwise OpenBLAS through
// LAPACKE, timed alternately with hetlu; or nothing (bench --sweep-d times hetlu alone).
struct Reference {
  enum class Kind { openblas, vendor, none } kind = Kind::openblas;
  backends::VendorLuTiming vendor;  // kind == vendor
  bool alternates() const { return kind == Kind::openblas; }
};

template <class T>
Reference reference_for(const Options& options, int m, int n, int reps, const std::vector<T>& A) {
  if (!uses_cuda(options)) return {};
  return {Reference::Kind::vendor, backends::time_vendor_lu(m, n, A.data(), m, 1, reps)};
}

// Above this order a getrf row is judged by the backward error of a solve with its factors, as
// SLATE's testers judge a large getrf: the factor residual ||PA - LU|| copies A three times in double
// and runs a full n^3 GEMM on the CPUs (about a minute at n = 32768 on 16 cores, longer than the
// factorizations it checks).
constexpr int factor_residual_limit = 20000;

// omega of x solved with the factors LU (from getrf of A) for the right-hand side b.
template <class T>
double solve_backward_error(int n, const std::vector<T>& A, const std::vector<T>& LU, const int* ipiv,
                            const std::vector<T>& b) {
  std::vector<T> x = b;
  const std::vector<lapack_int> pivots(ipiv, ipiv + n);
  lapacke_getrs(n, LU.data(), pivots.data(), x.data());
  return accuracy::backward_error(n, 1, A.data(), n, x.data(), n, b.data(), n);
}

// warmups untimed runs of each side first (the sweep's later rounds need none). by_solve: judge a
// square factorization by the backward error of a solve with it (default: above the limit).
template <class T>
Row bench_getrf(Solver solver, int m, int n, int reps, const std::vector<T>& A, const std::vector<T>& b,
                const Options& options, const Reference& reference, int warmups = 1, bool by_solve = false) {
  Row row;
  row.solver = solver;
  row.plan = resolve_plan(solver, scalar::plan_precision<T>(), m, n, options).plan;
  std::vector<T> ours(A.size()), theirs(A.size());
  std::vector<int> ipiv(std::max(1, std::min(m, n)));
  std::vector<lapack_int> lapack_ipiv(ipiv.size());
  std::vector<double> ta, tb;
  PhaseSeconds phases;  // d = 0 on one device: upload, factorization, download after it
  for (int r = 0; r < warmups + reps; ++r) {
    const bool timed = r >= warmups;
    std::copy(A.begin(), A.end(), ours.begin());
    LoadBalance balance;
    const double t_ours = detail::seconds_of(
        [&] { solvers::getrf(row.plan, m, n, ours.data(), m, ipiv.data(), InputCheck::finite, &balance); });
    if (timed && ta.size() == static_cast<std::size_t>(reps / 2)) phases = balance.phases;  // the middle run's
    if (!reference.alternates()) {
      if (timed) ta.push_back(t_ours);
      continue;
    }
    std::copy(A.begin(), A.end(), theirs.begin());
    const double t_theirs = detail::seconds_of([&] { lapacke_getrf(m, n, theirs.data(), lapack_ipiv.data()); });
    if (timed) ta.push_back(t_ours), tb.push_back(t_theirs);
  }
  row.seconds = detail::median(ta);
  row.flops = detail::getrf_flops(m, n);
  by_solve = m == n && (by_solve || n > factor_residual_limit);
  row.accuracy_kind = by_solve ? "backward error" : "residual";
  row.accuracy = by_solve ? solve_backward_error(n, A, ours, ipiv.data(), b)
                          : accuracy::factorization_residual(m, n, A.data(), m, ours.data(), m, ipiv.data());
  if (reference.alternates()) {
    row.reference_seconds = detail::median(tb);
    if (!phases.empty()) row.note = "phases of a run: " + describe(phases);
    std::vector<int> reference_ipiv(lapack_ipiv.begin(), lapack_ipiv.end());
    row.reference_accuracy =
        by_solve ? solve_backward_error(n, A, theirs, reference_ipiv.data(), b)
                 : accuracy::factorization_residual(m, n, A.data(), m, theirs.data(), m, reference_ipiv.data());
    return row;
  }
  const bool vendor = reference.kind == Reference::Kind::vendor;
  row.reference = vendor ? reference.vendor.library + " getrf" : "";
  row.reference_seconds = vendor ? reference.vendor.getrf_seconds : std::nan("");
  if (vendor)
    row.reference_with_copies_seconds =
        reference.vendor.upload_seconds + reference.vendor.getrf_seconds + reference.vendor.download_seconds;
  const std::string copies = with_copies_note(row);
  row.note = phases.empty() ? copies.substr(std::min<std::size_t>(2, copies.size()))  // no leading "; "
                            : "phases of a run: " + describe(phases) + copies;
  row.reference_accuracy = std::nan("");
  return row;
}

template <class T>
Row bench_gesv(Solver solver, int n, int reps, const std::vector<T>& A, const std::vector<T>& b, const Options& options,
               const Reference& reference, int warmups = 1) {
  Row row;
  row.solver = solver;
  row.plan = resolve_plan(solver, scalar::plan_precision<T>(), n, n, options).plan;
  std::vector<T> ours(A.size()), theirs(A.size()), x(b.size()), y(b.size());
  std::vector<int> ipiv(std::max(1, n));
  std::vector<lapack_int> lapack_ipiv(ipiv.size());
  std::vector<double> ta, tb;
  std::vector<SolveDetails> timed_details;  // the phases shown are the repetition nearest the median's
  for (int r = 0; r < warmups + reps; ++r) {
    const bool timed = r >= warmups;
    std::copy(A.begin(), A.end(), ours.begin());
    std::copy(b.begin(), b.end(), x.begin());
    SolveDetails details;
    const double t_ours = detail::seconds_of(
        [&] { solvers::gesv(row.plan, n, 1, ours.data(), n, ipiv.data(), x.data(), n, InputCheck::finite, &details); });
    if (timed) timed_details.push_back(details);
    if (!reference.alternates()) {
      if (timed) ta.push_back(t_ours);
      continue;
    }
    std::copy(A.begin(), A.end(), theirs.begin());
    std::copy(b.begin(), b.end(), y.begin());
    const double t_theirs = detail::seconds_of([&] { lapacke_gesv(n, theirs.data(), lapack_ipiv.data(), y.data()); });
    if (timed) ta.push_back(t_ours), tb.push_back(t_theirs);
  }
  row.seconds = detail::median(ta);
  // The phases of the last repetition had stood beside the median time (they summed to 0.0078 s
  // against 0.0058 in a noisy run; a hostile helper's finding).
  const auto nearest = std::min_element(
      ta.begin(), ta.end(), [&](double p, double q) { return std::abs(p - row.seconds) < std::abs(q - row.seconds); });
  const SolveDetails details = ta.empty() ? SolveDetails{} : timed_details[static_cast<size_t>(nearest - ta.begin())];
  if (!reference.alternates()) {
    const bool vendor = reference.kind == Reference::Kind::vendor;
    row.reference = vendor ? reference.vendor.library + " getrf+getrs" : "";
    row.reference_seconds = vendor ? reference.vendor.getrf_seconds + reference.vendor.getrs_seconds : std::nan("");
    if (vendor) row.reference_with_copies_seconds = reference.vendor.upload_seconds + row.reference_seconds;
    y.assign(b.size(), T(std::nan("")));
  } else {
    row.reference_seconds = detail::median(tb);
  }
  row.flops = detail::gesv_flops(n, 1);
  row.accuracy_kind = "backward error";
  row.accuracy = accuracy::backward_error(n, 1, A.data(), n, x.data(), n, b.data(), n);
  row.reference_accuracy =
      reference.alternates() ? accuracy::backward_error(n, 1, A.data(), n, y.data(), n, b.data(), n) : std::nan("");
  row.note = fmt::format("{} refinement step(s) ({}){}{}", details.refinement_steps, describe(details.phase_seconds),
                         details.fell_back_to_gepp ? ", fell back to GEPP: " + details.note
                         : details.note.empty()    ? ""
                                                   : "; " + details.note,
                         with_copies_note(row));
  return row;
}

// GFlop/s for each CPU share d from 0 (all on the device) to N block columns: the curve of
// async-calu Figure 5, with the model's d and the tuned d (hetlu calibrate --target hybrid) marked.
// Each point's accuracy is the backward error of a solve with its factors where the matrix is square
// (a factor residual per point and round would cost more than the sweep's timings), else the factor
// residual.
// The sweep runs at the nb hetlu would use (tuned, else the model's); the model's d is its share of
// the block columns at that nb. With json, returns the sweep as a JSON object instead of printing it
// (the caller prints one document for all the solvers).
template <class T>
nlohmann::ordered_json sweep_d(Solver solver, int m, int n, int reps, const std::vector<T>& A, const std::vector<T>& b,
                               Options options, bool json) {
  constexpr Precision precision = scalar::plan_precision<T>();
  options.target = Target::hybrid;
  options.overrides.cpu_block_columns.reset();
  options.overrides.panel_location.reset();
  const Resolution chosen = resolve_plan(solver, precision, m, n, options);
  const bool tuned = chosen.plan.source == PlanSource::tuned;
  // A plan of one panel (the device's LU of the whole matrix) has no block columns to share: the
  // sweep then takes the widest candidate width that leaves at least four, as the model prices.
  int nb = chosen.plan.nb;
  if (nb >= std::min(m, n)) nb = model::widest_priced_candidate(configs::model_params(), std::min(m, n));
  const int blocks = block_columns(n, nb);
  options.overrides.nb = nb;
  // The model's price of a plan of this nb and d: the same model, rates and plan the solver runs.
  auto predicted_seconds = [&](int d) {
    options.overrides.cpu_block_columns = d;
    return resolve_plan(solver, precision, m, n, options).plan.predicted_seconds;
  };
  // The model's price of every d at this nb, and its d: the least.
  std::vector<std::optional<double>> priced(blocks + 1);
  int model_d = -1;
  double least = std::numeric_limits<double>::infinity();
  for (int d = 0; d <= blocks; ++d)
    if (const auto t = priced[d] = predicted_seconds(d); t && *t < least) least = *t, model_d = d;
  const int tuned_d =
      tuned ? same_cpu_share(chosen.plan.cpu_block_columns, block_columns(n, chosen.plan.nb), blocks) : -1;
  const int step = std::max(1, (blocks + 31) / 32);  // at most about 33 points
  std::vector<int> ds;
  for (int d = 0; d <= blocks; d += step) ds.push_back(d);
  if (ds.back() != blocks) ds.push_back(blocks);
  for (int marked : {model_d, tuned_d})
    if (marked >= 0 && std::find(ds.begin(), ds.end(), marked) == ds.end()) ds.push_back(marked);
  std::sort(ds.begin(), ds.end());
  std::vector<double> measured_gflops, predicted_gflops_all;  // of the points the model priced
  double best_gflops = 0, model_d_gflops = 0;
  nlohmann::ordered_json points = nlohmann::ordered_json::array();
  if (!json)
    std::cout << fmt::format(
        "{} {} x {} on the {} backend, nb = {}, N = {} block columns; median of {} rounds, each timing every d "
        "once\n\n| d | d/N | seconds | GFlop/s | "
        "model: seconds, GFlop/s | {} | |\n|---|---|---|---|---|---|---|\n",
        to_string(solver), m, n, to_string(chosen.plan.devices), nb, blocks, reps,
        m == n ? "omega of a solve" : "factor residual");
  const Reference no_reference{Reference::Kind::none, {}};  // the sweep times hetlu alone
  // Round-robin: each round times every d once, so that a shared machine's drift over the minutes
  // a sweep takes hits every d alike instead of the d values timed while it lasted.
  std::vector<Row> rows(ds.size());
  std::vector<std::vector<double>> seconds(ds.size());
  for (int round = 0; round < reps; ++round)
    for (size_t i = 0; i < ds.size(); ++i) {
      options.overrides.cpu_block_columns = ds[i];
      // An untimed run first in the first round, where a plan's one-off costs (its staging slots)
      // would show: before the first point and each the model prices under a second. A warm-up of
      // every point doubled the round (at 16384 on an H100 the sweep ran past its 240 s, 2026-11-26).
      const std::optional<double>& price = priced[ds[i]];
      const int warmups = round == 0 && (i == 0 || !price || *price < 1.0) ? 1 : 0;
      rows[i] = solver == Solver::prbt ? bench_gesv(solver, n, 1, A, b, options, no_reference, warmups)
                                       : bench_getrf(solver, m, n, 1, A, b, options, no_reference, warmups,
                                                     /*by_solve=*/true);
      seconds[i].push_back(rows[i].seconds);
    }
  for (size_t i = 0; i < ds.size(); ++i) {
    const int d = ds[i];
    Row& row = rows[i];
    row.seconds = detail::median(seconds[i]);
    const double gflops = detail::gflops(row.flops, row.seconds);
    // The model's price of this very plan (its d and nb), beside the measurement.
    const std::optional<double>& predicted = priced[d];
    best_gflops = std::max(best_gflops, gflops);
    if (d == model_d) model_d_gflops = gflops;
    if (predicted)
      measured_gflops.push_back(gflops), predicted_gflops_all.push_back(detail::gflops(row.flops, *predicted));
    const std::string mark = d == model_d && d == tuned_d ? "model's d, tuned d"
                             : d == model_d               ? "model's d"
                             : d == tuned_d               ? "tuned d"
                                                          : "";
    const auto predicted_json = predicted ? nlohmann::ordered_json(*predicted) : nlohmann::ordered_json(nullptr);
    const auto predicted_gflops =
        predicted ? nlohmann::ordered_json(detail::gflops(row.flops, *predicted)) : nlohmann::ordered_json(nullptr);
    if (json)
      points.push_back({{"d", d},
                        {"seconds", row.seconds},
                        {"gflops", gflops},
                        {"predicted_seconds", predicted_json},
                        {"predicted_gflops", predicted_gflops},
                        {"accuracy", row.accuracy},
                        {"accuracy_kind", row.accuracy_kind},
                        {"mark", mark}});
    else
      std::cout << fmt::format(
          "| {} | {:.2f} | {:.4f} | {:.2f} | {} | {:.2e} | {} |\n", d, double(d) / blocks, row.seconds, gflops,
          predicted ? fmt::format("{:.4f} s, {:.2f}", *predicted, detail::gflops(row.flops, *predicted))
                    : std::string("-"),
          row.accuracy, mark);
  }
  // How the model's choice fares: the measured rate at its d against the best measured, and how
  // alike the predicted and measured curves rank the d values (#13.4).
  // No d priced (no rate to predict from): no model's d, no share.
  const double share_of_best = model_d >= 0 && best_gflops > 0 ? model_d_gflops / best_gflops : std::nan("");
  const double rank_agreement = detail::spearman(predicted_gflops_all, measured_gflops);
  auto number_or_null = [](double x) { return std::isfinite(x) ? nlohmann::ordered_json(x) : nullptr; };
  if (json) {
    return nlohmann::ordered_json(
        {{"solver", to_string(solver)},
         {"m", m},
         {"n", n},
         {"nb", nb},
         {"block_columns", blocks},
         {"devices", to_string(chosen.plan.devices)},
         {"model_d", model_d >= 0 ? nlohmann::ordered_json(model_d) : nlohmann::ordered_json(nullptr)},
         {"measured_at_model_d_share_of_best", number_or_null(share_of_best)},
         {"spearman_predicted_measured", number_or_null(rank_agreement)},
         {"tuned_d", tuned ? nlohmann::ordered_json(tuned_d) : nlohmann::ordered_json(nullptr)},
         {"points", points}});
  }
  if (model_d < 0)
    std::cout << "\nthe model priced no d (no rate to predict from)\n";
  else
    std::cout << fmt::format(
        "\nmodel's d = {} ({:.1f} % of the block columns): measured {:.1f} % of the best d's GFlop/s; predicted and "
        "measured curves rank the d values with Spearman {:.2f}\n",
        model_d, 100.0 * model_d / blocks, 100 * share_of_best, rank_agreement);
  std::cout << (tuned ? fmt::format("tuned d = {} ({})\n", tuned_d, chosen.plan.source_detail)
                      : "tuned d: none (run hetlu calibrate --target hybrid)\n");
  return {};
}

// One bench run of the standard (non-mixed) comparison in precision T (float or double).
struct BenchRun {
  int m, n, reps;
  std::vector<Solver> solvers;
  bool all_solvers, sweep_d, json;
};

// PRBT solves square systems only: asked alone on m != n, a usage error; within --solver all,
// skipped and said (it was dropped in silence).
bool skipped_as_not_square(Solver s, int m, int n, bool all_solvers) {
  if (s != Solver::prbt || m == n) return false;
  if (!all_solvers) throw UsageError("prbt solves square systems only: give m = n");
  warn(fmt::format("--solver all leaves out prbt, which solves square systems only (m = {}, n = {})", m, n));
  return true;
}

template <class T>
void run_bench(const BenchRun& run, const Options& options) {
  const int m = run.m, n = run.n;
  std::mt19937_64 rng(2026);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<T> A(static_cast<size_t>(m) * n), b(m);
  for (auto& a : A) a = T(u(rng));
  for (auto& x : b) x = T(u(rng));

  if (run.sweep_d) {
    auto sweeps = nlohmann::ordered_json::array();
    for (Solver s : run.solvers) {
      if (skipped_as_not_square(s, m, n, run.all_solvers)) continue;
      sweeps.push_back(sweep_d(s, m, n, run.reps, A, b, options, run.json));
    }
    if (run.json)
      print_json({{"m", m},
                  {"n", n},
                  {"precision", to_string(scalar::plan_precision<T>())},
                  {"reps", run.reps},
                  {"sweeps", sweeps}});
    return;
  }
  // Several devices' balance table is timed in double (the caller refuses single with several).
  constexpr bool is_double = std::is_same_v<T, double>;
  const bool several_devices = is_double && options.overrides.devices && options.overrides.devices->size() > 1;
  const Reference reference = reference_for(options, m, n, run.reps, A);
  std::vector<Row> rows;
  for (Solver s : run.solvers) {
    if (skipped_as_not_square(s, m, n, run.all_solvers)) continue;
    rows.push_back(s == Solver::prbt ? bench_gesv(s, n, run.reps, A, b, options, reference)
                                     : bench_getrf(s, m, n, run.reps, A, b, options, reference));
  }

  if (run.json) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& r : rows)
      out.push_back(
          {{"solver", to_string(r.solver)},
           {"routine", r.solver == Solver::prbt ? "gesv" : "getrf"},
           {"plan", to_json(r.plan)},
           {"seconds", r.seconds},
           {"gflops", detail::gflops(r.flops, r.seconds)},
           {"reference", r.reference},  // OpenBLAS, or cuSOLVER on the cuda backend
           {"reference_seconds", r.reference_seconds},
           {"reference_gflops", detail::gflops(r.flops, r.reference_seconds)},
           {"ratio", r.reference_seconds / r.seconds},
           {"reference_with_copies_seconds", r.reference_with_copies_seconds},
           {"ratio_with_copies", r.reference_with_copies_seconds / r.seconds},
           {r.accuracy_kind == "residual" ? "residual" : "backward_error", r.accuracy},
           {r.accuracy_kind == "residual" ? "reference_residual" : "reference_backward_error", r.reference_accuracy},
           {"note", r.note}});
    nlohmann::ordered_json object = {
        {"m", m}, {"n", n}, {"precision", to_string(scalar::plan_precision<T>())}, {"reps", run.reps}, {"rows", out}};
    if constexpr (is_double)
      if (several_devices) object["balance"] = bench_balance(run.solvers, m, n, run.reps, A, options, true);
    print_json(object);
    return;
  }
  std::cout << fmt::format("m = {}, n = {}, {}, target {}, median of {}; ratio = reference time / hetlu time\n\n", m, n,
                           to_string(scalar::plan_precision<T>()), to_string(options.target), run.reps);
  std::cout << "| solver | routine vs reference | nb (source) | hetlu s | GFlop/s | reference s | GFlop/s | ratio | "
               "accuracy hetlu | reference | note |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  // The model's price of the plan beside the measured time (#17: within 25 % at every size).
  auto model_note = [](const Row& r) {
    return r.plan.predicted_seconds ? fmt::format("model {:.4f} s ({:+.0f} %)", *r.plan.predicted_seconds,
                                                  100 * (*r.plan.predicted_seconds / r.seconds - 1))
                                    : std::string("model: no price");
  };
  auto with_model = [&](const Row& r, const std::string& note) {
    return note.empty() ? model_note(r) : note + "; " + model_note(r);
  };
  for (const auto& r : rows)
    std::cout << fmt::format(
        "| {} | {} vs {} | {} ({}) | {:.4f} | {:.1f} | {:.4f} | {:.1f} | {:.2f} | {:.2e} | {:.2e} | {} |\n",
        to_string(r.solver), r.solver == Solver::prbt ? "gesv" : "getrf",
        r.reference == "OpenBLAS" ? lapack_name<T>(r.solver == Solver::prbt ? "gesv" : "getrf") : r.reference,
        r.plan.nb, origin_of(r.plan, "nb"), r.seconds, detail::gflops(r.flops, r.seconds), r.reference_seconds,
        detail::gflops(r.flops, r.reference_seconds), r.reference_seconds / r.seconds, r.accuracy, r.reference_accuracy,
        with_model(r, r.plan.target == Target::hybrid
                          ? fmt::format("{} {}, d = {}, panel on the {}{}{}", to_string(r.plan.devices),
                                        r.plan.devices.size() > 1 ? "devices" : "backend", r.plan.cpu_block_columns,
                                        to_string(panel_location(r.plan)), r.note.empty() ? "" : "; ", r.note)
                          : r.note));
  if constexpr (is_double)
    if (several_devices) bench_balance(run.solvers, m, n, run.reps, A, options, false);
}

}  // namespace

void register_bench(CLI::App& app, CommandState&) {
  struct Args {
    std::string db, solver = "all", precision = "double";
    int m = -1, n = 0, reps = 5;
    double cond = 0;
    std::optional<int> nb, ib;
    bool json = false, sweep_d = false, distributed = false, no_openblas = false, lapack_test = false;
    HybridArgs hybrid;
    DistributedArgs distributed_plan;
  };
  auto args = std::make_shared<Args>();
  auto* cmd =
      app.add_subcommand("bench", "Time the solvers against OpenBLAS in the same run (ratio > 1: hetlu faster)");
  add_db_option(*cmd, args->db);
  cmd->add_option("-m", args->m, "rows (default: n)")->transform(whole_positive);
  cmd->add_option("-n", args->n, "columns")->required()->transform(whole_positive);
  cmd->add_option("--solver", args->solver, "gepp, calu, prbt or all")
      ->capture_default_str()
      ->check(one_of(detail::solver_names.all(), {"all"}));
  cmd->add_option("--reps", args->reps, "timed runs of each, after one warm-up")
      ->transform(whole_in(1, 1000))
      ->capture_default_str();
  cmd->add_option("--nb", args->nb, "panel width (overrides the tuned or model value)")->transform(whole_positive);
  cmd->add_option("--ib", args->ib, "CALU's inner panel width (overrides)")->transform(whole_positive);
  cmd->add_option("--precision", args->precision,
                  "double (against dgetrf, dgesv), single (sgetrf, sgesv; cuSOLVER's S routines on the cuda backend), "
                  "or mixed: a single factorization refined in double, or auto: "
                  "mixed or double as hetlu decides, each against OpenBLAS dgesv and dsgesv; --distributed: double "
                  "or single")
      ->capture_default_str()
      ->check(CLI::IsMember({"double", "mixed", "auto", "single"}));
  cmd->add_option("--cond", args->cond,
                  "--precision mixed or auto: A with singular values graded from 1 to 1/COND (default: a random A)")
      // One refusal for 0, 0.5, inf, 0x10 and text alike; CLI::Range would print 1e300 in 300 digits.
      ->check(decimal_in(1, 1e300, "from 1 to 1e300"));
  add_hybrid_options(*cmd, args->hybrid);
  cmd->add_flag("--sweep-d", args->sweep_d, "hybrid: GFlop/s for each CPU share d, the model's d marked");
  cmd->add_flag("--json", args->json, "print one JSON object");
  cmd->add_flag("--no-openblas", args->no_openblas,
                "--precision mixed or auto: time hetlu (and cuSOLVER on a GPU) alone, without OpenBLAS's dgesv and "
                "dsgesv");
  // Default off: hetlu's own mixed solve, with its answers certified to double's accuracy.
  cmd->add_flag("--lapack-test", args->lapack_test,
                "--precision mixed: hetlu's solve with LAPACK's dsgesv semantics, as the drop-in's dsgesv_ (its "
                "convergence test alone, GMRES-based refinement where classical refinement stalls, no certificate; "
                "PRBT's answers stay certified)");
  add_distributed_options(*cmd, args->distributed, args->distributed_plan);
  cmd->callback([args, cmd] {
    // Each row as soon as it is measured, also into a pipe: a bench killed at a time limit (tee'd on
    // the GPU machine, 2026-11-27) kept none of its rows.
    std::cout << std::unitbuf;
    if (args->distributed) {
      for (const char* option : {"-m", "--solver", "--ib", "--cond", "--sweep-d", "--target", "--backend", "--devices",
                                 "--d", "--panel", "--no-openblas", "--lapack-test"})
        if (cmd->count(option) > 0) throw UsageError(std::string(option) + " does not apply to --distributed");
      DistributedBenchArgs d;
      d.db = args->db, d.precision = args->precision, d.n = args->n, d.repetitions = args->reps;
      d.plan = args->distributed_plan, d.plan.nb = args->nb, d.json = args->json;
      bench_distributed(d);
      return;
    }
    refuse_distributed_only_options(*cmd);
    const int m = args->m < 0 ? args->n : args->m, n = args->n;
    // A, hetlu's copy, the reference's copy, and the factors checked against A: four m x n arrays.
    const double word = args->precision == "single" ? 4 : 8;
    probes::require_memory(4 * word * m * double(n),
                           "bench of a " + std::to_string(m) + " x " + std::to_string(n) + " matrix");
    std::vector<Solver> solvers;
    if (args->solver == "all")
      solvers = {Solver::gepp, Solver::calu, Solver::prbt};
    else
      solvers = {from_string<Solver>(args->solver)};
    if (static_cast<double>(m) * n > 2e9)
      throw InvalidArgument(fmt::format("{} x {} is too large to benchmark here", m, n));
    Options options;
    apply_hybrid_options(args->hybrid, options);
    if (args->sweep_d && options.target != Target::hybrid) throw UsageError("--sweep-d needs --target hybrid");
    if (args->sweep_d && (args->hybrid.d || !args->hybrid.panel.empty()))
      throw UsageError("--sweep-d runs every d (and its panel placement): it takes no --d or --panel");
    options.db_path = args->db;
    options.overrides.nb = args->nb;
    options.overrides.ib = args->ib;
    const bool mixed = args->precision == "mixed" || args->precision == "auto";
    if (args->cond > 0 && !mixed) throw UsageError("--cond is for --precision mixed or auto");
    if (args->no_openblas && !mixed) throw UsageError("--no-openblas is for --precision mixed or auto");
    if (args->lapack_test && args->precision != "mixed") throw UsageError("--lapack-test is for --precision mixed");
    options.mixed_double_accuracy = !args->lapack_test;
    if (mixed) {
      if (m != n) throw UsageError("--precision " + args->precision + " solves square systems: give m = n");
      if (args->sweep_d) throw UsageError("--sweep-d is for --precision double or single");
      bench_mixed(
          MixedBench{n, args->reps, args->cond, solvers, args->precision == "auto", args->json, !args->no_openblas},
          options);
      return;
    }

    const BenchRun run{m, n, args->reps, solvers, args->solver == "all", args->sweep_d, args->json};
    if (args->precision == "single") {
      if (options.overrides.devices && options.overrides.devices->size() > 1)
        throw UsageError("--precision single takes one device (the balance table is timed in double)");
      run_bench<float>(run, options);
    } else {
      run_bench<double>(run, options);
    }
  });
}

}  // namespace hetlu::cli
