#include "model/gepp_cpu.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "hetlu/detail/flops.hpp"
#include "model/predict.hpp"

namespace hetlu::model {

double cpu_gemm_rate(const MachineProfile& profile, const ModelParams& params) {
  return rates_of(profile, Precision::double_, params).cpu_all.gflops;  // the rule predict() uses
}

double getrf_flops(double m, double n) {
  return detail::getrf_flops(m, n);
}

double predict_gepp_cpu_seconds(const MachineProfile& profile, int m, int n, int nb, const ModelParams& params) {
  Plan plan;
  plan.nb = nb;
  plan.lookahead = profile.cores > 1 ? 1 : 0;
  return predict_seconds(profile, Problem{Solver::gepp, Precision::double_, Target::cpu, m, n}, plan, params);
}

Plan plan_gepp_cpu(const MachineProfile& profile, int m, int n, const ModelParams& params) {
  return predict(profile, Problem{Solver::gepp, Precision::double_, Target::cpu, m, n}, params).plan;
}

}  // namespace hetlu::model
