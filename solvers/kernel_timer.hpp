#pragma once
// HETLU_TIME_KERNELS=1, a diagnostic (default off): the one-device d = 0 path brackets each kind of
// device work with timed events on its queue and reports the sums as phases ("of which: ..."), so a
// GPU run prices the row interchanges and the panels apart from the TRSMs and GEMMs (the model's GEPP
// price was 14-27 % low on the H100, 2026-11-26, and GENP's was not). Off, no event is recorded.

#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "hetlu/detail/env_choice.hpp"
#include "solvers/backend.hpp"

namespace hetlu::variants {

template <typename T>
class KernelTimer {
 public:
  static bool wanted() {
    return detail::env_choice("HETLU_TIME_KERNELS", {"0", "1"}, "0") == "1";  // read each time: tests set it
  }
  explicit KernelTimer(backends::Backend<T>& dev) : dev_(dev) {}

  // Runs `queue_work` (which queues its work on q) between two timed events on q.
  template <typename F>
  void time(const char* what, backends::Queue q, F&& queue_work) {
    auto from = dev_.record_timed(q);
    queue_work();
    spans_.push_back({what, std::move(from), dev_.record_timed(q)});
  }

  // After the device is synchronized: each kind's summed time, in the order first seen.
  std::vector<std::pair<std::string, double>> sums() const {
    std::vector<std::pair<std::string, double>> out;
    for (const auto& s : spans_) {
      const std::string name = std::string("of which: ") + s.what;
      auto it = out.begin();
      while (it != out.end() && it->first != name) ++it;
      if (it == out.end()) it = out.insert(out.end(), {name, 0.0});
      it->second += dev_.elapsed_seconds(s.from, s.to);
    }
    return out;
  }

 private:
  struct Span {
    const char* what;
    backends::EventPtr from, to;
  };
  backends::Backend<T>& dev_;
  std::vector<Span> spans_;
};

}  // namespace hetlu::variants
