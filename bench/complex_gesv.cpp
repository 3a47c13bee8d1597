// Complex precisions (#15.1): hetlu's GEPP, CALU and PRBT in complex double and complex single
// against OpenBLAS's own zgesv_ and cgesv_ on the same random system, in one process, round-robin,
// the median of `rounds` after a warm-up; GFlop/s in real flops (LAPACK's count: 8/3 n^3 for LU).
// Usage: bench_complex_gesv [orders..., default 1000 2000 3000]; prints a Markdown table.
#include <algorithm>
#include <chrono>
#include <complex>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "hetlu/detail/flops.hpp"
#include "hetlu/hetlu.hpp"

extern "C" {
void zgesv_(const int* n, const int* nrhs, std::complex<double>* a, const int* lda, int* ipiv, std::complex<double>* b,
            const int* ldb, int* info);
void cgesv_(const int* n, const int* nrhs, std::complex<float>* a, const int* lda, int* ipiv, std::complex<float>* b,
            const int* ldb, int* info);
}

namespace {

double seconds(auto&& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class T>
void run_order(int n, int rounds, const char* name) {
  std::mt19937 rng(n);
  std::normal_distribution<double> normal;
  std::vector<T> A(static_cast<size_t>(n) * n), b(n);
  for (auto& x : A) x = T(normal(rng), normal(rng));
  for (auto& x : b) x = T(normal(rng), normal(rng));
  std::vector<int> ipiv(n);
  hetlu::Options options;
  options.use_database = false;  // the model's plan, as an uncalibrated user gets it
  const hetlu::Solver solvers[] = {hetlu::Solver::gepp, hetlu::Solver::calu, hetlu::Solver::prbt};
  std::vector<double> times[4];
  double omega[4] = {0, 0, 0, 0};
  for (int round = 0; round <= rounds; ++round) {  // round 0 warms up
    for (int k = 0; k < 4; ++k) {
      auto LU = A;
      auto x = b;
      const double t = seconds([&] {
        if (k == 0) {
          const int one = 1;
          int info = 0;
          if constexpr (std::is_same_v<T, std::complex<double>>)
            zgesv_(&n, &one, LU.data(), &n, ipiv.data(), x.data(), &n, &info);
          else
            cgesv_(&n, &one, LU.data(), &n, ipiv.data(), x.data(), &n, &info);
        } else {
          hetlu::gesv(solvers[k - 1], n, 1, LU.data(), n, ipiv.data(), x.data(), n, options);
        }
      });
      if (round > 0) times[k].push_back(t);
      // omega with |re| + |im|, in double
      double worst = 0;
      for (int i = 0; i < n; ++i) {
        std::complex<double> r = b[i];
        double s = std::abs(r.real()) + std::abs(r.imag());
        for (int j = 0; j < n; ++j) {
          const std::complex<double> t2 =
              std::complex<double>(A[i + static_cast<size_t>(j) * n]) * std::complex<double>(x[j]);
          r -= t2;
          s += std::abs(t2.real()) + std::abs(t2.imag());
        }
        worst = std::max(worst, (std::abs(r.real()) + std::abs(r.imag())) / s);
      }
      omega[k] = worst;
    }
  }
  const double flops = hetlu::detail::gesv_flops(n, 1, true);
  const double reference = median(times[0]);
  const char* labels[] = {"OpenBLAS", "hetlu GEPP", "hetlu CALU", "hetlu PRBT"};
  for (int k = 0; k < 4; ++k) {
    const double t = median(times[k]);
    std::printf("| %s | %d | %s | %.3f | %.1f | %.2f | %.1e |\n", name, n, labels[k], t, flops / t / 1e9, reference / t,
                omega[k]);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> orders;
  for (int i = 1; i < argc; ++i) orders.push_back(std::atoi(argv[i]));
  if (orders.empty()) orders = {1000, 2000, 3000};
  std::printf("| precision | n | solver | seconds | GFlop/s | speed vs OpenBLAS | omega |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (int n : orders) {
    run_order<std::complex<double>>(n, 3, "complex double (zgesv)");
    run_order<std::complex<float>>(n, 3, "complex single (cgesv)");
  }
}
