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

}  // namespace hetlu::db
