// hetlu bench --target hybrid --devices A,B[,...]: how well several devices are balanced (#16).
#pragma once

#include <nlohmann/json.hpp>
#include <vector>

#include "hetlu/hetlu.hpp"

namespace hetlu::cli {

// For each solver with an LU (GEPP, CALU), the hybrid getrf on the plan's devices with the block
// columns dealt by the devices' measured rates (the plan's device_shares) and dealt equally
// (cusolverMg's and MAGMA's 1-D block cyclic), alternating run by run; prints each processor's
// busy and idle time and the average idle ratio (heterogeneous-column-block §4) of each (unless
// json), and returns them as JSON rows.
nlohmann::ordered_json bench_balance(const std::vector<Solver>& solvers, int m, int n, int reps,
                                     const std::vector<double>& A, const Options& options, bool json);

}  // namespace hetlu::cli
