// The model of blocked right-looking GEPP on the CPU cores: predicted time for a panel width, and
// the plan with the panel width that minimizes it.
#pragma once

#include "hetlu/types.hpp"
#include "model/params.hpp"

namespace hetlu::model {

// DGEMM rate of all cores the model works from, GFlop/s: measured when the profile has it,
// else the datasheet-style peak times cpu_efficiency. 0 when the profile knows neither.
double cpu_gemm_rate(const MachineProfile& profile, const ModelParams& params);

// Predicted seconds of GEPP (getrf) on an m x n matrix with panel width nb.
double predict_gepp_cpu_seconds(const MachineProfile& profile, int m, int n, int nb, const ModelParams& params = {});

// The plan for CPU GEPP of an m x n matrix: nb from the candidates with the least predicted time,
// source = model. Throws hetlu::Error when the profile has no rate to predict from.
Plan plan_gepp_cpu(const MachineProfile& profile, int m, int n, const ModelParams& params = {});

// LU flop count: hetlu::detail::getrf_flops (hetlu/detail/flops.hpp), under the model's name.
double getrf_flops(double m, double n);

}  // namespace hetlu::model
