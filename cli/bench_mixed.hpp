// hetlu bench --precision mixed: hetlu's mixed-precision solve against OpenBLAS's dgesv and dsgesv
// in the same run (bench_mixed.cpp).
#pragma once

#include <vector>

#include "hetlu/hetlu.hpp"

namespace hetlu::cli {

struct MixedBench {
  int n = 0;
  int reps = 5;
  double cond = 0;  // 0: a random matrix; else singular values graded from 1 to 1/cond
  std::vector<Solver> solvers;
  bool automatic = false;  // --precision auto: auto_precision_gesv in place of mixed_gesv
  bool json = false;
  // --no-openblas: OpenBLAS's dgesv and dsgesv not timed (a GPU run compares with cuSOLVER; at
  // n = 32768 OpenBLAS's dgesv takes about a minute a repetition on 16 cores).
  bool openblas = true;
};

void bench_mixed(const MixedBench& bench, const Options& options);

}  // namespace hetlu::cli
