// The model of the CPUs' blocked LU and of their panels, and of the O(n^2) work around it (PRBT's
// passes, mixed precision's refinement on the CPUs).
#include <algorithm>
#include <cmath>
#include <string>

#include "model/pricing.hpp"

namespace hetlu::model {

CpuTimes cpu_lu_seconds(const MachineProfile& profile, const Rates& rates, Solver solver, int m, int n,
                        const Plan& plan, const ModelParams& params, double word) {
  const int nb = std::max(1, plan.nb);
  const int cores = std::max(1, rates.cores);
  // One panel (nb >= min(m, n)) leaves nothing to look ahead to: it runs on all threads.
  const bool lookahead = plan.lookahead > 0 && cores > 1 && nb < std::min(m, n);
  const double one = rates.cpu_one.gflops * 1e9, all = rates.cpu_all.gflops * 1e9;
  // Under look-ahead a GEPP panel runs on one thread; a TSLU's row blocks (one per panel thread)
  // become tasks that idle threads pick up (tslu.cpp), and its tournament is played: the probe of
  // plan.panel_threads threads measures both (the one-thread probe plays no tournament).
  const int panel_threads = solver == Solver::calu ? std::max(1, plan.panel_threads) : (lookahead ? 1 : cores);
  const double genp = solver == Solver::prbt ? params.genp_panel_speedup : 1.0;
  // The generic panel rate was chosen for the narrow panels of the blocked algorithm; one panel
  // over the whole matrix is the recursive LU itself, mostly GEMM: modelled as it recurses.
  const int leaf_width = nb >= std::min(m, n) ? params.panel_leaf_width : 0;
  // CALU's panel from its TSLU leaves (plan.ib wide) where they were probed; its BLAS calls run on
  // one thread inside the look-ahead's tasks.
  const bool calu_from_leaves = solver == Solver::calu && has_tslu_leaf_rates(profile);
  CpuTimes t;
  for_each_step(m, n, nb, [&](const Step& s) {
    const double panel =
        calu_from_leaves
            ? calu_panel_seconds(profile, rates, s.rows, int(s.jb), plan.ib, panel_threads, !lookahead, params)
            : cpu_panel_seconds(profile, rates, solver, s.rows, int(s.jb), panel_threads, params, leaf_width) / genp;
    // GENP (PRBT) swaps nothing; GEPP and CALU interchange rows across the whole width.
    const double swaps = solver == Solver::prbt ? 0 : swap_seconds(s, n, word, rates.memory_gbs);
    t.panel += panel;
    t.swaps += swaps;
    t.overhead += params.step_overhead_seconds;
    if (!lookahead) {
      const double update = s.update_flops(s.right) / (all * efficiency(s.jb, params.gemm_half_rate_k));
      t.update += update;
      t.total += panel + update + swaps + params.step_overhead_seconds;
      return;
    }
    // Thread 0: the next block column's update and panel; everyone: the rest of the update.
    const double rate_one = one * efficiency(s.jb, params.gemm_half_rate_k);
    const double next = std::min(s.right, s.jb);
    const double critical = panel + s.update_flops(next) / rate_one;
    const double shared = (critical + s.update_flops(s.right - next) / rate_one) / cores;
    t.update += s.update_flops(s.right) / (rate_one * cores);
    t.total += std::max(critical, shared) + swaps + params.step_overhead_seconds;
  });
  return t;
}

namespace {

// Seconds per entry of one of PRBT's O(n^2) passes at order n: the probed cost, interpolated in
// log n between the orders probed (the smaller ones run in cache) and held beyond them; without a
// probe, `memory_bytes` per entry at the triad bandwidth. Probed in double: single precision
// moves half the bytes.
double pass_seconds_per_entry(const MachineProfile& profile, const Rates& rates, const std::string& kind, int n,
                              double word, double memory_bytes) {
  const PassCost *below = nullptr, *above = nullptr;
  for (const auto& c : profile.pass_costs) {
    if (c.kind != kind || c.n <= 0 || c.ns_per_entry <= 0) continue;
    if (c.n <= n && (!below || c.n > below->n)) below = &c;
    if (c.n >= n && (!above || c.n < above->n)) above = &c;
  }
  const double scale = word / 8 * 1e-9;
  if (below && above && below->n != above->n) {
    const double t = std::log(double(n) / below->n) / std::log(double(above->n) / below->n);
    return scale * std::exp((1 - t) * std::log(below->ns_per_entry) + t * std::log(above->ns_per_entry));
  }
  if (below || above) return scale * (below ? below : above)->ns_per_entry;
  return word / 8 * memory_bytes / host_bandwidth(rates.memory_gbs);
}

}  // namespace

double prbt_extra_seconds(const MachineProfile& profile, const Rates& rates, int n, Precision precision,
                          const ModelParams& params, bool randomizes) {
  const double word = entry_bytes(precision);
  const double entries = double(n) * n;
  auto pass = [&](const char* kind, double memory_bytes) {
    return entries * pass_seconds_per_entry(profile, rates, kind, n, word, memory_bytes);
  };
  const double solve = pass("triangular_solve", 8), transposed = pass("transposed_solve", 8);
  const double residual = pass("residual", 8);
  return (randomizes ? pass("randomize", 16) : 0) + residual + params.prbt_condition_solves * (solve + transposed) / 2 +
         (params.prbt_refinement_steps + 1) * (solve + residual);
}

MixedSteps mixed_refinement_steps(const MachineProfile& profile, Solver solver, int n, const ModelParams& params) {
  // The measurement at the nearest order (by ratio: steps grow with n where they grow at all).
  const RefinementSteps* nearest = nullptr;
  auto distance = [&](const RefinementSteps& r) { return std::abs(std::log(double(r.n) / std::max(1, n))); };
  for (const auto& r : profile.mixed_refinement_steps)
    if (r.solver == solver && r.n > 0 && (!nearest || distance(r) < distance(*nearest))) nearest = &r;
  if (nearest) return {nearest->steps, "measured at n = " + std::to_string(nearest->n)};
  return {double(solver == Solver::prbt ? params.prbt_mixed_refinement_steps : params.mixed_refinement_steps),
          "the model's default; calibrate --precision mixed measures them"};
}

double mixed_extra_seconds(const MachineProfile& profile, const Rates& rates, int n, Solver solver,
                           const ModelParams& params, bool host_rounds) {
  const double entries = double(n) * n;
  auto pass = [&](const char* kind, double word, double memory_bytes) {
    return entries * pass_seconds_per_entry(profile, rates, kind, n, word, memory_bytes);
  };
  const double rounding = host_rounds ? entries * 12 / host_bandwidth(rates.memory_gbs) : 0;
  const double randomize = solver == Solver::prbt ? pass("randomize", 4, 16) : 0;
  const double solve = pass("triangular_solve", 4, 8), residual = pass("residual", 8, 8);
  return rounding + randomize + solve + mixed_refinement_steps(profile, solver, n, params).steps * (residual + solve);
}

namespace {

// The probed panel rate of `kind` nearest rows x width (in log rows + log width); with
// any_threads, also the nearest thread count (in log threads), else exactly `threads`. Null when
// none was probed.
const PanelRate* nearest_panel_rate(const MachineProfile& profile, const std::string& kind, double rows, int width,
                                    int threads, bool any_threads) {
  auto distance = [&](const PanelRate& r) {
    return std::abs(std::log(r.rows / std::max(1.0, rows))) + std::abs(std::log(double(r.width) / width)) +
           (any_threads ? std::abs(std::log(double(std::max(1, r.threads)) / std::max(1, threads))) : 0.0);
  };
  const PanelRate* best = nullptr;
  for (const auto& r : profile.panel_rates)
    if (r.kind == kind && (any_threads || r.threads == threads) && r.gflops > 0 && r.rows > 0 &&
        (!best || distance(r) < distance(*best)))
      best = &r;
  return best;
}

// A team's panel rate more than this far below one thread's is a probe disturbed by other work,
// taken as one thread's: 2 threads measured 20-700x below 1 (0.003 GFlop/s against 2.07) on a
// loaded machine, and CALU was priced 66x its measured time and left untuned (a hostile helper's
// finding). Up to 4x below stands: a small panel's threads may well cost more than they give.
constexpr double plausible_team_slowdown = 4;

double not_far_below_one_thread(const MachineProfile& profile, const std::string& kind, double rows, int width,
                                int threads, double gflops) {
  if (threads <= 1) return gflops;
  const PanelRate* one = nearest_panel_rate(profile, kind, rows, width, 1, false);
  return one && gflops * plausible_team_slowdown < one->gflops ? one->gflops : gflops;
}

}  // namespace

double panel_thread_speedup(const MachineProfile& profile, const std::string& kind, double rows, int width,
                            double threads) {
  if (threads <= 1) return 1;
  const PanelRate* one = nearest_panel_rate(profile, kind, rows, width, 1, false);
  const PanelRate* team = nullptr;
  for (const PanelRate& r : profile.panel_rates)
    if (one && r.kind == kind && r.gflops > 0 && r.threads > 1 && r.rows == one->rows && r.width == one->width &&
        (!team || r.threads > team->threads))
      team = &r;
  if (!team) return kind == "tslu" ? threads : std::sqrt(threads);
  double ratio = team->gflops / one->gflops;
  if (ratio * plausible_team_slowdown < 1) ratio = 1;
  ratio = std::min<double>(ratio, team->threads);  // above the thread count: impossible, taken as linear
  return 1 + (ratio - 1) * (std::min<double>(threads, team->threads) - 1) / (team->threads - 1);
}

double cpu_panel_gflops(const MachineProfile& profile, const Rates& rates, Solver solver, double rows, int width,
                        int threads, const ModelParams& params) {
  const std::string kind = solver == Solver::calu ? "tslu" : "gepp";
  if (const PanelRate* best = nearest_panel_rate(profile, kind, rows, width, threads, false))
    return not_far_below_one_thread(profile, kind, rows, width, threads, best->gflops);
  const PanelRate* probed_one = nearest_panel_rate(profile, kind, rows, width, 1, false);
  const double one = probed_one
                         ? probed_one->gflops
                         : rates.cpu_one.gflops * efficiency(std::max(1.0, width / 4.0), params.gemm_half_rate_k) *
                               params.panel_efficiency * (kind == "tslu" ? params.tslu_efficiency : 1.0);
  return one * panel_thread_speedup(profile, kind, rows, width, threads);
}

double cpu_panel_seconds(const MachineProfile& profile, const Rates& rates, Solver solver, double rows, int width,
                         int threads, const ModelParams& params, int leaf_width) {
  const std::string kind = solver == Solver::calu ? "tslu" : "gepp";
  // The widest panel a rate is known for: a probe's, else (when asked) the leaf of the recursive
  // panel, which the generic rate below describes.
  int widest = 0;
  for (const auto& r : profile.panel_rates)
    if (r.kind == kind && r.threads == threads && r.gflops > 0) widest = std::max(widest, r.width);
  if (widest == 0) widest = leaf_width;
  if (widest > 0 && width > widest && rows > width) {
    // Wider than any probe: as the recursive panel runs it, two halves and a GEMM between them.
    const int n1 = width / 2, n2 = width - n1;
    const double gemm =
        (threads > 1 ? rates.cpu_all : rates.cpu_one).gflops * 1e9 * efficiency(n1, params.gemm_half_rate_k);
    return cpu_panel_seconds(profile, rates, solver, rows, n1, threads, params, leaf_width) +
           2.0 * (rows - n1) * n2 * n1 / gemm +
           cpu_panel_seconds(profile, rates, solver, rows - n1, n2, threads, params, leaf_width);
  }
  const double flops = detail::getrf_flops(rows, width);
  return flops / (cpu_panel_gflops(profile, rates, solver, rows, width, threads, params) * 1e9);
}

bool has_tslu_leaf_rates(const MachineProfile& profile) {
  for (const auto& r : profile.panel_rates)
    if (r.kind == "tslu_leaf" && r.gflops > 0) return true;
  return false;
}

double calu_panel_seconds(const MachineProfile& profile, const Rates& rates, double rows, int width, int inner,
                          int leaf_threads, bool threaded_blas, const ModelParams& params) {
  inner = std::max(1, inner);
  if (width <= inner || rows <= inner) {
    // The nearest probed shape and thread count (the leaves are probed on one thread and on all;
    // the host backend leaves the CPUs some in between).
    const PanelRate* best = nearest_panel_rate(profile, "tslu_leaf", rows, width, leaf_threads, true);
    const double gflops = best
                              ? not_far_below_one_thread(profile, "tslu_leaf", rows, width, best->threads, best->gflops)
                              : cpu_panel_gflops(profile, rates, Solver::calu, rows, width, leaf_threads, params);
    return detail::getrf_flops(rows, width) / (gflops * 1e9);
  }
  // calu.cpp's split: the left part a whole number of leaves, about half the panel.
  const int half = static_cast<int>(std::min(rows, double(width)) / 2);
  const int n1 = std::max(inner, half / inner * inner), n2 = width - n1;
  const double gemm =
      (threaded_blas ? rates.cpu_all : rates.cpu_one).gflops * 1e9 * efficiency(n1, params.gemm_half_rate_k);
  const double update = (double(n1) * n1 * n2 + 2.0 * (rows - n1) * n2 * n1) / gemm;  // TRSM and GEMM
  return calu_panel_seconds(profile, rates, rows, n1, inner, leaf_threads, threaded_blas, params) + update +
         calu_panel_seconds(profile, rates, rows - n1, n2, inner, leaf_threads, threaded_blas, params);
}

}  // namespace hetlu::model
