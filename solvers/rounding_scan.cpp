// What rounding A to single needs to know of it; see rounding_scan.hpp.
#include "solvers/rounding_scan.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include "solvers/scalar.hpp"

namespace hetlu::kernels {

template <class T>
RoundingScan<T>::RoundingScan(int n) : n_(n), row_sums_(std::max(1, omp_get_max_threads())), columns_(n) {}

template <class T>
void RoundingScan<T>::column(int j, const T* x) {
  using Low = scalar::low_t<T>;
  const std::size_t thread = omp_get_thread_num();
  std::unique_lock<std::mutex> spilled;
  std::vector<double>* shares = &spill_;
  if (thread < row_sums_.size())
    shares = &row_sums_[thread];
  else
    spilled = std::unique_lock<std::mutex>(spill_mutex_);
  if (shares->empty()) shares->assign(n_, 0.0);
  double* rows = shares->data();
  double sum = 0, largest = 0;  // largest ignores a NaN, which fits (dlag2s)
#pragma omp simd reduction(+ : sum) reduction(max : largest)
  for (int i = 0; i < n_; ++i) {
    const double a = std::abs(x[i]);
    rows[i] += a;
    sum += a;
    largest = std::max(largest, a);
  }
  bool fits = !(largest > std::numeric_limits<scalar::real_t<Low>>::max());
  if constexpr (scalar::is_complex_v<T>) {  // |z| beyond single's range while both parts fit is no overflow
    fits = true;
    for (int i = 0; i < n_; ++i) fits = scalar::fits<Low>(x[i]) && fits;
  }
  Column& found = columns_[j];
  found.fits = fits;
  found.finite = std::isfinite(sum) || scalar::all_finite(x, n_);  // a finite sum has finite terms
  found.sum = std::isnan(sum) ? std::numeric_limits<double>::infinity() : sum;
}

template <class T>
RoundedMatrix RoundingScan<T>::result() const {
  RoundedMatrix out;
  for (const Column& c : columns_) {
    out.fits = out.fits && c.fits;
    out.finite = out.finite && c.finite;
    out.norm_1 = std::max(out.norm_1, c.sum);
  }
  for (int i = 0; i < n_; ++i) {
    double row = 0;
    for (const auto& share : row_sums_) row += share.empty() ? 0.0 : share[i];
    if (!spill_.empty()) row += spill_[i];
    out.norm_inf = std::max(out.norm_inf, row);
  }
  return out;
}

template <class T>
RoundedMatrix scan_matrix(int n, const T* A, int lda) {
  RoundingScan<T> scan(n);
#pragma omp parallel for schedule(static) if (static_cast <long long>(n) * n > 65536)
  for (int j = 0; j < n; ++j) scan.column(j, A + static_cast<long long>(j) * lda);
  return scan.result();
}

template RoundedMatrix scan_matrix<double>(int, const double*, int);
template RoundedMatrix scan_matrix<std::complex<double>>(int, const std::complex<double>*, int);
template class RoundingScan<double>;
template class RoundingScan<std::complex<double>>;

}  // namespace hetlu::kernels
