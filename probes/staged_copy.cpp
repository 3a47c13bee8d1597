// The solvers' staged copies timed as they run them (GpuInfo::staged_upload_gbs); see probes.hpp.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "hetlu/detail/staging_slot.hpp"
#include "probes/probes.hpp"
#include "solvers/backend.hpp"
#include "solvers/scalar.hpp"
#include "solvers/staging.hpp"

namespace hetlu::probes {

StagedRates measure_staged_copies(backends::Backend<double>& device, int rows, int cols, int repetitions) {
  using backends::Queue;
  // Slots as an upload beside the steps takes them (HybridLu's device_panels, d = 0, nb 256).
  backends::Staging<double> staging(device, rows, detail::staging_slot_columns(rows, cols, 256, false, sizeof(double)));
  auto on_device = device.allocate(rows, cols);
  std::vector<double> host(static_cast<std::size_t>(rows) * cols);
  for (std::size_t k = 0; k < host.size(); ++k) host[k] = double(k % 1021) - 510;  // pages touched, not constant
  const double bytes = sizeof(double) * double(rows) * cols;
  // The solvers' default upload checks each column as it packs it (HybridLu::check_input).
  const backends::Staging<double>::ColumnVisitor finite = [](int, const double* x, int n) {
    return scalar::all_finite(x, n);
  };
  StagedRates out;
  out.upload = rate_from_seconds(bytes / 1e9, time_samples(
                                                  [&] {
                                                    staging.to_device(Queue::to_device, rows, cols, host.data(), rows,
                                                                      on_device.data(), on_device.ld, finite);
                                                    device.synchronize();
                                                  },
                                                  repetitions));
  out.download =
      rate_from_seconds(bytes / 1e9, time_samples(
                                         [&] {
                                           staging.finish(staging.to_host(Queue::to_host, rows, cols, on_device.data(),
                                                                          on_device.ld, host.data(), rows));
                                           device.synchronize();
                                         },
                                         repetitions));
  return out;
}

}  // namespace hetlu::probes
