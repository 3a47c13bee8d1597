// The panel each hybrid solver factors on the CPUs (d >= 1): GEPP's recursive kernel, CALU's
// TSLU over plan.panel_threads row blocks of inner width plan.ib. With the panel on the device
// (d = 0) the device factors it with partial pivoting for both: on one device the tournament saves
// nothing. One statement for the solvers' own runs (gepp_hybrid.cpp, calu_async.cpp) and for
// callers that drive HybridLu themselves (mixed_device.cpp).
#pragma once

#include <algorithm>

#include "hetlu/types.hpp"
#include "solvers/gepp_kernels.hpp"

namespace hetlu::variants {

template <class T>
auto calu_hybrid_panel(const Plan& plan) {
  const int inner = std::max(1, std::min(plan.ib, plan.nb));
  const int panel_threads = std::max(1, plan.panel_threads);
  return [inner, panel_threads](int rows, int width, T* panel, int ld, int* panel_ipiv) {
    return kernels::calu_panel(rows, width, panel, ld, panel_ipiv, inner, panel_threads);
  };
}

// run(panel) with plan.solver's panel (GEPP or CALU; PRBT's GENP has its own, genp_panel).
template <class T, class Run>
decltype(auto) with_hybrid_panel(const Plan& plan, Run&& run) {
  if (plan.solver == Solver::calu) return run(calu_hybrid_panel<T>(plan));
  return run(kernels::getrf_recursive<T>);
}

}  // namespace hetlu::variants
