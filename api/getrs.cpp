// hetlu::getrs: the solve with given LU factors (the small path's below the crossover).

#include "api/front_end.hpp"
#include "hetlu/detail/flops.hpp"
#include "hetlu/hetlu.hpp"
#include "solvers/checks.hpp"
#include "solvers/lu.hpp"
#include "solvers/scalar.hpp"

namespace hetlu {

using namespace front_end;

template <class T>
SolveReport getrs(Transpose trans, int n, int nrhs, const T* LU, int lda, const int* ipiv, T* B, int ldb,
                  const Options& options) {
  // The solve has no tunable parameter yet: the plan only carries the precision.
  Plan plan;
  plan.precision = scalar::plan_precision<T>();
  plan.source_detail = "getrs takes no tuned parameters";
  SolveReport report;
  report.plan = plan;
  // Below the crossover, the small path's solve (hetlu's loops up to order 32, else the BLAS
  // library's getrs) once the arguments have passed the same checks; where it declines, the same
  // checks pass again on the way to hetlu's.
  bool small = false;
  auto solve = [&] {
    if (takes_small_path<T>(Solver::gepp, n, n, options) && nrhs > 0) {
      solvers::check_getrs_arguments(plan, n, nrhs, LU, lda, ipiv, B, ldb, options.input_check);
      small = blas_library_getrs(trans, n, nrhs, LU, lda, ipiv, B, ldb, options.small_own_loops);
      if (small) return;
    }
    solvers::getrs(plan, trans, n, nrhs, LU, lda, ipiv, B, ldb, options.input_check);
  };
  report.seconds = timed(options, solve);
  if (small) report.plan.source_detail = "small-matrix solve";
  report.gflops = detail::gflops(detail::getrs_flops(n, nrhs, scalar::is_complex_v<T>), report.seconds);
  return report;
}

template SolveReport getrs<float>(Transpose, int, int, const float*, int, const int*, float*, int, const Options&);
template SolveReport getrs<double>(Transpose, int, int, const double*, int, const int*, double*, int, const Options&);
template SolveReport getrs<std::complex<double>>(Transpose, int, int, const std::complex<double>*, int, const int*,
                                                 std::complex<double>*, int, const Options&);
template SolveReport getrs<std::complex<float>>(Transpose, int, int, const std::complex<float>*, int, const int*,
                                                std::complex<float>*, int, const Options&);
}  // namespace hetlu
