// Robust statistics of timing samples, shared by the probes and the tuner's timing harness.
#pragma once

#include <algorithm>
#include <cmath>
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

}  // namespace hetlu::detail
