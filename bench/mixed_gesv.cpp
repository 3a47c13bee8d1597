// Mixed precision against double (#15.2): hetlu::mixed_gesv, OpenBLAS's own dsgesv_ and dgesv_ on
// the same system in one process, round-robin, the median of five rounds after a warm-up; a
// well-conditioned random A and an ill-conditioned one (kappa = 1e11, beyond single precision's
// reach), where both mixed solvers must fall back to double and the question is what that costs.
// Usage: bench_mixed_gesv [orders..., default 2000 4000]; prints a Markdown table.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "hetlu/hetlu.hpp"

extern "C" {
void dgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, double* b, const int* ldb, int* info);
void dsgesv_(const int* n, const int* nrhs, double* a, const int* lda, int* ipiv, const double* b, const int* ldb,
             double* x, const int* ldx, double* work, float* swork, int* iter, int* info);
}

namespace {

double seconds(auto&& run) {
  const auto start = std::chrono::steady_clock::now();
  run();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Random A, or with cond > 0 one with singular values from 1 to 1/cond: column j scaled by
// cond^(-j/(n-1)) and then mixed by random Householder reflections from both sides.
std::vector<double> matrix(int n, double cond, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> normal;
  std::vector<double> A(static_cast<size_t>(n) * n);
  for (auto& x : A) x = normal(rng);
  if (cond <= 0) return A;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A[i + static_cast<size_t>(j) * n] = i == j ? std::pow(cond, -double(j) / (n - 1)) : 0;
  auto entry = [&](int i, int j, bool rows) -> double& {
    return rows ? A[i + static_cast<size_t>(j) * n] : A[j + static_cast<size_t>(i) * n];
  };
  for (int reflection = 0; reflection < 4; ++reflection) {  // two from the left, two from the right
    const bool rows = reflection < 2;
    std::vector<double> v(n);
    double norm = 0;
    for (auto& x : v) norm += (x = normal(rng)) * x;
    for (auto& x : v) x /= std::sqrt(norm);
    for (int j = 0; j < n; ++j) {
      double dot = 0;
      for (int i = 0; i < n; ++i) dot += v[i] * entry(i, j, rows);
      for (int i = 0; i < n; ++i) entry(i, j, rows) -= 2 * dot * v[i];
    }
  }
  return A;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<int> orders;
  for (int i = 1; i < argc; ++i) orders.push_back(std::atoi(argv[i]));
  if (orders.empty()) orders = {2000, 4000};
  std::printf(
      "| n | A | hetlu mixed s (iter) | OpenBLAS dsgesv s (iter) | OpenBLAS dgesv s | dgesv / hetlu (> 1: hetlu "
      "faster) | OpenBLAS dsgesv / hetlu |\n");
  std::printf("|---|---|---|---|---|---|---|\n");
  for (const int n : orders)
    for (const double cond : {0.0, 1e11}) {
      const auto A0 = matrix(n, cond, 1);
      std::vector<double> B(static_cast<size_t>(n), 1.0), A, X(n), work(n);
      std::vector<float> swork(static_cast<size_t>(n) * (n + 1));
      std::vector<int> ipiv(n);
      std::vector<double> ours, theirs, plain;
      int our_iter = 0, their_iter = 0;
      const int one_rhs = 1;
      hetlu::Options options;
      options.measure_time = false;
      for (int round = 0; round < 6; ++round) {
        A = A0;
        const double a = seconds(
            [&] { hetlu::mixed_gesv(n, 1, A.data(), n, ipiv.data(), B.data(), n, X.data(), n, &our_iter, options); });
        A = A0;
        int info = 0;
        const double b = seconds([&] {
          dsgesv_(&n, &one_rhs, A.data(), &n, ipiv.data(), B.data(), &n, X.data(), &n, work.data(), swork.data(),
                  &their_iter, &info);
        });
        A = A0;
        std::vector<double> x = B;
        const int one = 1;
        const double c = seconds([&] { dgesv_(&n, &one, A.data(), &n, ipiv.data(), x.data(), &n, &info); });
        if (round > 0) ours.push_back(a), theirs.push_back(b), plain.push_back(c);
      }
      const double o = median(ours), t = median(theirs), p = median(plain);
      std::printf("| %d | %s | %.3f (%d) | %.3f (%d) | %.3f | %.2f | %.2f |\n", n, cond > 0 ? "kappa 1e11" : "random",
                  o, our_iter, t, their_iter, p, p / o, t / o);
    }
  return 0;
}
