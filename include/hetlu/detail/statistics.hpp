// Robust statistics of timing samples, shared by the probes and the tuner's timing harness.
#pragma once

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace hetlu::detail {

inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  if (v.size() % 2) return v[mid];
  const double upper = v[mid];
  return (*std::max_element(v.begin(), v.begin() + mid) + upper) / 2;
}

// Median absolute deviation divided by the median: a spread that one outlier cannot inflate.
inline double relative_spread(const std::vector<double>& v) {
  const double m = median(v);
  if (m == 0) return 0;
  std::vector<double> deviations;
  deviations.reserve(v.size());
  for (double x : v) deviations.push_back(std::abs(x - m));
  return median(deviations) / std::abs(m);
}

// The time covered by a set of [begin, end) intervals, overlaps counted once: a device's busy time
// from steps on queues that run side by side (a GPU's panel queue beside its compute queue).
inline double covered_length(std::vector<std::pair<double, double>> intervals) {
  std::sort(intervals.begin(), intervals.end());
  double covered = 0, reached = -INFINITY;
  for (auto [begin, end] : intervals) {
    begin = std::max(begin, reached);
    if (end > begin) covered += end - begin, reached = end;
  }
  return covered;
}

// 1-based ranks of v, ties given their average rank.
inline std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<size_t> order(v.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (size_t i = 0; i < order.size();) {
    size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    for (size_t k = i; k <= j; ++k) r[order[k]] = (double(i) + double(j)) / 2 + 1;
    i = j + 1;
  }
  return r;
}

// Spearman's rank correlation of x and y (Pearson's of their ranks) over the pairs where both are
// finite; NaN where the sizes differ, fewer than two pairs remain or either side has no spread.
inline double spearman(const std::vector<double>& x_all, const std::vector<double>& y_all) {
  if (x_all.size() != y_all.size()) return std::nan("");
  std::vector<double> x, y;
  for (size_t i = 0; i < x_all.size(); ++i)
    if (std::isfinite(x_all[i]) && std::isfinite(y_all[i])) x.push_back(x_all[i]), y.push_back(y_all[i]);
  if (x.size() < 2) return std::nan("");
  const auto rx = ranks(x), ry = ranks(y);
  const double mean = (double(x.size()) + 1) / 2;
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < rx.size(); ++i) {
    sxy += (rx[i] - mean) * (ry[i] - mean);
    sxx += (rx[i] - mean) * (rx[i] - mean);
    syy += (ry[i] - mean) * (ry[i] - mean);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : std::nan("");
}

}  // namespace hetlu::detail
