#include "model/cpu_share.hpp"

#include <string>

#include "hetlu/types.hpp"

namespace hetlu::model {
namespace {
void check_rates(double cpu_rate, double device_rate) {
  if (!(cpu_rate >= 0) || !(device_rate >= 0) || cpu_rate + device_rate <= 0)
    throw InvalidArgument("rates must be >= 0 and not both zero (cpu_rate = " + std::to_string(cpu_rate) +
                          ", device_rate = " + std::to_string(device_rate) + ")");
}
}  // namespace

double cpu_block_columns(double cpu_rate, double device_rate, double block_columns_left, double panel_to_update_work) {
  check_rates(cpu_rate, device_rate);
  const double total = cpu_rate + device_rate;
  return (cpu_rate * block_columns_left + device_rate) / total - panel_to_update_work * device_rate / total;
}

double cpu_fraction(double cpu_rate, double device_rate) {
  check_rates(cpu_rate, device_rate);
  return cpu_rate / (cpu_rate + device_rate);
}

double cpu_fraction_from_peaks(double cpu_peak, double device_peak, double cpu_efficiency, double device_efficiency) {
  return cpu_fraction(cpu_peak * cpu_efficiency, device_peak * device_efficiency);
}

}  // namespace hetlu::model
