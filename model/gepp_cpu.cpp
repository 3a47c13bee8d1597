#include "model/gepp_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

namespace hetlu::model {

double cpu_gemm_rate(const MachineProfile& profile, const ModelParams& params) {
  if (profile.dgemm_gflops_all_cores > 0) return profile.dgemm_gflops_all_cores;
  if (profile.peak_gflops_per_core > 0 && profile.cores > 0)
    return profile.peak_gflops_per_core * profile.cores * params.cpu_efficiency;
  return 0;
}

double getrf_flops(double m, double n) {
  // LAPACK's operation count for getrf (multiplications plus additions), as MAGMA's flops.h.
  double muls, adds;
  if (m < n) {
    muls = 0.5 * m * (m * (n - m / 3 - 1) + n) + 2 * m / 3;
    adds = 0.5 * m * (m * (n - m / 3) - n) + m / 6;
  } else {
    muls = 0.5 * n * (n * (m - n / 3 - 1) + m) + 2 * n / 3;
    adds = 0.5 * n * (n * (m - n / 3) - m) + n / 6;
  }
  return muls + adds;
}

double predict_gepp_cpu_seconds(const MachineProfile& profile, int m, int n, int nb, const ModelParams& params) {
  const double rate = cpu_gemm_rate(profile, params) * 1e9;  // flop/s
  if (rate <= 0) throw Error("the machine profile has no CPU rate to predict from");
  if (nb < 1) throw InvalidArgument("nb = " + std::to_string(nb) + " must be >= 1");
  auto gemm_rate = [&](double k) { return rate * k / (k + params.gemm_half_rate_k); };

  const int k = std::min(m, n);
  double seconds = 0;
  for (int j = 0; j < k; j += nb) {
    const double jb = std::min(k - j, nb);
    const double rows = m - j, right = n - j - jb;
    // Recursive panel: LU of a rows x jb block, inner GEMM widths average about jb / 4.
    const double panel_flops = rows * jb * jb - jb * jb * jb / 3.0;
    seconds += panel_flops / (gemm_rate(std::max(1.0, jb / 4)) * params.panel_efficiency);
    // Block row of U (TRSM) and trailing GEMM, both of inner width jb.
    const double update_flops = jb * jb * right + 2.0 * (rows - jb) * right * jb;
    seconds += update_flops / gemm_rate(jb);
    seconds += params.step_overhead_seconds;
  }
  return seconds;
}

Plan plan_gepp_cpu(const MachineProfile& profile, int m, int n, const ModelParams& params) {
  Plan plan;
  plan.solver = Solver::gepp;
  plan.target = Target::cpu;
  plan.source = PlanSource::model;
  const int k = std::max(1, std::min(m, n));
  double best = std::numeric_limits<double>::infinity();
  for (int nb : params.nb_candidates) {
    if (nb > k && nb != params.nb_candidates.front()) continue;  // wider than the matrix: no gain
    const double t = predict_gepp_cpu_seconds(profile, m, n, nb, params);
    if (t < best) {
      best = t;
      plan.nb = nb;
    }
  }
  plan.predicted_seconds = best;
  plan.source_detail = "model: nb minimizing predicted time at " +
                       std::string(profile.rates_measured ? "measured" : "estimated") + " DGEMM rate";
  return plan;
}

}  // namespace hetlu::model
