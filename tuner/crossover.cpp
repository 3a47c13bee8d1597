#include "tuner/crossover.hpp"

#include <algorithm>
#include <random>
#include <vector>

#include "hetlu/detail/stopwatch.hpp"
#include "model/predict.hpp"
#include "solvers/lu.hpp"
#include "solvers/vendor_lapack.hpp"

namespace hetlu::tuner {
namespace {

// Seconds per call of `factor` on copies of A0 (n x n), the best of five batches of about 1 ms.
template <class T, class Factor>
double seconds_per_call(int n, const std::vector<T>& A0, Factor&& factor) {
  std::vector<T> A(A0.size());
  std::vector<int> ipiv(n);
  const int calls = std::max(1, static_cast<int>(1e6 / (double(n) * n * n)));
  double best = 1e300;
  for (int batch = 0; batch <= 5; ++batch) {  // the first is a warm-up
    const double s = detail::seconds_of([&] {
      for (int c = 0; c < calls; ++c) {
        std::copy(A0.begin(), A0.end(), A.begin());
        factor(A.data(), ipiv.data());
      }
    });
    if (batch > 0) best = std::min(best, s / calls);
  }
  return best;
}

}  // namespace

template <class T>
int measure_getrf_crossover(const MachineProfile& profile, const model::ModelParams& params) {
  if (!vendor::available()) return 0;
  const Precision precision = sizeof(T) == sizeof(double) ? Precision::double_ : Precision::single;
  std::vector<bool> hetlu_wins;
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> dist(-1, 1);
  for (int n : crossover_orders) {
    std::vector<T> A0(static_cast<size_t>(n) * n);
    for (auto& a : A0) a = T(dist(rng));
    const Plan plan = model::predict(profile, model::Problem{Solver::gepp, precision, Target::cpu, n, n}, params).plan;
    const double ours =
        seconds_per_call<T>(n, A0, [&](T* A, int* ipiv) { solvers::getrf(plan, n, n, A, n, ipiv, InputCheck::none); });
    const double theirs = seconds_per_call<T>(n, A0, [&](T* A, int* ipiv) {
      int info = 0;
      vendor::getrf(n, n, A, n, ipiv, &info);
    });
    hetlu_wins.push_back(ours <= theirs);
  }
  int crossover = crossover_beyond;
  for (int i = static_cast<int>(hetlu_wins.size()) - 1; i >= 0 && hetlu_wins[i]; --i) crossover = crossover_orders[i];
  return crossover;
}

void measure_getrf_crossovers(MachineProfile& p, const model::ModelParams& params) {
  p.getrf_crossover_double = measure_getrf_crossover<double>(p, params);
  p.getrf_crossover_single = measure_getrf_crossover<float>(p, params);
  for (const auto& [value, precision] :
       {std::pair{p.getrf_crossover_double, "double"}, std::pair{p.getrf_crossover_single, "single"}})
    if (value > 0)
      p.measurements.push_back({"getrf_crossover", double(value), 0, "n", std::string("precision=") + precision});
}

template int measure_getrf_crossover<double>(const MachineProfile&, const model::ModelParams&);
template int measure_getrf_crossover<float>(const MachineProfile&, const model::ModelParams&);

}  // namespace hetlu::tuner
