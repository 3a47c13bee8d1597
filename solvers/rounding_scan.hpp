// What mixed precision's rounding of A to single needs to know of A, from the one pass that reads it
// (#15 item 2): whether every entry fits single (dlag2s' test: ITER -2 where one does not), whether
// every entry is finite, ||A||_inf and ||A||_1 (the refinement's stopping test and condition
// estimate). The pass is the host's rounding (mixed_gesv.cpp), or the packing of A in double for its
// upload where the device rounds it (mixed_device.hpp): at n = 32768 on the H100 the host's rounding
// took 0.38 s of a 1.38 s mixed solve (2026-11-27), a pass of its own over 8 GiB.
#pragma once

#include <mutex>
#include <vector>

namespace hetlu::kernels {

struct RoundedMatrix {
  bool fits = true;
  bool finite = true;
  double norm_inf = 0;
  double norm_1 = 0;
};

template <class T>  // double or complex<double>
class RoundingScan {
 public:
  // An n x n A; the visits come from OpenMP teams no larger than this thread's omp_get_max_threads().
  explicit RoundingScan(int n);

  // Column j of A (n entries), from several threads at once for distinct j, each column once.
  void column(int j, const T* x);
  bool column_finite(int j) const { return columns_[j].finite; }
  bool column_fits(int j) const { return columns_[j].fits; }

  // Once every column was visited: ||A||_inf sums each row's shares in thread order, the same to the
  // last bit from run to run at a given thread count.
  RoundedMatrix result() const;

 private:
  int n_;
  std::vector<std::vector<double>> row_sums_;  // per OpenMP thread: its columns' share of each row's sum
  std::vector<double> spill_;                  // a larger team's threads beyond those (never, as called)
  std::mutex spill_mutex_;
  struct Column {  // what the pass found of a column (one array: a small call's allocations count)
    double sum = 0;
    bool fits = true, finite = true;
  };
  std::vector<Column> columns_;
};

// The same of a whole n x n A in one parallel pass of its own (no rounding).
template <class T>
RoundedMatrix scan_matrix(int n, const T* A, int lda);

}  // namespace hetlu::kernels
