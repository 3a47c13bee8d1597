#include "configs/configs.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <tuple>
#include <variant>

#include "configs/embedded.hpp"
#include "hetlu/detail/plausible.hpp"
#include "hetlu/detail/utf8.hpp"

namespace hetlu::configs {
namespace {

// Settings files are a few KiB; anything past this is not one (and would cost memory to parse).
constexpr std::uintmax_t largest_file_bytes = 1 << 20;

// The shortest text that reads back as exactly x (0.8, not 0.80000000000000004).
std::string shortest(double x) {
  char text[32];
  const auto end = std::to_chars(text, text + sizeof text, x).ptr;
  return std::string(text, end);
}

std::string shown(double x) {
  std::ostringstream s;
  s.precision(10);  // 0.9999999 is not "1", 1000000001 not "1e+09"
  s << x;
  return s.str();
}

// The YAML text of `path` (at most largest_file_bytes), or of the built-in file when path is empty.
// Every error names the file.
YAML::Node load(const std::string& path, const char* embedded_text, const std::string& source) {
  std::string text = embedded_text;
  if (!path.empty()) {
    namespace fs = std::filesystem;
    std::error_code ec;
    const auto status = fs::status(path, ec);
    if (ec && ec != std::errc::no_such_file_or_directory) throw InvalidArgument(path + ": " + ec.message());
    if (ec || !fs::exists(status)) throw InvalidArgument(path + ": no such file");
    if (fs::is_directory(status)) throw InvalidArgument(path + ": is a folder, not a YAML file");
    if (fs::is_regular_file(status) && fs::file_size(path, ec) > largest_file_bytes)
      throw InvalidArgument(path + ": " + std::to_string(fs::file_size(path, ec)) +
                            " bytes is too large for a settings file (at most 1 MiB)");
    // A pipe reads once: what it gave is kept for the next reader of the same path in this process
    // (`--machine <(...) --ranks P` reads the machine, then its network section, and the second
    // read of the pipe was empty).
    static std::mutex pipes_mutex;
    static std::map<std::string, std::string> pipes_read;
    const bool regular = fs::is_regular_file(status);
    std::lock_guard lock(pipes_mutex);
    if (const auto kept = pipes_read.find(path); !regular && kept != pipes_read.end()) {
      text = kept->second;
    } else {
      std::ifstream in(path, std::ios::binary);
      if (!in) throw InvalidArgument(path + ": cannot be read");
      text.assign(largest_file_bytes + 1, '\0');  // a pipe or device is bounded here too
      in.read(text.data(), static_cast<std::streamsize>(text.size()));
      text.resize(static_cast<std::size_t>(in.gcount()));
      if (text.size() > largest_file_bytes)
        throw InvalidArgument(path + ": too large for a settings file (at most 1 MiB)");
      if (!regular) pipes_read[path] = text;
    }
  }
  YAML::Node root;
  try {
    // One document: a second after "---" (or anything after "...") had been ignored, its unknown
    // keys and out-of-range values unchecked.
    const std::vector<YAML::Node> documents = YAML::LoadAll(text);
    if (documents.size() > 1)
      throw InvalidArgument(source + ": holds " + std::to_string(documents.size()) +
                            " YAML documents; a settings file is one");
    if (!documents.empty()) root = documents.front();
  } catch (const YAML::Exception& e) {
    throw InvalidArgument(source + ": not YAML: " + e.what());
  }
  if (!root.IsMap()) throw InvalidArgument(source + ": not a YAML mapping of settings");
  return root;
}

// A section that must be a mapping when present; an absent one is an empty node.
YAML::Node section(const YAML::Node& node, const char* key, const std::string& where) {
  const YAML::Node s = node[key];
  if (s && !s.IsMap()) throw InvalidArgument(where + key + ": must be a mapping of keys");
  return s;
}

// Refuses keys the reader does not know: a misspelt key would otherwise be silently ignored.
void refuse_unknown_keys(const YAML::Node& node, const std::vector<std::string>& known, const std::string& where) {
  if (!node || !node.IsMap()) return;
  std::vector<std::string> seen;
  for (const auto& entry : node) {
    const std::string key = entry.first.as<std::string>("?");
    // YAML allows a key once per mapping; yaml-cpp would silently keep the first of two.
    // Shown printable: a NUL in a key had cut the message there (what() is a C string).
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      throw InvalidArgument(where + detail::printable(key) + ": given twice");
    seen.push_back(key);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw InvalidArgument(where + detail::printable(key) + ": unknown key (expected one of: " + list + ")");
    }
  }
}

// What a value of type T is, for a refusal ("bad conversion" said neither what was found nor wanted).
template <class T>
const char* kind_of() {
  if constexpr (std::is_same_v<T, bool>)
    return "true or false";
  else if constexpr (std::is_integral_v<T>)
    return "a whole number";
  else if constexpr (std::is_floating_point_v<T>)
    return "a number";
  else if constexpr (std::is_same_v<T, std::vector<int>>)
    return "a list of whole numbers";
  else if constexpr (std::is_same_v<T, std::vector<double>>)
    return "a list of numbers";
  else if constexpr (std::is_same_v<T, std::vector<std::string>>)
    return "a list of names";
  else if constexpr (std::is_same_v<T, std::string>)
    return "text";
  else
    static_assert(sizeof(T) == 0, "kind_of: name this type");
}

// A number written with a leading zero (016): yaml-cpp reads a whole one as octal (14) and a real
// one as decimal, so the same text meant two things in one file. Refused, as ambiguous.
bool leading_zero(const YAML::Node& value) {
  if (!value.IsScalar()) return false;
  std::string_view text = value.Scalar();
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  return text.size() > 1 && text[0] == '0' && std::isdigit(static_cast<unsigned char>(text[1]));
}

template <class T>
T get(const YAML::Node& node, const char* key, const T& fallback, const std::string& where) {
  if (!node || !node[key]) return fallback;
  if constexpr (!std::is_same_v<T, std::string> && !std::is_same_v<T, std::vector<std::string>>) {
    const YAML::Node value = node[key];
    bool zero_led = leading_zero(value);
    if (value.IsSequence())
      for (const auto& item : value) zero_led = zero_led || leading_zero(item);
    if (zero_led)
      throw InvalidArgument(where + key +
                            ": a number written with a leading zero (octal or decimal?): write it "
                            "without");
  }
  try {
    return node[key].as<T>();
  } catch (const YAML::Exception&) {
    const YAML::Node value = node[key];
    std::string found = value.IsSequence() ? "a list"
                        : value.IsMap()    ? "a mapping"
                                           : "'" + detail::printable(value.Scalar()) + "'";
    if (found.size() > 60) found = found.substr(0, 57) + "...'";
    throw InvalidArgument(where + key + ": " + found + " is not " + kind_of<T>());
  }
}

// A name under key (a machine's, a CPU's, a device's): UTF-8 text without control characters, as
// it is printed and written in JSON (a byte 0xFF had --json fail with the JSON library's message,
// and a NUL went to the terminal); absent: fallback.
std::string name_text(const YAML::Node& node, const char* key, const std::string& fallback, const std::string& where) {
  const std::string text = get<std::string>(node, key, fallback, where);
  if (!detail::is_utf8(text)) throw InvalidArgument(where + key + ": not valid UTF-8 text");
  if (detail::has_control_character(text)) throw InvalidArgument(where + key + ": holds a control character");
  return text;
}

// A number under key, finite and in [low, high] (or (low, high] when low is open); absent: fallback.
double number(const YAML::Node& node, const char* key, double fallback, const std::string& where, double low,
              double high, bool low_open = false) {
  const double x = get(node, key, fallback, where);
  if (node && node[key] && !(std::isfinite(x) && (low_open ? x > low : x >= low) && x <= high))
    throw InvalidArgument(where + key + ": " + shown(x) + " is not a finite number in " + (low_open ? "(" : "[") +
                          shown(low) + ", " + shown(high) + "]");
  return x;
}

int whole(const YAML::Node& node, const char* key, int fallback, const std::string& where, int low, int high) {
  const int x = get(node, key, fallback, where);
  if (node && node[key] && (x < low || x > high))
    throw InvalidArgument(where + key + ": " + std::to_string(x) + " is not a whole number in [" + std::to_string(low) +
                          ", " + std::to_string(high) + "]");
  return x;
}

std::vector<int> wholes(const YAML::Node& node, const char* key, const std::vector<int>& fallback,
                        const std::string& where, int low, int high) {
  const auto values = get(node, key, fallback, where);
  for (int x : values)
    if (x < low || x > high)
      throw InvalidArgument(where + key + ": " + std::to_string(x) + " is not a whole number in [" +
                            std::to_string(low) + ", " + std::to_string(high) + "]");
  return values;
}

constexpr double huge = detail::most_plausible_value;
constexpr double tiny = detail::least_plausible_rate;
constexpr int largest_order = 1 << 20;

// A list of enum names (solvers, precisions) under key, each read with from_string; `fallback` when
// the key is absent. A name that is none is an error naming the file and key.
template <class E>
std::vector<E> names(const YAML::Node& node, const char* key, const std::vector<E>& fallback,
                     const std::string& where) {
  if (!node[key]) return fallback;
  std::vector<E> values;
  for (const auto& name : get<std::vector<std::string>>(node, key, {}, where)) try {
      values.push_back(from_string<E>(name));
    } catch (const InvalidArgument& e) {
      throw InvalidArgument(where + key + ": " + e.what());
    }
  return values;
}

}  // namespace

tuner::LevelSettings calibration_level(CalibrationLevel level, const std::string& yaml_path) {
  const std::string source = yaml_path.empty() ? "built-in calibration.yaml" : yaml_path;
  const YAML::Node root = load(yaml_path, embedded::calibration_yaml, source);
  refuse_unknown_keys(root, {"levels"}, source + ": ");
  const std::string name = to_string(level);
  const YAML::Node levels = section(root, "levels", source + ": ");
  refuse_unknown_keys(levels, {"estimate", "quick", "measure", "patient", "exhaustive"}, source + ": levels.");
  const YAML::Node node = levels ? levels[name] : YAML::Node();
  if (!node) throw InvalidArgument(source + ": no settings for level '" + name + "'");
  if (!node.IsMap()) throw InvalidArgument(source + ": levels." + name + ": must be a mapping of keys");
  const std::string where = source + ": levels." + name + ".";
  refuse_unknown_keys(node,
                      {"measure_rates", "probe_gemm_size", "sizes", "strategy", "nb", "ib", "lookahead", "hybrid_sizes",
                       "cpu_share", "budget_seconds", "prune_above", "solvers", "precisions", "timing"},
                      where);

  tuner::LevelSettings s;
  s.level = level;
  s.measure_rates = get(node, "measure_rates", s.measure_rates, where);
  s.probe_gemm_size = whole(node, "probe_gemm_size", s.probe_gemm_size, where, 16, 16384);
  s.sizes = wholes(node, "sizes", s.sizes, where, 1, largest_order);
  s.strategy = get(node, "strategy", s.strategy, where);
  s.space.nb = wholes(node, "nb", s.space.nb, where, 1, largest_order);
  s.space.ib = wholes(node, "ib", s.space.ib, where, 1, largest_order);
  s.space.lookahead = wholes(node, "lookahead", s.space.lookahead, where, 0, most_lookahead);
  s.hybrid_sizes = wholes(node, "hybrid_sizes", s.hybrid_sizes, where, 1, largest_order);
  s.space.cpu_share = get(node, "cpu_share", s.space.cpu_share, where);
  // The search space is built whole (nb x ib x lookahead x d): lists of 45000 widths each asked for
  // gigabytes before any size was checked (a hostile helper's finding). More values than any search
  // would time are refused.
  constexpr std::size_t most_values = 256;
  for (const auto& [key, count] :
       {std::pair{"sizes", s.sizes.size()}, std::pair{"nb", s.space.nb.size()}, std::pair{"ib", s.space.ib.size()},
        std::pair{"hybrid_sizes", s.hybrid_sizes.size()}, std::pair{"cpu_share", s.space.cpu_share.size()}})
    if (count > most_values)
      throw InvalidArgument(where + key + ": " + std::to_string(count) + " values; at most " +
                            std::to_string(most_values));
  for (double share : s.space.cpu_share)
    if (!(share >= 0 && share <= 1))
      throw InvalidArgument(where + "cpu_share: " + shown(share) + " is not a number in [0, 1]");
  s.budget_seconds = number(node, "budget_seconds", s.budget_seconds, where, 0, huge);
  s.prune_above = number(node, "prune_above", s.prune_above, where, 0, huge);
  if (s.prune_above > 0 && s.prune_above < 1)
    throw InvalidArgument(where + "prune_above: " + shown(s.prune_above) +
                          " would skip plans the model prices faster than the best measured (0, or at least 1)");
  s.solvers = names(node, "solvers", s.solvers, where);
  s.precisions = names(node, "precisions", s.precisions, where);
  if (s.precisions.empty()) throw InvalidArgument(where + "precisions: is empty");
  const YAML::Node t = section(node, "timing", where);
  const std::string twhere = where + "timing.";
  refuse_unknown_keys(t, {"warmup", "min_samples", "max_samples", "target_spread", "time_cap_seconds"}, twhere);
  s.timing.warmup = whole(t, "warmup", s.timing.warmup, twhere, 0, 100);
  s.timing.min_samples = whole(t, "min_samples", s.timing.min_samples, twhere, 1, 1000);
  s.timing.max_samples = whole(t, "max_samples", s.timing.max_samples, twhere, 1, 1000);
  if (s.timing.max_samples < s.timing.min_samples)
    throw InvalidArgument(twhere + "max_samples: " + std::to_string(s.timing.max_samples) + " is below min_samples " +
                          std::to_string(s.timing.min_samples));
  s.timing.target_spread = number(t, "target_spread", s.timing.target_spread, twhere, 0, 1, true);
  s.timing.time_cap_seconds = number(t, "time_cap_seconds", s.timing.time_cap_seconds, twhere, 0, huge, true);
  try {
    tuner::find_strategy(s.strategy);  // fail early on a misspelt name
  } catch (const InvalidArgument& e) {
    throw InvalidArgument(where + "strategy: " + e.what());
  }
  return s;
}

namespace {

using model::ModelParams;

// One key of a model file (`hetlu recommend --print-model-config` writes them all, --model-config
// reads them): its section ("a.b" nests), the ModelParams field it sets (in the file's unit) and its
// bounds. The values and why they are what they are: model/params.hpp, their one place.
struct ModelKey {
  const char* section;
  const char* key;
  std::variant<double ModelParams::*, int ModelParams::*, std::vector<int> ModelParams::*> field;
  double low, high;
};

constexpr const char* network_section = "distributed.network_default";
constexpr std::size_t most_candidates = 64;  // widths in a list of nb_candidates

const ModelKey model_keys[] = {
    {"efficiency", "cpu", &ModelParams::cpu_efficiency, tiny, 1},
    {"efficiency", "device", &ModelParams::device_efficiency, tiny, 1},
    {"gemm_half_rate_k", "cpu", &ModelParams::gemm_half_rate_k, 0, largest_order},
    {"gemm_half_rate_k", "device", &ModelParams::device_gemm_half_rate_k, 0, largest_order},
    {"panel", "cpu_efficiency", &ModelParams::panel_efficiency, tiny, 1},
    {"panel", "tslu_efficiency", &ModelParams::tslu_efficiency, tiny, 1},
    {"panel", "device_efficiency", &ModelParams::device_panel_efficiency, tiny, 1},
    {"", "device_triangular_solve_row_us", &ModelParams::device_triangular_solve_row_us, 0, 1e6},
    {"panel", "device_column_latency_us", &ModelParams::device_panel_column_latency_us, 0, 1e6},
    {"panel", "device_lu_gemm_efficiency", &ModelParams::device_lu_gemm_efficiency, tiny, 1},
    {"panel", "device_lu_column_latency_us", &ModelParams::device_lu_column_latency_us, 0, 1e6},
    {"panel", "genp_speedup", &ModelParams::genp_panel_speedup, tiny, 100},
    {"panel", "leaf_width", &ModelParams::panel_leaf_width, 1, 4096},
    {"", "prbt_refinement_steps", &ModelParams::prbt_refinement_steps, 0, 100},
    {"", "prbt_condition_solves", &ModelParams::prbt_condition_solves, 0, 100},
    {"", "mixed_refinement_steps", &ModelParams::mixed_refinement_steps, 0, 100},
    {"", "prbt_mixed_refinement_steps", &ModelParams::prbt_mixed_refinement_steps, 0, 100},
    {"", "step_overhead_seconds", &ModelParams::step_overhead_seconds, 0, 1},
    {"", "tf32_gemm_speedup", &ModelParams::tf32_gemm_speedup, 1, 1000},  // never below FP32
    {"", "device_interchange_bytes", &ModelParams::device_interchange_bytes, 0, 1e6},
    {"link_default", "bandwidth_gbs", &ModelParams::default_link_gbs, tiny, huge},
    {"link_default", "latency_us", &ModelParams::default_link_latency_us, 0, 1e6},
    {"", "device_memory_default_gbs", &ModelParams::default_device_memory_gbs, tiny, huge},
    {"", "device_memory_usable_share", &ModelParams::usable_device_memory_share, tiny, 1},
    {"", "host_memory_default_gbs", &ModelParams::default_host_memory_gbs, tiny, huge},
    {"", "host_memory_default_gbs_per_core", &ModelParams::default_host_memory_gbs_per_core, 0, huge},
    {"", "host_memory_default_gbs_per_package", &ModelParams::default_host_memory_gbs_per_package, 0, huge},
    {"", "datasheet_bandwidth_efficiency", &ModelParams::datasheet_bandwidth_efficiency, tiny, 1},
    {"", "nb_candidates", &ModelParams::nb_candidates, 1, largest_order},
    {network_section, "latency_us", &ModelParams::network_latency_us, 0, 1e6},
    {network_section, "bandwidth_gbs", &ModelParams::network_bandwidth_gbs, tiny, huge},
    {network_section, "node_latency_us", &ModelParams::node_latency_us, 0, 1e6},
    {network_section, "node_bandwidth_gbs", &ModelParams::node_bandwidth_gbs, tiny, huge},
    {"distributed", "oversubscribed_slowdown", &ModelParams::oversubscribed_slowdown, 1, 1e6},
    {"distributed", "oversubscribed_passive_slowdown", &ModelParams::oversubscribed_passive_slowdown, 1, 1e6},
    {"distributed", "panel_efficiency", &ModelParams::distributed_panel_efficiency, tiny, 1},
    {"distributed", "nb_candidates", &ModelParams::distributed_nb_candidates, 1, largest_order},
};

// The names directly under `section` ("" is the top): its keys and its subsections, once each.
std::vector<std::string> names_under(const std::string& section) {
  std::vector<std::string> names;
  auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  const std::string prefix = section.empty() ? "" : section + ".";
  for (const ModelKey& k : model_keys) {
    const std::string full = k.section;
    if (full == section)
      add(k.key);
    else if (full.compare(0, prefix.size(), prefix) == 0)
      add(full.substr(prefix.size(), full.find('.', prefix.size()) - prefix.size()));
  }
  return names;
}

// The sections a key's section nests in, outermost first ("a.b": a, b; "": none).
std::vector<std::string> section_names(const std::string& section) {
  std::vector<std::string> names;
  for (std::size_t start = 0; start < section.size();) {
    const std::size_t dot = std::min(section.find('.', start), section.size());
    names.push_back(section.substr(start, dot - start));
    start = dot + 1;
  }
  return names;
}

std::string where_of(const std::string& top, const std::string& section) {
  return top + (section.empty() ? "" : section + ".");
}

// Every section of model_keys, checked for unknown keys ("" first); returns the node of each.
std::map<std::string, YAML::Node> model_sections(const YAML::Node& root, const std::string& top) {
  std::map<std::string, YAML::Node> nodes{{"", root}};
  for (const ModelKey& k : model_keys) {
    std::string path;
    for (const std::string& name : section_names(k.section)) {
      const std::string parent = path;
      path += (path.empty() ? "" : ".") + name;
      if (nodes.count(path)) continue;
      const YAML::Node above = nodes.at(parent);
      // emplace, not operator[] and =: assigning a YAML::Node writes into the node (an absent
      // section's throws), where a map entry must be a handle of its own.
      nodes.emplace(path, above ? section(above, name.c_str(), where_of(top, parent)) : YAML::Node());
    }
  }
  for (const auto& [path, node] : nodes) refuse_unknown_keys(node, names_under(path), where_of(top, path));
  return nodes;
}

// k's value in `node` (its section), over `params`; every value checked against k's bounds.
void read_key(const YAML::Node& node, const ModelKey& k, const std::string& where, ModelParams& params) {
  std::visit(
      [&](auto member) {
        auto& field = params.*member;
        using Field = std::decay_t<decltype(field)>;
        if constexpr (std::is_same_v<Field, double>)
          field = number(node, k.key, field, where, k.low, k.high);
        else if constexpr (std::is_same_v<Field, int>)
          field = whole(node, k.key, field, where, static_cast<int>(k.low), static_cast<int>(k.high));
        else {
          field = wholes(node, k.key, field, where, static_cast<int>(k.low), static_cast<int>(k.high));
          if (field.empty()) throw InvalidArgument(where + k.key + ": is empty");
          // The model prices every candidate (and takes the last as the one-panel width): a few
          // dozen widths, ascending; 2000 repeats of 1 took 28 s.
          if (field.size() > most_candidates)
            throw InvalidArgument(where + k.key + ": " + std::to_string(field.size()) + " widths (at most " +
                                  std::to_string(most_candidates) + ")");
          if (std::adjacent_find(field.begin(), field.end(), std::greater_equal<int>()) != field.end())
            throw InvalidArgument(where + k.key + ": must be ascending, each width once");
        }
      },
      k.field);
}

// The model file's key of a field.
const char* key_of(double ModelParams::*field) {
  for (const ModelKey& k : model_keys)
    if (const auto* member = std::get_if<double ModelParams::*>(&k.field); member && *member == field) return k.key;
  throw std::logic_error("configs: a ModelParams field without a key");
}

// The machine file's network section over params' defaults: the model's network keys, checked the same.
ModelParams network_of(const YAML::Node& root, const std::string& yaml_path, ModelParams params) {
  const std::string where = yaml_path + ": network.";
  const YAML::Node net = section(root, "network", yaml_path + ": ");
  refuse_unknown_keys(net, names_under(network_section), where);
  for (const ModelKey& k : model_keys)
    if (std::string(k.section) == network_section) read_key(net, k, where, params);
  return params;
}

}  // namespace

model::ModelParams model_params(const std::string& yaml_path) {
  if (yaml_path.empty()) return ModelParams{};
  const YAML::Node root = load(yaml_path, "", yaml_path);
  const std::string top = yaml_path + ": ";
  const YAML::Node panel = root["panel"];
  if (panel && panel.IsMap() && panel["device_lu_efficiency"])  // a model file from before 2026-11-27
    throw InvalidArgument(top +
                          "panel.device_lu_efficiency: renamed device_lu_gemm_efficiency, whose meaning "
                          "changed: the vendor's LU is now its updates at that share of the device GEMM plus "
                          "device_lu_column_latency_us a column");
  const auto sections = model_sections(root, top);
  ModelParams params;
  for (const ModelKey& k : model_keys) read_key(sections.at(k.section), k, where_of(top, k.section), params);
  // Threads that sleep or back off while they wait never cost more than spinning ones: a file that
  // said so made the model prefer spinning ranks.
  if (params.oversubscribed_passive_slowdown > params.oversubscribed_slowdown)
    throw InvalidArgument(
        top + "distributed.oversubscribed_passive_slowdown: " + shown(params.oversubscribed_passive_slowdown) +
        " is above distributed.oversubscribed_slowdown (" + shown(params.oversubscribed_slowdown) +
        "): idle threads that back off cost at most "
        "what spinning ones do");
  return params;
}

std::string model_params_yaml(const model::ModelParams& params) {
  YAML::Node root(YAML::NodeType::Map);
  for (const ModelKey& k : model_keys) {
    std::vector<YAML::Node> path{root};  // yaml-cpp's nodes are handles: a child written is in root
    for (const std::string& name : section_names(k.section)) path.push_back(path.back()[name]);
    std::visit(
        [&](auto member) {
          const auto& field = params.*member;
          using Field = std::decay_t<decltype(field)>;
          if constexpr (std::is_same_v<Field, double>)
            path.back()[k.key] = shortest(field);  // a Node would hold 17 digits: 0.80000000000000004
          else if constexpr (std::is_same_v<Field, int>)
            path.back()[k.key] = field;
          else {
            YAML::Node list(field);
            list.SetStyle(YAML::EmitterStyle::Flow);
            path.back()[k.key] = list;
          }
        },
        k.field);
  }
  YAML::Emitter out;
  out << YAML::Comment(
             "hetlu's model constants (model/params.hpp says what each does and why). Edit and pass to\n"
             "`hetlu recommend --machine FILE --model-config THIS`; a key left out keeps its built-in value.")
      << YAML::Newline << root;
  return std::string(out.c_str()) + "\n";
}

// Rates no machine has, refused rather than priced (a file with one core's DGEMM at 1000 GFlop/s and
// all cores' at 1 was predicted an LU at 1963 GFlop/s, with exit 0): one core clearly faster than
// all of them, or a measured rate far above the datasheet peak the file gives. The bounds catch unit
// mistakes (GFlop/s for TFlop/s), not turbo: one core's turbo reaches 3-4x a low base clock times
// its flops per cycle, all cores' less, and a GPU's tensor-core DGEMM twice its plain FP64 peak.
constexpr double one_core_above_peak = 8, all_cores_above_peak = 4, device_above_peak = 4;

void refuse_contradictory_rates(const MachineProfile& p, const std::string& where) {
  if (p.cores > 1 && p.dgemm_gflops_one_core > 0 && p.dgemm_gflops_all_cores > 0 &&
      p.dgemm_gflops_one_core > 1.1 * p.dgemm_gflops_all_cores)
    throw InvalidArgument(where + "dgemm_gflops_one_core: " + shortest(p.dgemm_gflops_one_core) +
                          " GFlop/s is above dgemm_gflops_all_cores, " + shortest(p.dgemm_gflops_all_cores) +
                          ": one core cannot outrun all of them");
  const double peak = p.peak_gflops_per_core * p.cores;
  if (peak > 0 && p.dgemm_gflops_all_cores > all_cores_above_peak * peak)
    throw InvalidArgument(where + "dgemm_gflops_all_cores: " + shortest(p.dgemm_gflops_all_cores) +
                          " GFlop/s is above " + shortest(all_cores_above_peak) + " times the peak the file gives (" +
                          shortest(peak) + " for all cores): a unit mistake?");
  if (p.peak_gflops_per_core > 0 && p.dgemm_gflops_one_core > one_core_above_peak * p.peak_gflops_per_core)
    throw InvalidArgument(where + "dgemm_gflops_one_core: " + shortest(p.dgemm_gflops_one_core) + " GFlop/s is above " +
                          shortest(one_core_above_peak) + " times the peak the file gives (" +
                          shortest(p.peak_gflops_per_core) + " for one core): a unit mistake?");
}

MachineProfile machine_from_yaml(const std::string& yaml_path) {
  if (yaml_path.empty()) throw InvalidArgument("the machine file's path is empty");
  const YAML::Node root = load(yaml_path, "", yaml_path);
  const std::string top = yaml_path + ": ";
  refuse_unknown_keys(root, {"name", "cpu", "devices", "network"}, top);
  // Checked whether or not this command reads it (only --ranks does): a bad key is a bad file.
  network_of(root, yaml_path, ModelParams{});
  const YAML::Node cpu = section(root, "cpu", top);
  if (!cpu) throw InvalidArgument(top + "no 'cpu' section");
  const std::string where = top + "cpu.";
  refuse_unknown_keys(
      cpu,
      {"model", "packages", "cores", "hardware_threads", "numa_nodes", "frequency_ghz", "flops_per_cycle",
       "peak_gflops", "dgemm_gflops_all_cores", "dgemm_gflops_one_core", "memory_bandwidth_gbs", "memory_gb"},
      where);
  MachineProfile p;
  p.cpu_model = name_text(cpu, "model", name_text(root, "name", "what-if machine", top), where);
  p.hostname = "what-if";
  if (!cpu["cores"]) throw InvalidArgument(where + "cores: missing (the number of CPU cores)");
  constexpr int most_cores = 1 << 20;
  p.cores = whole(cpu, "cores", 0, where, 1, most_cores);
  p.packages = whole(cpu, "packages", 1, where, 1, p.cores);
  p.hardware_threads = whole(cpu, "hardware_threads", p.cores, where, p.cores, most_cores);
  p.numa_nodes = whole(cpu, "numa_nodes", p.packages, where, 1, p.cores);
  // Rates: absent means "not given" (0); given, they must be positive.
  p.frequency_ghz = number(cpu, "frequency_ghz", 0.0, where, tiny, 100);
  p.flops_per_cycle = whole(cpu, "flops_per_cycle", 0, where, 1, 1024);
  p.peak_gflops_per_core = p.frequency_ghz * p.flops_per_cycle;
  if (cpu["peak_gflops"]) p.peak_gflops_per_core = number(cpu, "peak_gflops", 0.0, where, tiny, huge) / p.cores;
  p.dgemm_gflops_all_cores = number(cpu, "dgemm_gflops_all_cores", 0.0, where, tiny, huge);
  p.dgemm_gflops_one_core = number(cpu, "dgemm_gflops_one_core", 0.0, where, tiny, huge);
  p.memory_bandwidth_gbs = number(cpu, "memory_bandwidth_gbs", 0.0, where, tiny, huge);
  // The node's memory, for the distributed model's check (absent: not known). At least a megabyte,
  // as a device's: less truncated to 0 bytes, which reads as "not known".
  p.memory_bytes = static_cast<long long>(number(cpu, "memory_gb", 0.0, where, 1e-3, 1e9) * 1e9);
  p.rates_measured = p.dgemm_gflops_all_cores > 0;
  if (p.peak_gflops_per_core <= 0 && p.dgemm_gflops_all_cores <= 0)
    throw InvalidArgument(top + "cpu: give frequency_ghz and flops_per_cycle, peak_gflops, or dgemm_gflops_all_cores");
  refuse_contradictory_rates(p, where);
  if (const YAML::Node devices = root["devices"]) {
    if (!devices.IsSequence()) throw InvalidArgument(top + "devices: must be a list of devices");
    int index = 0;
    for (const auto& d : devices) {
      const std::string dwhere = top + "devices[" + std::to_string(index++) + "].";
      if (!d.IsMap()) throw InvalidArgument(dwhere + " must be a mapping of keys");
      refuse_unknown_keys(
          d,
          {"name", "dgemm_peak_gflops", "dgemm_gflops", "sgemm_peak_gflops", "sgemm_gflops", "dgetrf_gflops",
           "sgetrf_gflops", "tf32_gemm_gflops", "memory_gb", "link_gbs", "latency_us", "memory_gbs"},
          dwhere);
      GpuInfo g;
      g.name = name_text(d, "name", "device", dwhere);
      g.dgemm_peak_gflops = number(d, "dgemm_peak_gflops", 0.0, dwhere, tiny, huge);
      g.dgemm_gflops = number(d, "dgemm_gflops", 0.0, dwhere, tiny, huge);
      g.sgemm_peak_gflops = number(d, "sgemm_peak_gflops", 0.0, dwhere, tiny, huge);
      g.sgemm_gflops = number(d, "sgemm_gflops", 0.0, dwhere, tiny, huge);
      g.dgetrf_gflops = number(d, "dgetrf_gflops", 0.0, dwhere, tiny, huge);
      g.sgetrf_gflops = number(d, "sgetrf_gflops", 0.0, dwhere, tiny, huge);
      g.tf32_gemm_gflops = number(d, "tf32_gemm_gflops", 0.0, dwhere, tiny, huge);
      // At least a megabyte: below a byte it truncated to 0, which reads as "capacity not known".
      g.memory_bytes = static_cast<long long>(number(d, "memory_gb", 0.0, dwhere, 1e-3, 1e6) * 1e9);
      g.h2d_bandwidth_gbs = g.d2h_bandwidth_gbs = number(d, "link_gbs", 0.0, dwhere, tiny, huge);
      // Above 0: a latency of 0 is what a profile says of an unmeasured link (the model took 10 us).
      g.h2d_latency_us = g.d2h_latency_us = number(d, "latency_us", 0.0, dwhere, 0, 1e6, true);
      g.memory_bandwidth_gbs = number(d, "memory_gbs", 0.0, dwhere, tiny, huge);
      if (g.dgemm_peak_gflops <= 0 && g.dgemm_gflops <= 0)
        throw InvalidArgument(top + "devices[" + std::to_string(index - 1) +
                              "]: give dgemm_peak_gflops or dgemm_gflops");
      for (const auto& [measured, peak, name] : {std::tuple{g.dgemm_gflops, g.dgemm_peak_gflops, "dgemm_gflops"},
                                                 std::tuple{g.sgemm_gflops, g.sgemm_peak_gflops, "sgemm_gflops"}})
        if (peak > 0 && measured > device_above_peak * peak)  // tensor cores double FP64; TF32 has its own key
          throw InvalidArgument(dwhere + name + ": " + shortest(measured) + " GFlop/s is above " +
                                shortest(device_above_peak) + " times the device's peak (" + shortest(peak) +
                                "): a unit mistake? (a TF32 rate goes under tf32_gemm_gflops)");
      p.gpus.push_back(g);
    }
  }
  return p;
}

MachineNetwork with_machine_network(const std::string& yaml_path, model::ModelParams params, bool one_node) {
  const YAML::Node root = load(yaml_path, "", yaml_path);
  MachineNetwork out{network_of(root, yaml_path, params), ""};
  const YAML::Node net = section(root, "network", yaml_path + ": ");
  const char* latency = key_of(one_node ? &ModelParams::node_latency_us : &ModelParams::network_latency_us);
  const char* bandwidth = key_of(one_node ? &ModelParams::node_bandwidth_gbs : &ModelParams::network_bandwidth_gbs);
  const int given = (net && net[latency] ? 1 : 0) + (net && net[bandwidth] ? 1 : 0);
  const std::string where = (one_node ? "one node of " : "between nodes of ") + yaml_path;
  const std::string defaults = std::string("the model's defaults for ") + (one_node ? "one node" : "several nodes");
  out.source = given == 2 ? where
               : given == 0
                   ? defaults + ": " + yaml_path + " gives no network." + latency + " or ." + bandwidth
                   : where + ", and " + defaults + " for its missing network." + (net[latency] ? bandwidth : latency);
  return out;
}

}  // namespace hetlu::configs
