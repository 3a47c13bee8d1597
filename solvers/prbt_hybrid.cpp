// PRBT on the device: the padded matrix goes to the device once, the butterflies are applied there
// (CUDA kernels, or the host backend's team), and GENP runs on the hybrid driver from that
// device-resident matrix, with the panel on the CPUs or on the device as the plan says.
#include <algorithm>
#include <vector>

#include "solvers/hybrid_lu.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {

template <class T>
int prbt_hybrid_factor(const Plan& plan, int n, T* A, int lda, const T* u, const T* v) {
  using backends::Queue;
  auto lock = backends::lock_backend(plan.backend);
  auto& device = backends::backend<T>(plan.backend);
  std::vector<int> identity(n);
  auto dA = device.allocate(n, n);
  {
    auto pinned = device.register_host(A, static_cast<std::size_t>(lda) * (n - 1) + n);
    try {
      device.copy_to_device(Queue::to_device, n, n, A, lda, dA.data(), dA.ld);
      device.wait(Queue::compute, device.record(Queue::to_device));
      device.butterflies_two_sided(Queue::compute, n, u, v, dA.data(), dA.ld);
      device.synchronize();  // A (host) is the driver's workspace from here on
    } catch (...) {
      try {
        device.synchronize();
      } catch (...) {
      }
      throw;
    }
  }
  return HybridLu<T, decltype(&genp_panel<T>)>(device, Matrix<T>{n, n, lda, A}, plan.nb, hybrid_cpu_block_columns(plan),
                                               identity.data(), /*pivoting=*/false, genp_panel<T>, &dA)
      .run();
}

template int prbt_hybrid_factor<float>(const Plan&, int, float*, int, const float*, const float*);
template int prbt_hybrid_factor<double>(const Plan&, int, double*, int, const double*, const double*);

}  // namespace hetlu::variants
