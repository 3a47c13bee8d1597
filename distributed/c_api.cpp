// include/hetlu/hetlu_distributed.h over the C++ front ends; no exception crosses the C ABI.
#include "hetlu/detail/c_guard.hpp"
#include "hetlu/distributed.hpp"
#include "hetlu/hetlu_distributed.h"

namespace {

using hetlu::detail::c_guarded;

template <class T>
hetlu_status descriptor_gesv(int n, int nrhs, T* A, int ia, int ja, const int* desca, int* ipiv, T* B, int ib, int jb,
                             const int* descb, int* info, int threads) {
  return c_guarded([&] {
    if (!info) throw hetlu::InvalidArgument("p?gesv: info is a null pointer");
    if (!desca || !descb || !ipiv) throw hetlu::InvalidArgument("p?gesv: desca, descb or ipiv is a null pointer");
    *info = hetlu::distributed::gesv(n, nrhs, A, ia, ja, desca, ipiv, B, ib, jb, descb, threads);
    return *info > 0 ? HETLU_ERROR_SINGULAR : HETLU_SUCCESS;
  });
}

template <class T>
hetlu_status root_gesv(MPI_Comm comm, int root, int n, int nrhs, T* A, int lda, T* B, int ldb, int* info,
                       const hetlu_distributed_options* options) {
  return c_guarded([&] {
    if (!info) throw hetlu::InvalidArgument("distributed gesv: info is a null pointer");
    hetlu::distributed::DistributedPlan plan;
    std::string db;
    if (options) {
      plan.grid_rows = options->grid_rows, plan.grid_cols = options->grid_cols;
      plan.nb = options->nb, plan.threads_per_rank = options->threads_per_rank;
      if (options->db) db = options->db;
    }
    const auto report = hetlu::distributed::gesv_from_root(comm, root, n, nrhs, A, lda, B, ldb, plan, db);
    *info = report.info;
    return report.info > 0 ? HETLU_ERROR_SINGULAR : HETLU_SUCCESS;
  });
}

}  // namespace

extern "C" {

hetlu_status hetlu_pdgesv(int n, int nrhs, double* A, int ia, int ja, const int* desca, int* ipiv, double* B, int ib,
                          int jb, const int* descb, int* info, int threads_per_rank) {
  return descriptor_gesv(n, nrhs, A, ia, ja, desca, ipiv, B, ib, jb, descb, info, threads_per_rank);
}
hetlu_status hetlu_psgesv(int n, int nrhs, float* A, int ia, int ja, const int* desca, int* ipiv, float* B, int ib,
                          int jb, const int* descb, int* info, int threads_per_rank) {
  return descriptor_gesv(n, nrhs, A, ia, ja, desca, ipiv, B, ib, jb, descb, info, threads_per_rank);
}
hetlu_status hetlu_pdgesv_root(MPI_Comm comm, int root, int n, int nrhs, double* A, int lda, double* B, int ldb,
                               int* info, const hetlu_distributed_options* options) {
  return root_gesv(comm, root, n, nrhs, A, lda, B, ldb, info, options);
}
hetlu_status hetlu_psgesv_root(MPI_Comm comm, int root, int n, int nrhs, float* A, int lda, float* B, int ldb,
                               int* info, const hetlu_distributed_options* options) {
  return root_gesv(comm, root, n, nrhs, A, lda, B, ldb, info, options);
}

}  // extern "C"
