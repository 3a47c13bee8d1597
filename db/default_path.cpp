#include <cstdlib>

#include "db/database.hpp"

namespace hetlu::db {

std::string default_path() {
  auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v ? v : "";
  };
  if (auto p = env("HETLU_DB"); !p.empty()) return p;
  // The XDG Base Directory spec: a relative XDG_DATA_HOME is invalid and ignored.
  if (auto p = env("XDG_DATA_HOME"); !p.empty() && p.front() == '/') return p + "/hetlu/tuning.db";
  if (auto p = env("HOME"); !p.empty()) return p + "/.local/share/hetlu/tuning.db";
  throw DatabaseError("cannot find a default database path: set HETLU_DB or HOME, or pass --db");
}

}  // namespace hetlu::db
