// hetlu bench on several devices: the proportional deal against the equal one, in the same run,
// with every processor's busy and idle time (bench_devices.hpp).
#include "cli/bench_devices.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <iostream>

#include "cli/commands.hpp"
#include "cli/report.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/stopwatch.hpp"
#include "solvers/lu.hpp"

namespace hetlu::cli {
namespace {

struct Deal {
  std::string name;  // "proportional" or "equal"
  Plan plan;
  std::vector<LoadBalance> runs;  // one per timed run

  // The run of median time (its processors' times are one run's, never mixed across runs).
  const LoadBalance& median_run() const {
    std::vector<const LoadBalance*> sorted;
    for (const auto& r : runs) sorted.push_back(&r);
    std::sort(sorted.begin(), sorted.end(), [](auto* a, auto* b) { return a->seconds < b->seconds; });
    return *sorted[sorted.size() / 2];
  }
};

std::string shares_text(const Plan& plan) {
  if (plan.device_shares.empty()) return "equal";
  double total = 0;
  for (double s : plan.device_shares) total += s;
  std::string text;
  for (double s : plan.device_shares) text += fmt::format("{}{:.1f}%", text.empty() ? "" : " / ", 100 * s / total);
  return text;
}

}  // namespace

nlohmann::ordered_json bench_balance(const std::vector<Solver>& solvers, int m, int n, int reps,
                                     const std::vector<double>& A, const Options& options, bool json) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  if (!json)
    std::cout << fmt::format(
        "\nBalance on {} devices beside the CPUs: median of {} alternating runs; idle = wall time - busy time; the "
        "average idle ratio is the mean of idle / wall over the processors (heterogeneous-column-block §4)\n\n"
        "| solver | deal | shares | seconds | GFlop/s | avg idle ratio | processors: busy s (block columns), idle % |\n"
        "|---|---|---|---|---|---|---|\n",
        options.overrides.devices ? options.overrides.devices->size() : 1, reps);
  for (Solver solver : solvers) {
    if (solver == Solver::prbt) continue;  // no P A = L U to time: its GENP runs inside gesv
    const Resolution r = resolve_plan(solver, Precision::double_, m, n, options);
    std::vector<Deal> deals = {{"proportional", r.plan, {}}, {"equal", r.plan, {}}};
    deals[1].plan.device_shares.clear();
    std::vector<double> work(A.size());
    std::vector<int> ipiv(std::min(m, n));
    for (int rep = -1; rep < reps; ++rep)  // one warm-up of each, then alternating
      for (auto& deal : deals) {
        std::copy(A.begin(), A.end(), work.begin());
        LoadBalance balance;
        const int info = solvers::getrf(deal.plan, m, n, work.data(), m, ipiv.data(), InputCheck::finite, &balance);
        if (info < 0) throw Error("bench: getrf returned info " + std::to_string(info));
        if (rep >= 0) deal.runs.push_back(balance);
      }
    const double flops = detail::getrf_flops(m, n);
    const double proportional = deals[0].median_run().seconds, equal = deals[1].median_run().seconds;
    for (const auto& deal : deals) {
      const LoadBalance& b = deal.median_run();
      nlohmann::ordered_json processors = nlohmann::ordered_json::array();
      std::string cells;
      for (const auto& p : b.processors) {
        const double idle = b.seconds > 0 ? (b.seconds - p.busy_seconds) / b.seconds : 0;
        processors.push_back({{"name", p.name},
                              {"block_columns", p.block_columns},
                              {"busy_seconds", p.busy_seconds},
                              {"idle_seconds", b.seconds - p.busy_seconds},
                              {"idle_ratio", idle}});
        cells += fmt::format("{}{}: {:.4f} ({}), {:.0f} %", cells.empty() ? "" : "; ", p.name, p.busy_seconds,
                             p.block_columns, 100 * idle);
      }
      rows.push_back({{"solver", to_string(solver)},
                      {"deal", deal.name},
                      {"devices", to_string(deal.plan.devices)},
                      {"device_shares", deal.plan.device_shares},
                      {"nb", deal.plan.nb},
                      {"d", deal.plan.cpu_block_columns},
                      {"seconds", b.seconds},
                      {"gflops", detail::gflops(flops, b.seconds)},
                      {"average_idle_ratio", b.average_idle_ratio()},
                      {"processors", processors}});
      if (!json)
        std::cout << fmt::format("| {} | {} | {} | {:.4f} | {:.1f} | {:.3f} | {} |\n", to_string(solver), deal.name,
                                 shares_text(deal.plan), b.seconds, detail::gflops(flops, b.seconds),
                                 b.average_idle_ratio(), cells);
    }
    rows.back()["equal_over_proportional"] = equal / proportional;
    if (!json)
      std::cout << fmt::format(
          "\n{}: nb = {}, d = {}; the proportional deal is {:.2f}x the equal one (equal time / "
          "proportional time)\n",
          to_string(solver), r.plan.nb, r.plan.cpu_block_columns, equal / proportional);
  }
  return rows;
}

}  // namespace hetlu::cli
