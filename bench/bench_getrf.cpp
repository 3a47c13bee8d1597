// bench_getrf [--db PATH] N [N ...]: hetlu GEPP getrf (plan resolved as in a user's call) against
// OpenBLAS dgetrf through LAPACKE, on the same matrix, in the same run. Median of 5 after a warm-up.
// Prints one Markdown row per size: times, GFlop/s, the ratio (> 1: hetlu faster), both residuals.
#include <lapacke.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "hetlu/hetlu.hpp"
#include "model/gepp_cpu.hpp"
#include "solvers/accuracy.hpp"
#include "solvers/lu.hpp"

namespace {

template <class Run>
double median_seconds(const std::vector<double>& original, std::vector<double>& work, Run&& run, int reps) {
  std::vector<double> samples;
  for (int r = 0; r <= reps; ++r) {
    std::copy(original.begin(), original.end(), work.begin());
    const auto t0 = std::chrono::steady_clock::now();
    run();
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (r > 0) samples.push_back(s);  // r = 0 warms up
  }
  std::sort(samples.begin(), samples.end());
  return samples[samples.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  hetlu::Options options;
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--db") == 0 && i + 1 < argc)
      options.db_path = argv[++i];
    else
      sizes.push_back(std::atoi(argv[i]));
  }
  if (sizes.empty()) sizes = {1000, 2000, 4000};
  const int reps = 5;

  std::printf(
      "| n | nb (source) | hetlu s | hetlu GFlop/s | OpenBLAS s | OpenBLAS GFlop/s | ratio | residual hetlu | residual "
      "OpenBLAS |\n");
  std::printf("|---|---|---|---|---|---|---|---|---|\n");
  for (int n : sizes) {
    if (n < 1) {
      std::fprintf(stderr, "bench_getrf: size %d must be >= 1\n", n);
      return 1;
    }
    std::mt19937_64 rng(n);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<double> A(static_cast<size_t>(n) * n), work(A.size());
    for (auto& a : A) a = dist(rng);
    std::vector<int> ipiv(n);
    std::vector<lapack_int> lapack_ipiv(n);

    const hetlu::Plan plan =
        hetlu::resolve_plan(hetlu::Solver::gepp, hetlu::Precision::double_, hetlu::Target::cpu, n, n, options).plan;
    const double t_hetlu = median_seconds(
        A, work, [&] { hetlu::solvers::getrf(plan, n, n, work.data(), n, ipiv.data()); }, reps);
    const double r_hetlu = hetlu::accuracy::factorization_residual(n, n, A.data(), n, work.data(), n, ipiv.data());
    const double t_blas = median_seconds(
        A, work, [&] { LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, work.data(), n, lapack_ipiv.data()); }, reps);
    std::vector<int> blas_ipiv(lapack_ipiv.begin(), lapack_ipiv.end());
    const double r_blas = hetlu::accuracy::factorization_residual(n, n, A.data(), n, work.data(), n, blas_ipiv.data());

    const double flops = hetlu::model::getrf_flops(n, n);
    std::printf("| %d | %d (%s) | %.4f | %.1f | %.4f | %.1f | %.2f | %.2f | %.2f |\n", n, plan.nb,
                hetlu::to_string(plan.source).c_str(), t_hetlu, flops / t_hetlu / 1e9, t_blas, flops / t_blas / 1e9,
                t_blas / t_hetlu, r_hetlu, r_blas);
    std::fflush(stdout);
  }
  return 0;
}
