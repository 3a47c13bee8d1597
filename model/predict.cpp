// The model's front: the price of one plan (predict_seconds, its terms for --explain) and the
// plan of least predicted time for a problem (predict), from cpu_lu.cpp's and hybrid_lu.cpp's prices.
#include "model/predict.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sstream>

#include "hetlu/detail/deal_columns.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/detail/prbt_order.hpp"
#include "model/cpu_share.hpp"
#include "model/pricing.hpp"

namespace hetlu::model {

namespace {

// The d tried for a plan of `blocks` block columns: every d up to 32, then about 12 per factor of
// two, and the paper's closed-form estimate with its neighbours.
std::vector<int> candidate_cpu_block_columns(int blocks, double closed_form_fraction) {
  std::vector<int> ds;
  for (int d = 1; d <= blocks; d = d < 32 ? d + 1 : d + std::max(1, d / 12)) ds.push_back(d);
  const int estimate = static_cast<int>(std::lround(closed_form_fraction * blocks));
  for (int d = estimate - 2; d <= estimate + 2; ++d)
    if (d >= 1 && d <= blocks) ds.push_back(d);
  if (blocks >= 1) ds.push_back(blocks);
  std::sort(ds.begin(), ds.end());
  ds.erase(std::unique(ds.begin(), ds.end()), ds.end());
  return ds;
}

}  // namespace

bool device_holds(const MachineProfile& profile, const Problem& problem, const Plan& plan, const ModelParams& params) {
  if (problem.target != Target::hybrid) return true;
  return plan_fits_device(rates_of(profile, problem.precision, params, problem.devices, problem.tf32), problem, plan);
}

std::vector<std::vector<double>> candidate_deals(const MachineProfile& profile, const Rates& rates,
                                                 const Problem& problem, int nb, int cpu_block_columns,
                                                 const ModelParams& params) {
  if (rates.devices.size() <= 1) return {{}};
  std::vector<std::vector<double>> deals = {
      balanced_device_shares(rates, problem.m, problem.n, nb, cpu_block_columns, problem.precision, params, &profile)};
  for (std::size_t i = 0; cpu_block_columns == 0 && i < rates.devices.size(); ++i) {
    deals.emplace_back(rates.devices.size(), 0.0);
    deals.back()[i] = 1;
  }
  return deals;
}

std::optional<std::vector<double>> best_fitting_deal(const MachineProfile& profile, const Problem& problem,
                                                     const Plan& plan, const ModelParams& params) {
  const Rates rates = rates_of(profile, problem.precision, params, problem.devices, problem.tf32);
  if (problem.target != Target::hybrid || !(rates.device.gflops > 0)) return plan.device_shares;
  std::optional<std::vector<double>> best;
  double least = std::numeric_limits<double>::infinity();
  Plan trial = plan;
  for (auto& shares : candidate_deals(profile, rates, problem, std::max(1, plan.nb), plan.cpu_block_columns, params)) {
    trial.device_shares = std::move(shares);
    if (!plan_fits_device(rates, problem, trial)) continue;
    const double t = predict_seconds(profile, problem, trial, params);
    if (!best || t < least) least = t, best = trial.device_shares;
  }
  return best;
}

namespace {
// The terms of a factorization add up to its time `total`: what the schedule runs at once (the
// look-ahead's panel beside the update; the CPUs, the device and the link) is a term of its own,
// negative (`hidden`) where work was hidden, positive (`waited`) where a step waited. Without it
// --explain listed parts summing to 0.1664 s for a prediction of 0.1524 (a hostile helper's finding).
void add_overlap_term(std::vector<Term>& terms, double total, const char* hidden, const char* waited) {
  double sum = 0;
  for (const auto& t : terms) sum += t.seconds;
  const double overlap = total - sum;
  if (std::abs(overlap) > 1e-9 * std::max(total, 1e-300)) terms.push_back({overlap < 0 ? hidden : waited, overlap});
}
}  // namespace

double predict_seconds(const MachineProfile& profile, const Problem& problem, const Plan& plan,
                       const ModelParams& params, std::vector<Term>* terms) {
  if (plan.nb < 1) throw InvalidArgument("nb = " + std::to_string(plan.nb) + " must be >= 1");
  const Rates rates = rates_of(profile, problem.precision, params, problem.devices, problem.tf32);
  // Several devices with d = 0 where the deal gives one of them every block column: HybridLu::deal
  // runs that one alone, in front; priced so, the others kept in the set (PRBT's extra work is the
  // several-devices one, as prbt.cpp runs it).
  const bool on_devices = problem.target == Target::hybrid && rates.device.gflops > 0;
  const int devices = on_devices ? static_cast<int>(rates.devices.size()) : 0;
  if (const int s = sole_owner(plan, devices, problem.n); s > 0) {
    MachineProfile front = profile;
    std::rotate(front.gpus.begin(), front.gpus.begin() + s, front.gpus.begin() + s + 1);
    Plan alone = plan;
    alone.device_shares.assign(rates.devices.size(), 0.0);
    alone.device_shares.front() = 1;
    return predict_seconds(front, problem, alone, params, terms);
  }
  // PRBT (in its working precision) whose d leaves the devices no block column runs as on the CPU
  // target (prbt.cpp): no device randomizes or solves.
  if (on_devices && problem.solver == Solver::prbt && problem.precision != Precision::mixed &&
      !detail::prbt_devices_take_block_columns(problem.n, plan.nb, plan.cpu_block_columns)) {
    Problem on_cpus = problem;
    on_cpus.target = Target::cpu;
    return predict_seconds(profile, on_cpus, plan, params, terms);
  }
  if (rates.cpu_all.gflops <= 0 && rates.device.gflops <= 0)
    throw Error("the machine profile has no CPU or device rate to predict from");
  const double word = entry_bytes(problem.precision);
  double seconds = 0;
  const bool mixed_on_device = problem.precision == Precision::mixed && problem.target == Target::hybrid &&
                               rates.device.gflops > 0 && mixed_refines_on_device(rates, problem.n);
  // ... and with the panel there (d = 0), or for PRBT, A goes up in double and the device rounds it
  // (mixed_device.hpp).
  const bool mixed_rounded_on_device =
      mixed_on_device && (plan.cpu_block_columns == 0 || problem.solver == Solver::prbt);
  double factorization = 0;
  if (problem.target == Target::hybrid && rates.device.gflops > 0) {
    if (rates.cpu_all.gflops <= 0) throw Error("the machine profile has no CPU rate to predict from");
    // Mixed precision on the device with the panel there: A goes up in double and is rounded there.
    const double upload_word = mixed_rounded_on_device ? 2 * word : word;
    // Mixed PRBT where the device cannot hold A in double beside its factors: the CPUs randomize.
    const bool prbt_on_device = problem.precision != Precision::mixed || mixed_on_device;
    const HybridTimes t = hybrid_lu_seconds(profile, rates, problem.solver, problem.m, problem.n, plan, params, word,
                                            mixed_on_device, upload_word, prbt_on_device);
    factorization = t.total;
    seconds = t.total;
    // Busy times, which the schedule overlaps (they may add up to more than the total), and the
    // steps' fixed costs, which it does not; then what the overlap hid (or the waits it left).
    if (terms) {
      *terms = {{"cpu panels and updates", t.cpu},
                {plan.cpu_block_columns == 0 ? "device panels and updates" : "device updates", t.device},
                {"transfers", t.transfer},
                {"per-step overheads",
                 block_columns(std::min(problem.m, problem.n), plan.nb) * params.step_overhead_seconds}};
      add_overlap_term(*terms, t.total, "overlap: the CPUs, the device and the link at once",
                       "waits between the CPUs, the device and the link");
    }
    // PRBT's own pass over A checks it (its upload's packing on one device,
    // prbt_hybrid_extra_seconds; its randomization on the CPUs beside several), mixed precision's rounding pass, GEPP's
    // and CALU's upload with d = 0 (HybridLu::check_input); every other hybrid call checks A first.
    // One device: the only one, or (d = 0) the one the deal gives everything, which runs alone
    // (HybridLu::single) and checks A as it uploads it.
    const bool one_device = rates.devices.size() == 1 || sole_owner(plan, devices, problem.n) == 0;
    const bool own_pass = problem.precision == Precision::mixed || problem.solver == Solver::prbt ||
                          (one_device && plan.cpu_block_columns == 0 && plan.refinement != Refinement::working);
    if (!own_pass) {
      const double check = input_check_seconds(rates, problem.m, problem.n, word);
      seconds += check;
      if (terms) terms->push_back({"the input's finiteness check on the host", check});
    }
  } else {
    if (rates.cpu_all.gflops <= 0) throw Error("the machine profile has no CPU rate to predict from");
    const CpuTimes t = cpu_lu_seconds(profile, rates, problem.solver, problem.m, problem.n, plan, params, word);
    seconds = t.total;
    if (terms) {
      *terms = {
          {"panels", t.panel}, {"updates", t.update}, {"row interchanges", t.swaps}, {"step overheads", t.overhead}};
      add_overlap_term(*terms, t.total, "look-ahead: panels hidden behind the updates",
                       "look-ahead: updates waiting for the next panel");
    }
  }
  if (problem.precision == Precision::mixed) {
    const double extra = mixed_on_device ? mixed_device_extra_seconds(profile, rates, problem.n, problem.solver, params,
                                                                      factorization, mixed_rounded_on_device)
                                         : mixed_extra_seconds(profile, rates, problem.n, problem.solver, params);
    seconds += extra;
    if (terms) {
      const MixedSteps steps = mixed_refinement_steps(profile, problem.solver, problem.n, params);
      std::ostringstream name;
      const bool randomized_there = mixed_rounded_on_device && problem.solver == Solver::prbt;
      name << (randomized_there          ? "A up in double, rounded and randomized there, "
               : mixed_rounded_on_device ? "A up in double beside the factorization and rounded there, "
               : mixed_on_device         ? "rounding to single, A in double up beside the factorization, "
                                         : "rounding to single, ")
           << steps.steps << " refinement step(s) in double" << (mixed_on_device ? " on the device" : "") << " ("
           << steps.source << ")";
      terms->push_back({name.str(), extra});
    }
  } else if (problem.solver == Solver::prbt) {
    // On several devices the CPUs randomize and solve (prbt.cpp): the CPU target's extra work.
    const bool on_device = problem.target == Target::hybrid && rates.device.gflops > 0 && rates.devices.size() == 1;
    const double extra = on_device ? prbt_hybrid_extra_seconds(profile, rates, problem.n, problem.precision, params)
                                   : prbt_extra_seconds(profile, rates, problem.n, problem.precision, params);
    seconds += extra;
    if (terms) terms->push_back({"butterflies and refinement", extra});
  }
  return seconds;
}

namespace {
// Each of the first problem.devices devices driven alone (moved to the front of the profile's
// list, the CPUs as they are); the fastest, where it beats `set_seconds` by more than the model's
// noise (a tenth: 0.6 % was called "1.0x faster").
std::optional<AlonePrediction> fastest_alone(const MachineProfile& profile, const Problem& problem,
                                             const ModelParams& params, double set_seconds) {
  std::optional<AlonePrediction> fastest;
  const int count = std::min<int>(problem.devices, static_cast<int>(profile.gpus.size()));
  for (int i = 0; i < count; ++i) {
    MachineProfile alone = profile;
    std::rotate(alone.gpus.begin(), alone.gpus.begin() + i, alone.gpus.begin() + i + 1);
    Problem one = problem;
    one.devices = 1;
    const Prediction p = predict(alone, one, params);
    if (1.1 * p.seconds < set_seconds && (!fastest || p.seconds < fastest->seconds))
      fastest = AlonePrediction{p.rates.device_name, p.plan, p.seconds};
  }
  return fastest;
}
}  // namespace

std::string faster_alone_note(const Prediction& prediction) {
  const auto& alone = prediction.faster_alone;
  if (!alone) return "";
  if (alone->seconds >= prediction.seconds)  // the set's own plan: the deal left the others nothing
    return "the model deals the other devices no block column: " + alone->device +
           " alone (nb = " + std::to_string(alone->plan.nb) + ", d = " + std::to_string(alone->plan.cpu_block_columns) +
           ") runs the factorization and the others stay idle; give --devices that one alone";
  char times[120];  // %g: a small problem's times are microseconds
  std::snprintf(times, sizeof times, ") is predicted %.3g s, %.1fx faster than these %zu devices (%.3g s)",
                alone->seconds, prediction.seconds / alone->seconds, prediction.rates.devices.size(),
                prediction.seconds);
  return "the model says " + alone->device + " alone (nb = " + std::to_string(alone->plan.nb) +
         ", d = " + std::to_string(alone->plan.cpu_block_columns) + times +
         ": the others' share of the work, their panels and the panels' trips cost the set more than they "
         "give; give --devices that one alone";
}

namespace {

// The widest nb priced for a matrix of k = min(m, n): at least four panels, so that look-ahead (or
// the device) has an update to overlap the panel with, and nb does not shrink as the matrix grows;
// the narrowest candidate always (one panel, nb = n, is priced apart where it applies).
int widest_priced_nb(const ModelParams& params, int k) {
  return std::max(params.nb_candidates.front(), k / 4);
}

}  // namespace

int widest_priced_candidate(const ModelParams& params, int k) {
  int widest = params.nb_candidates.front();
  for (int width : params.nb_candidates)
    if (width <= widest_priced_nb(params, k)) widest = std::max(widest, width);
  return widest;
}

namespace {

// The plan of least predicted time into best (its seconds, plan and terms): over the nb candidates,
// the panel's place and, on the hybrid target, the CPUs' share d, each priced with the schedule the
// executor runs. Throws where every plan's price is infinite.
void search_plans(const MachineProfile& profile, const Problem& problem, const ModelParams& params,
                  double closed_form_fraction, Prediction& best) {
  const Rates& r = best.rates;
  const bool hybrid = problem.target == Target::hybrid && r.device.gflops > 0;
  const bool several = hybrid && r.devices.size() > 1;
  const int k = std::max(1, std::min(problem.m, problem.n));
  std::vector<PanelLocation> locations = {PanelLocation::cpu};
  // The panel on the device: with several, each device factors its own block columns' panels.
  if (hybrid) locations.push_back(PanelLocation::device);
  best.seconds = std::numeric_limits<double>::infinity();
  // plan at its CPUs' share d, with each deal of the columns among several devices, kept where best.
  auto price = [&](Plan plan, int d) {
    plan.cpu_block_columns = d;
    const auto deals =
        several ? candidate_deals(profile, r, problem, plan.nb, d, params) : std::vector<std::vector<double>>{{}};
    for (const auto& shares : deals) {
      plan.device_shares = shares;
      if (!plan_fits_device(r, problem, plan)) continue;
      std::vector<Term> terms;
      const double t = predict_seconds(profile, problem, plan, params, &terms);
      if (t < best.seconds) {
        best.seconds = t;
        best.plan = plan;
        best.terms = terms;
      }
    }
  };
  for (PanelLocation where : locations)
    for (int nb : params.nb_candidates) {
      // At least four panels (widest_priced_nb; tiny matrices would otherwise take a few wide
      // panels only to save the per-step overhead). A tall and skinny matrix on
      // the CPUs may also be one panel (nb = n): a recursive LU whose updates are all wide GEMMs.
      // With the panel on the device, one panel is the vendor's LU of the whole matrix.
      // Under TF32 too, at the vendor LU's own rate: cuSOLVER's getrf runs its GEMMs without it.
      const bool one_panel = nb == params.nb_candidates.back() &&
                             (hybrid ? where == PanelLocation::device && !several : problem.m >= 4 * problem.n);
      const int width = one_panel ? k : std::min(nb, k);  // a width beyond the matrix is the matrix
      if (!one_panel && nb > widest_priced_nb(params, k)) continue;
      Plan plan;
      plan.solver = problem.solver;
      plan.precision = problem.precision;
      plan.target = problem.target;
      plan.nb = width;
      plan.ib = std::min(width, Plan{}.ib);  // CALU's inner width, as the panel probe measured it
      plan.panel_threads = problem.solver == Solver::calu ? r.cores : 1;
      plan.lookahead = r.cores > 1 ? 1 : 0;
      plan.refinement = problem.solver == Solver::prbt ? Refinement::working : Refinement::none;
      // The CPUs' share d: on the hybrid target the d of least predicted time, each priced with
      // the schedule HybridLu runs; the CPU target keeps every block column.
      const int blocks = block_columns(problem.n, width);
      std::vector<int> ds = {blocks};
      if (hybrid)
        ds = where == PanelLocation::device ? std::vector<int>{0}
                                            : candidate_cpu_block_columns(blocks, closed_form_fraction);
      for (int d : ds) price(plan, d);
    }
  // The candidates step by d / 12 past 32: every d between the best one's neighbours is priced too,
  // so that the d chosen is the least of --sweep-d's (d = 101 at 169.5 s was chosen where the sweep
  // priced 97 at 167.8: a hostile helper's finding). Where they lie more than most_refined apart,
  // most_refined evenly spaced of them, then again between the best one's neighbours: a few hundred
  // prices whatever n / nb (every one of some 50000 between neighbours, each O(n / nb), had priced
  // for hours at n = 1e7 with nb = 16: another hostile helper's finding).
  if (hybrid && best.plan.cpu_block_columns > 0 && std::isfinite(best.seconds)) {
    constexpr int most_refined = 256;
    const int blocks = block_columns(problem.n, best.plan.nb);
    const std::vector<int> ds = candidate_cpu_block_columns(blocks, closed_form_fraction);
    const auto at = std::lower_bound(ds.begin(), ds.end(), best.plan.cpu_block_columns);
    int low = at == ds.begin() ? 1 : *(at - 1) + 1;
    int high = at == ds.end() || at + 1 == ds.end() ? blocks : *(at + 1) - 1;
    const Plan chosen = best.plan;
    auto price_new = [&](int d) {
      if (!std::binary_search(ds.begin(), ds.end(), d)) price(chosen, d);
    };
    while (high - low + 1 > most_refined) {
      const double step = double(high - low) / (most_refined - 1);
      for (int i = 0; i < most_refined; ++i) price_new(low + static_cast<int>(std::lround(i * step)));
      const int around = best.plan.cpu_block_columns, reach = static_cast<int>(std::ceil(step));
      low = std::max(low, around - reach);
      high = std::min(high, around + reach);
    }
    for (int d = low; d <= high; ++d) price_new(d);
  }
  // No plan priced finite (rates so small that every time overflows): an error, never Plan{}'s
  // defaults with an infinite time.
  if (!std::isfinite(best.seconds))
    throw InvalidArgument("the model prices every plan of this " + std::to_string(problem.m) + " x " +
                          std::to_string(problem.n) +
                          " problem at an infinite time: the machine's rates are too small");
}

// --explain's lines about the device and the CPUs' share d of the hybrid plan chosen; sets d_fraction.
void explain_hybrid(const MachineProfile& profile, const Problem& problem, const ModelParams& params,
                    double closed_form_fraction, Prediction& best) {
  const Rates& r = best.rates;
  const Plan& plan = best.plan;
  const bool several = r.devices.size() > 1;
  const int blocks = block_columns(problem.n, plan.nb);
  const double word = entry_bytes(problem.precision);
  auto& why = best.reasoning;
  best.d_fraction = blocks > 0 ? double(plan.cpu_block_columns) / blocks : 0;
  why.push_back("device " + r.device_name + ": GEMM rate " + fmt1(r.device.gflops) + " GFlop/s (" + r.device.source +
                "), link " + fmt1(r.link.gbs) + " GB/s (" + r.link.source + ") with " + fmt1(r.link_latency_us) +
                " us latency, memory " + fmt1(r.device_memory.gbs) + " GB/s (" + r.device_memory.source + ")" +
                (r.staged_upload.gbs > 0
                     ? ", staged copies " + fmt1(r.staged_upload.gbs) + " GB/s up" +
                           (r.staged_download.gbs > 0 ? " and " + fmt1(r.staged_download.gbs) + " down" : "") + " (" +
                           r.staged_upload.source + ")"
                     : ""));
  if (r.device_tf32)
    why.push_back(
        "single precision's GEMMs on the device in TF32 (HETLU_CUDA_TF32=1), except in a plan of one panel: "
        "cuSOLVER's getrf runs them without TF32, priced at its own rate");
  else if (problem.tf32 && problem.precision != Precision::double_ && r.device_host_threads == 0)
    why.push_back("HETLU_CUDA_TF32=1, but " + r.device_name +
                  " has no TF32 (compute capability below 8, or a machine file without tf32_gemm_gflops): "
                  "priced in FP32");
  for (std::size_t i = 1; i < r.devices.size(); ++i)
    why.push_back("device " + std::to_string(i + 1) + " " + r.devices[i].name + ": GEMM rate " +
                  fmt1(r.devices[i].gemm.gflops) + " GFlop/s (" + r.devices[i].gemm.source + "), link " +
                  fmt1(r.devices[i].link.gbs) + " GB/s (" + r.devices[i].link.source + ")");
  // The memory each device's share stops at, where it binds (said after the deal).
  // A sole owner holds the whole matrix (plan_fits_device); the others are dealt nothing by choice.
  std::vector<std::string> memory_bounds;
  const int owner_alone = several ? sole_owner(plan, int(r.devices.size()), problem.n) : -1;
  if (several && owner_alone < 0) {
    const int dealt = blocks - std::min(blocks, plan.cpu_block_columns);
    const auto owner = detail::deal_block_columns(plan.device_shares, static_cast<int>(r.devices.size()), dealt);
    for (std::size_t i = 0; i < r.devices.size(); ++i) {
      const auto& dev = r.devices[i];
      const auto got = std::count(owner.begin(), owner.end(), static_cast<int>(i));
      // In whole block columns of nb; one more where the deal's narrower last one fits (the plan fits).
      const double most = std::max(device_block_column_capacity(dev, problem.m, plan.nb, word), double(got));
      // Binding: the deal gives it what it holds (the rounding a block column either way), or its
      // memory holds none of them (with d every block column, the one way a device binds).
      if (dealt == 0 ? most < 1 : most < dealt && (got > 0 ? got + 1 >= most : most < 1))
        memory_bounds.push_back(
            "device " + std::to_string(i + 1) + " " + dev.name + "'s " + fmt1(dev.memory_usable_bytes / 1e9) +
            " usable GB hold " + std::to_string(static_cast<long long>(std::max(0.0, most))) +
            " block columns beside its two panel slots; " +
            (dealt == 0 ? std::string("the CPUs keep every block column")
                        : "it is dealt " + std::to_string(got) + " of the " + std::to_string(dealt) + " right of d") +
            " (plans whose deal a device cannot hold were left out)");
    }
  }
  if (several && plan.cpu_block_columns < blocks) {
    std::string shares;
    for (std::size_t i = 0; i < plan.device_shares.size(); ++i)
      shares += (i ? ", " : "") + fmt1(100 * plan.device_shares[i]) + " %";
    const bool alone = std::count(plan.device_shares.begin(), plan.device_shares.end(), 0.0) + 1 ==
                       static_cast<std::ptrdiff_t>(plan.device_shares.size());
    bool memory_left_out = false;
    for (std::size_t i = 0; i < r.devices.size(); ++i)
      memory_left_out = memory_left_out || (plan.device_shares[i] == 0 &&
                                            device_block_column_capacity(r.devices[i], problem.m, plan.nb, word) < 1);
    // At d = 0 the search also tries each device alone: only a deal other than the balance's was chosen so.
    const bool chosen_over_balance =
        owner_alone >= 0 && plan.device_shares != balanced_device_shares(r, problem.m, problem.n, plan.nb, 0,
                                                                         problem.precision, params, &profile);
    why.push_back("the block columns right of d dealt " + shares +
                  (chosen_over_balance ? ": one device takes them all, predicted faster than the deal that balances "
                                         "the devices' times"
                   : alone ? std::string(": one device takes them all: the deal that balances the devices' times "
                                         "leaves the others none (") +
                                 (memory_left_out ? "their memory holds no block column beside two panel slots)"
                                                  : "their transfers would outlast its whole share)")
                   : memory_bounds.empty()
                       ? ": each device's transfers plus its share of the updates at its GEMM rate take the same "
                         "predicted time (heterogeneous-column-block §3.2)"
                       : ": the devices' transfers plus their shares of the updates at their GEMM rates take the "
                         "same predicted time (heterogeneous-column-block §3.2), except where a device's memory "
                         "holds less (below)"));
  }
  if (r.devices_idle > 0)
    why.push_back(std::to_string(r.devices_idle) + " more device(s) idle: the plan drives " +
                  std::to_string(r.devices.size()) + ", and the model prices those");
  why.push_back("d = " + std::to_string(plan.cpu_block_columns) + " of " + std::to_string(blocks) + " block columns (" +
                fmt1(100 * best.d_fraction) +
                " %) minimizes the predicted time of the moving-window schedule; the paper's closed form "
                "d/N = P g1 / (P g1 + g2) = " +
                fmt1(100 * closed_form_fraction) + " % (async-calu §4, Eq. 1)");
  if (problem.solver == Solver::prbt && problem.precision != Precision::mixed && !several &&
      detail::prbt_devices_take_block_columns(problem.n, plan.nb, plan.cpu_block_columns) &&
      !prbt_solves_on_device(r, problem.n, word)) {
    const double np = detail::prbt_padded_order(problem.n);
    why.push_back("two copies of A (" + fmt1(2 * word * np * np / 1e9) +
                  " GB, padded) and the solves' buffers "
                  "do not fit the device's " +
                  fmt1(r.device_memory_usable_bytes / 1e9) +
                  " usable GB: PRBT's factors come back and the CPUs solve and refine");
  }
  if (panel_location(plan) == PanelLocation::device && owner_alone >= 0)
    why.push_back("d = 0 on several devices, the deal giving one of them every block column: it runs alone");
  else if (panel_location(plan) == PanelLocation::device && several)
    why.push_back(
        "d = 0 on several devices: each factors the panels of its own block columns and the CPUs pass them on "
        "(heterogeneous-column-block §3); the CPUs' panels would stall the fastest device");
  else if (panel_location(plan) == PanelLocation::device)
    why.push_back(
        "panel on the device: the device is so much faster that a CPU panel (and its transfers) "
        "would stall it; the CPUs take no block columns");
  else if (plan.cpu_block_columns >= blocks) {
    Plan one_less = plan;  // the device given one block column: refused only for its memory
    one_less.cpu_block_columns = blocks - 1;
    why.push_back(several || plan_fits_device(r, problem, one_less)
                      ? "every block column on the CPUs: the device's share would not pay for its transfers"
                      : "every block column on the CPUs: the device's " + fmt1(r.device_memory_usable_bytes / 1e9) +
                            " usable GB hold no plan that gives it one" +
                            (problem.solver == Solver::prbt ? " (PRBT keeps the whole padded A there)" : ""));
  } else
    why.push_back("panel on the CPUs, overlapped with the device's update; d = " +
                  std::to_string(plan.cpu_block_columns) + " of " + std::to_string(blocks) + " block columns");
  // The d the device's memory allows: below it the chosen d is no choice of the time's (PRBT
  // keeps the whole matrix there at any d that deals it block columns: said above where it does not
  // fit).
  if (several) {
    why.insert(why.end(), memory_bounds.begin(), memory_bounds.end());
    return;
  }
  Plan fewer = plan;
  fewer.cpu_block_columns = 0;
  if (problem.solver != Solver::prbt)
    while (fewer.cpu_block_columns < blocks && !plan_fits_device(r, problem, fewer)) ++fewer.cpu_block_columns;
  if (fewer.cpu_block_columns > 0)
    why.push_back("d below " + std::to_string(fewer.cpu_block_columns) +
                  " leaves the device more block columns than its " + fmt1(r.device_memory_bytes / 1e9) +
                  " GB hold: those plans were left out");
}

}  // namespace

Prediction predict(const MachineProfile& profile, const Problem& problem, const ModelParams& params) {
  if (problem.m < 0 || problem.n < 0) throw InvalidArgument("problem sizes must be >= 0");
  Prediction best;
  best.rates = rates_of(profile, problem.precision, params, problem.devices, problem.tf32);
  const Rates& r = best.rates;
  const bool hybrid = problem.target == Target::hybrid && r.device.gflops > 0;
  const int k = std::max(1, std::min(problem.m, problem.n));

  // The paper's closed-form share d / N = P g1 / (P g1 + g2) (async-calu §4, Eq. 1): shown beside
  // the model's choice, and where the search for d looks first.
  // With several devices, g2 is their sum: the executor drives every one of them.
  double devices_gflops = 0;
  for (const auto& dev : r.devices) devices_gflops += dev.gemm.gflops;
  const double closed_form_fraction = hybrid ? cpu_fraction(r.cpu_all.gflops, devices_gflops) : 1;
  best.closed_form_d_fraction = closed_form_fraction;
  const bool several = hybrid && r.devices.size() > 1;
  search_plans(profile, problem, params, closed_form_fraction, best);

  Plan& plan = best.plan;
  const double flops = detail::getrf_flops(problem.m, problem.n);
  best.gflops = detail::gflops(flops, best.seconds);
  plan.source = PlanSource::model;
  plan.predicted_seconds = best.seconds;
  const int blocks = block_columns(problem.n, plan.nb);
  auto& why = best.reasoning;
  why.push_back("CPU GEMM rate " + fmt1(r.cpu_all.gflops) + " GFlop/s on " + std::to_string(r.cores) + " core(s) (" +
                r.cpu_all.source + "), " + fmt1(r.cpu_one.gflops) + " on one (" + r.cpu_one.source + ")");
  if (problem.target == Target::hybrid && !hybrid)
    why.push_back(r.device_name.empty() ? "no device on this machine: the hybrid plan runs on the CPUs alone"
                                        : "device " + r.device_name + " has " + r.device.source +
                                              ": the hybrid plan runs on the CPUs alone");
  if (hybrid) {
    explain_hybrid(profile, problem, params, closed_form_fraction, best);
  } else {
    best.d_fraction = 1;
    plan.cpu_block_columns = blocks;
  }
  const int widest = widest_priced_nb(params, k);
  const auto priced =
      std::count_if(params.nb_candidates.begin(), params.nb_candidates.end(), [&](int nb) { return nb <= widest; });
  const std::string widths = "the " + std::to_string(priced) + " of " + std::to_string(params.nb_candidates.size()) +
                             " candidate widths that leave at least four panels (nb <= " + std::to_string(widest) + ")";
  why.push_back("nb = " + std::to_string(plan.nb) +
                (plan.nb >= k && plan.nb > widest ? " is priced below " + widths
                                                  : " minimizes the predicted time over " + widths) +
                (plan.nb >= k && hybrid && panel_location(plan) == PanelLocation::device
                     ? ": one panel, the vendor's LU of the whole matrix on the device (" +
                           fmt1(detail::gflops(detail::getrf_flops(problem.m, problem.n),
                                               vendor_lu_seconds(r, problem.m, problem.n))) +
                           " GFlop/s at this size: " + vendor_lu_terms(r) + (r.device_tf32 ? "; without TF32" : "") +
                           ")"
                 : plan.nb >= k && problem.m >= 4 * problem.n
                     ? ": one panel, a recursive LU of the whole matrix on all threads (tall and skinny)"
                 : plan.nb >= k   ? ": one panel, the whole matrix (no candidate width is narrower)"
                 : plan.lookahead ? ", with look-ahead (the next panel factored beside the trailing update)"
                                  : ""));
  std::string parts;
  for (const auto& t : best.terms) parts += (parts.empty() ? "" : ", ") + t.name + " " + fmt_seconds(t.seconds);
  why.push_back("predicted " + fmt_seconds(best.seconds) + " = " + fmt1(best.gflops) + " GFlop/s (" +
                (hybrid ? "busy times, less what the schedule overlaps: " : "") + parts + ")");
  if (several) {
    // HybridLu::deal runs a device alone where the deal gives it every block column; a plan of one
    // device alone that is faster still (another nb, the vendor's LU) is said instead.
    if (const int s = sole_owner(plan, static_cast<int>(r.devices.size()), problem.n); s >= 0)
      best.faster_alone = AlonePrediction{r.devices[s].name, plan, best.seconds};
    auto faster = fastest_alone(profile, problem, params, best.seconds);
    if (faster && (!best.faster_alone || faster->seconds < best.faster_alone->seconds)) best.faster_alone = faster;
    if (best.faster_alone) why.push_back(faster_alone_note(best));
  }
  plan.source_detail = std::string("model: least predicted time at ") +
                       (r.cpu_all.source.rfind("measured", 0) == 0 ? "measured" : "estimated") + " rates";
  if (hybrid && r.device.source.rfind("measured", 0) != 0)
    plan.source_detail += "; device rates from its datasheet (" + r.device_name + " not probed: 'hetlu calibrate')";
  return best;
}

}  // namespace hetlu::model
