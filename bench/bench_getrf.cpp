// bench_getrf [--db PATH] [--nb NB] [--lookahead L] N [N ...]: hetlu GEPP getrf (plan resolved as in a user's call)
// against OpenBLAS dgetrf through LAPACKE, on the same matrix, in the same run, alternating. Median of 7. Prints one
// Markdown row per size: times, GFlop/s, the ratio (> 1: hetlu faster), both residuals.
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

// Times two runs on the same input, alternating them so that drift on a shared machine hits both
// alike; median of each after one warm-up of each.
template <class RunA, class RunB>
std::pair<double, double> median_seconds(const std::vector<double>& original, std::vector<double>& work_a, RunA&& a,
                                         std::vector<double>& work_b, RunB&& b, int reps) {
  auto time = [&](auto&& run, std::vector<double>& work) {
    std::copy(original.begin(), original.end(), work.begin());
    const auto t0 = std::chrono::steady_clock::now();
    run();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  std::vector<double> sa, sb;
  time(a, work_a);
  time(b, work_b);
  for (int r = 0; r < reps; ++r) {
    sa.push_back(time(a, work_a));
    sb.push_back(time(b, work_b));
  }
  std::sort(sa.begin(), sa.end());
  std::sort(sb.begin(), sb.end());
  return {sa[sa.size() / 2], sb[sb.size() / 2]};
}

}  // namespace

int main(int argc, char** argv) {
  hetlu::Options options;
  std::vector<int> sizes;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--db") == 0 && i + 1 < argc)
      options.db_path = argv[++i];
    else if (std::strcmp(argv[i], "--nb") == 0 && i + 1 < argc)
      options.overrides.nb = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--lookahead") == 0 && i + 1 < argc)
      options.overrides.lookahead = std::atoi(argv[++i]);
    else
      sizes.push_back(std::atoi(argv[i]));
  }
  if (sizes.empty()) sizes = {1000, 2000, 4000};
  const int reps = 7;

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
    std::vector<double> A(static_cast<size_t>(n) * n);
    for (auto& a : A) a = dist(rng);
    std::vector<int> ipiv(n);
    std::vector<lapack_int> lapack_ipiv(n);

    const hetlu::Plan plan =
        hetlu::resolve_plan(hetlu::Solver::gepp, hetlu::Precision::double_, hetlu::Target::cpu, n, n, options).plan;
    std::vector<double> lu_hetlu(A.size()), lu_blas(A.size());
    const auto [t_hetlu, t_blas] = median_seconds(
        A, lu_hetlu, [&] { hetlu::solvers::getrf(plan, n, n, lu_hetlu.data(), n, ipiv.data()); }, lu_blas,
        [&] { LAPACKE_dgetrf(LAPACK_COL_MAJOR, n, n, lu_blas.data(), n, lapack_ipiv.data()); }, reps);
    const double r_hetlu = hetlu::accuracy::factorization_residual(n, n, A.data(), n, lu_hetlu.data(), n, ipiv.data());
    std::vector<int> blas_ipiv(lapack_ipiv.begin(), lapack_ipiv.end());
    const double r_blas =
        hetlu::accuracy::factorization_residual(n, n, A.data(), n, lu_blas.data(), n, blas_ipiv.data());

    const double flops = hetlu::model::getrf_flops(n, n);
    std::printf("| %d | %d (%s) | %.4f | %.1f | %.4f | %.1f | %.2f | %.2f | %.2f |\n", n, plan.nb,
                hetlu::to_string(plan.source).c_str(), t_hetlu, flops / t_hetlu / 1e9, t_blas, flops / t_blas / 1e9,
                t_blas / t_hetlu, r_hetlu, r_blas);
    std::fflush(stdout);
  }
  return 0;
}
