// CALU on the CPU: the blocked LU driver with tournament pivoting in the panel (hybrid-calu-prbt-
// gepp §3.1, async-calu §2.4). Two levels of blocking: the outer panel of width plan.nb (B) is
// itself factored by inner panels of width plan.ib (b), each a TSLU over plan.panel_threads row
// blocks, with the rest of the outer panel updated between them.
#include "solvers/blocked_lu.hpp"
#include "solvers/variants.hpp"

namespace hetlu::variants {

template <class T>
int calu_cpu_getrf(const Plan& plan, int m, int n, T* A, int lda, int* ipiv) {
  const int inner = std::max(1, std::min(plan.ib, plan.nb));
  const int panel_threads = std::max(1, plan.panel_threads);
  auto calu_panel = [inner, panel_threads](int rows, int width, T* panel, int ld, int* panel_ipiv) {
    // The B-wide panel as a small blocked LU whose panels are TSLUs of width b, no look-ahead:
    // the TSLU's row blocks already use the threads.
    return blocked_lu(rows, width, panel, ld, panel_ipiv, inner, false,
                      [panel_threads](int r, int w, T* p, int l, int* piv) {
                        return kernels::tslu_panel(r, w, p, l, piv, panel_threads);
                      });
  };
  return blocked_lu(m, n, A, lda, ipiv, plan.nb, plan.lookahead > 0, calu_panel);
}

template int calu_cpu_getrf<float>(const Plan&, int, int, float*, int, int*);
template int calu_cpu_getrf<double>(const Plan&, int, int, double*, int, int*);

}  // namespace hetlu::variants
