#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "db/records.hpp"

namespace hetlu::db {
namespace {

std::string fnv1a_hex(const std::string& text) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  char buffer[17];
  std::snprintf(buffer, sizeof buffer, "%016llx", static_cast<unsigned long long>(hash));
  return buffer;
}

// A hard key's fields in fingerprint()'s order, and each GPU's.
constexpr const char* hard_key_fields[] = {"cpu_model",  "packages", "cores", "hardware_threads",
                                           "numa_nodes", "gpus",     "blas"};
constexpr const char* gpu_fields[] = {"name", "compute_capability", "multiprocessors", "memory_bytes"};

// value's fields in this order, or null where it has others (or lacks one).
template <std::size_t N>
nlohmann::ordered_json in_order(const nlohmann::json& value, const char* const (&fields)[N]) {
  if (!value.is_object() || value.size() != N) return nullptr;
  nlohmann::ordered_json ordered = nlohmann::ordered_json::object();
  for (const char* field : fields) {
    const auto it = value.find(field);
    if (it == value.end()) return nullptr;
    ordered[field] = *it;
  }
  return ordered;
}
}  // namespace

Fingerprint fingerprint(const MachineProfile& profile) {
  nlohmann::ordered_json gpus = nlohmann::json::array();
  for (const auto& g : profile.gpus)
    gpus.push_back({{"name", g.name},
                    {"compute_capability",
                     std::to_string(g.compute_capability_major) + "." + std::to_string(g.compute_capability_minor)},
                    {"multiprocessors", g.multiprocessors},
                    {"memory_bytes", g.memory_bytes}});
  nlohmann::ordered_json hard = {{"cpu_model", profile.cpu_model},   {"packages", profile.packages},
                                 {"cores", profile.cores},           {"hardware_threads", profile.hardware_threads},
                                 {"numa_nodes", profile.numa_nodes}, {"gpus", gpus},
                                 {"blas", profile.blas_library}};
  nlohmann::ordered_json soft = {{"hostname", profile.hostname}, {"hetlu_version", HETLU_VERSION}};
  Fingerprint fp;
  fp.hard_key = hard.dump();
  fp.soft_attributes = soft.dump();
  fp.hash = fnv1a_hex(fp.hard_key);
  return fp;
}

std::string fingerprint_of_hard_key(const std::string& hard_key) {
  const auto parsed = nlohmann::json::parse(hard_key, nullptr, false);
  if (parsed.is_discarded()) return "";
  auto ordered = in_order(parsed, hard_key_fields);
  if (ordered.is_null() || !ordered["gpus"].is_array()) return "";
  for (auto& gpu : ordered["gpus"]) {
    gpu = in_order(gpu, gpu_fields);
    if (gpu.is_null()) return "";
  }
  return fnv1a_hex(ordered.dump());
}

}  // namespace hetlu::db
