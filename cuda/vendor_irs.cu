// cuSOLVER's own mixed-precision solver, the reference for hetlu's mixed solve on a GPU (#15 item 5):
// cusolverDn{DD,DS,DX}gesv, a double answer from a double, single or TF32 factorization with
// cuSOLVER's iterative refinement (the simple interface of cusolverDnIRSXgesv, its defaults).
#include <cuda_runtime.h>
#include <cusolverDn.h>

#include <memory>
#include <string>
#include <vector>

#include "cuda/cuda_check.hpp"
#include "cuda/cuda_parts.hpp"
#include "hetlu/detail/statistics.hpp"

namespace hetlu::backends {
namespace {

using cuda::check;

using IrsBuffer = cusolverStatus_t (*)(cusolverDnHandle_t, cusolver_int_t, cusolver_int_t, double*, cusolver_int_t,
                                       cusolver_int_t*, double*, cusolver_int_t, double*, cusolver_int_t, void*,
                                       size_t*);
using IrsSolve = cusolverStatus_t (*)(cusolverDnHandle_t, cusolver_int_t, cusolver_int_t, double*, cusolver_int_t,
                                      cusolver_int_t*, double*, cusolver_int_t, double*, cusolver_int_t, void*, size_t,
                                      cusolver_int_t*, cusolver_int_t*);

struct IrsRoutine {
  const char* name;
  IrsBuffer buffer;
  IrsSolve solve;
};

IrsRoutine routine(VendorFactorPrecision factored) {
  switch (factored) {
    case VendorFactorPrecision::single:
      return {"DSgesv", &cusolverDnDSgesv_bufferSize, &cusolverDnDSgesv};
    case VendorFactorPrecision::tf32:
      return {"DXgesv (TF32)", &cusolverDnDXgesv_bufferSize, &cusolverDnDXgesv};
    case VendorFactorPrecision::double_:
      break;
  }
  return {"DDgesv", &cusolverDnDDgesv_bufferSize, &cusolverDnDDgesv};
}

// Device memory freed on every path out.
template <class E>
std::shared_ptr<E> device_array(std::size_t count) {
  void* p = nullptr;
  check(cudaMalloc(&p, sizeof(E) * std::max<std::size_t>(1, count)), "cudaMalloc");
  return std::shared_ptr<E>(static_cast<E*>(p), [](E* q) { cudaFree(q); });
}

}  // namespace

VendorIrsTiming cuda_time_vendor_irs(int n, const double* A, int lda, const double* b, int reps,
                                     VendorFactorPrecision factored) {
  std::string why;
  if (!cuda_device_present(&why)) throw Error("cuSOLVER reference: " + why);
  if (n <= 0) throw InvalidArgument("cuSOLVER reference: n = " + std::to_string(n) + " must be positive");
  const IrsRoutine r = routine(factored);
  const std::size_t ld = n, elements = ld * n;
  auto dA = device_array<double>(elements), dB = device_array<double>(ld), dX = device_array<double>(ld);
  auto ints = device_array<cusolver_int_t>(ld + 1);  // ipiv, then info
  cusolverDnHandle_t solver = nullptr;
  check(cusolverDnCreate(&solver), "cusolverDnCreate");
  std::shared_ptr<void> release(nullptr, [solver](void*) { cusolverDnDestroy(solver); });
  std::size_t bytes = 0;
  check(r.buffer(solver, n, 1, dA.get(), n, ints.get(), dB.get(), n, dX.get(), n, nullptr, &bytes), r.name);
  auto work = device_array<unsigned char>(bytes);
  VendorIrsTiming timing;
  timing.x.resize(ld);
  cuda::EventTimer timer;
  std::vector<double> solve, upload, download;
  for (int rep = 0; rep <= reps; ++rep) {  // rep 0 warms up
    // A again each run: a fallback leaves double factors in it.
    const double up = timer.seconds([&] {
      check(cudaMemcpy2D(dA.get(), sizeof(double) * ld, A, sizeof(double) * lda, sizeof(double) * n, n,
                         cudaMemcpyHostToDevice),
            "cudaMemcpy2D to the device");
      check(cudaMemcpy(dB.get(), b, sizeof(double) * ld, cudaMemcpyHostToDevice), "cudaMemcpy to the device");
    });
    cusolver_int_t iter = 0;
    const double s = timer.seconds([&] {
      check(r.solve(solver, n, 1, dA.get(), n, ints.get(), dB.get(), n, dX.get(), n, work.get(), bytes, &iter,
                    ints.get() + n),
            r.name);
    });
    const double down = timer.seconds([&] {
      check(cudaMemcpy(timing.x.data(), dX.get(), sizeof(double) * ld, cudaMemcpyDeviceToHost),
            "cudaMemcpy to the host");
    });
    int info = 0;
    check(cudaMemcpy(&info, ints.get() + n, sizeof(int), cudaMemcpyDeviceToHost), "cudaMemcpy of info");
    if (info != 0)
      throw Error(std::string("cuSOLVER reference: ") + r.name + " returned info " + std::to_string(info) +
                  (info > 0 ? " (a zero pivot: singular)" : ""));
    timing.iter = iter;
    if (rep > 0) solve.push_back(s), upload.push_back(up), download.push_back(down);
  }
  int version = 0;
  check(cusolverGetVersion(&version), "cusolverGetVersion");
  timing.library = "cuSOLVER " + std::to_string(version) + " " + r.name;
  timing.solve_seconds = detail::median(solve);
  timing.upload_seconds = detail::median(upload);
  timing.download_seconds = detail::median(download);
  return timing;
}

}  // namespace hetlu::backends
