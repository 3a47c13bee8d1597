// Solves a 3 x 3 system through the installed C++ API.
#include <cmath>
#include <cstdio>
#include <hetlu/hetlu.hpp>

int main() {
  double A[9] = {4, 1, 0, 2, 3, 1, 0, 1, 5}, B[3] = {6, 5, 6};
  int ipiv[3];
  hetlu::Options options;
  options.use_database = false;
  const auto report = hetlu::gesv(hetlu::Solver::gepp, 3, 1, A, 3, ipiv, B, 3, options);
  const bool ok = report.info == 0 && std::abs(B[0] - 1) < 1e-14 && std::abs(B[2] - 1) < 1e-14;
  std::printf("C++ consumer: plan from %s, %s\n", hetlu::to_string(report.plan.source).c_str(), ok ? "ok" : "WRONG");
  return ok ? 0 : 1;
}
