// The one text form of a plan: the CLI's JSON, Python's dict and the C API's strings all come from
// it, so that every interface shows every field under the same name.
#include <nlohmann/json.hpp>

#include "hetlu/hetlu.hpp"

namespace hetlu {

std::string plan_json(const Plan& plan) {
  nlohmann::ordered_json j = {{"solver", to_string(plan.solver)},
                              {"precision", to_string(plan.precision)},
                              {"target", to_string(plan.target)},
                              {"nb", plan.nb},
                              {"ib", plan.ib},
                              {"cpu_block_columns", plan.cpu_block_columns},
                              {"panel_threads", plan.panel_threads},
                              {"lookahead", plan.lookahead},
                              {"panel_location", to_string(panel_location(plan))},
                              {"backend", to_string(plan.devices.front().kind)},
                              {"devices", to_string(plan.devices)},
                              {"device_shares", plan.device_shares},
                              {"refinement", to_string(plan.refinement)},
                              {"source", to_string(plan.source)},
                              {"source_detail", plan.source_detail},
                              {"overridden", plan.overridden}};
  j["predicted_seconds"] = plan.predicted_seconds ? nlohmann::ordered_json(*plan.predicted_seconds) : nullptr;
  // A database path or device name that is not UTF-8 (a file name's bytes) printed as U+FFFD, not
  // the JSON library's exception.
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace hetlu
