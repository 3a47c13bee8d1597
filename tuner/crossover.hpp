// The small-matrix crossover: the order from which hetlu's GEPP is at least as fast as the BLAS
// library's own getrf (vendor::getrf) on this machine, so that smaller calls through the LAPACK
// drop-in go to the BLAS's.
#pragma once

#include "hetlu/types.hpp"
#include "model/params.hpp"

namespace hetlu::tuner {

// The orders timed, and the answer when hetlu's GEPP wins at none of them (twice the largest).
inline constexpr int crossover_orders[] = {8, 16, 32, 64, 128, 256, 512, 1024};
inline constexpr int crossover_beyond = 2048;

// Times both at each order in crossover_orders (hetlu's at the model's plan for `profile`; each a
// batch of calls of about a millisecond, the best of five batches, the same copy of A restored
// before each call in both), and returns the smallest order from which hetlu's is at least as fast
// at every larger order timed; crossover_beyond when it never is; 0 when the BLAS library has no
// getrf of its own. T is float or double.
template <class T>
int measure_getrf_crossover(const MachineProfile& profile, const model::ModelParams& params);

// Both precisions into the profile's getrf_crossover_* and its measurements ("getrf_crossover",
// "precision=double"), stored with the probes: a fact of the machine, as its rates.
void measure_getrf_crossovers(MachineProfile& profile, const model::ModelParams& params);

}  // namespace hetlu::tuner
