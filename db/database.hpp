// A connection to hetlu's SQLite database, with the schema created or migrated on open.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "hetlu/types.hpp"

struct sqlite3;
struct sqlite3_stmt;

namespace hetlu::db {

// Anything wrong with the database file: unreadable, unwritable, corrupt, too new.
struct DatabaseError : Error {
  using Error::Error;
};

// The database is locked by another process past the busy timeout (5 s; 30 s of retries for exec).
struct DatabaseBusy : DatabaseError {
  using DatabaseError::DatabaseError;
};

// SQLite's quick check found the file damaged: it is read, never written into.
struct DatabaseDamaged : DatabaseError {
  DatabaseDamaged(const std::string& message, std::string found) : DatabaseError(message), finding(std::move(found)) {}
  std::string finding;  // what the check said
};

// The schema version this build writes (PRAGMA user_version).
inline constexpr int schema_version = 6;

// $HETLU_DB, else $XDG_DATA_HOME/hetlu/tuning.db, else ~/.local/share/hetlu/tuning.db.
std::string default_path();

// The database a caller names, or the default where it names none (an empty path).
inline std::string path_or_default(const std::string& path) {
  return path.empty() ? default_path() : path;
}

class Statement;

class Database {
 public:
  enum class Mode { read_only, read_write };

  // read_write creates the file (and its folder) and brings the schema up to date; read_only
  // requires an existing database of a schema this build knows.
  static Database open(const std::string& path, Mode mode);

  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;
  ~Database();

  const std::string& path() const { return path_; }
  int user_version();
  void exec(const std::string& sql);
  Statement prepare(const std::string& sql);
  std::int64_t last_insert_id();
  std::int64_t changes();  // rows changed by the last statement
  // The whole database written to a new file at `target` (SQLite's VACUUM INTO; read-only storage
  // too): a copy that readers may change or hand on.
  void copy_to(const std::string& target);

  // Runs body inside one transaction: commits when it returns, rolls back when it throws.
  // Nested calls become savepoints inside the outer transaction.
  template <class Body>
  void transaction(Body&& body) {
    const bool nested = in_transaction();
    exec(nested ? "SAVEPOINT nested" : "BEGIN IMMEDIATE");
    try {
      body();
    } catch (...) {
      exec(nested ? "ROLLBACK TO nested; RELEASE nested" : "ROLLBACK");
      throw;
    }
    exec(nested ? "RELEASE nested" : "COMMIT");
  }
  bool in_transaction();

  [[noreturn]] void fail(const std::string& what);

 private:
  Database(sqlite3* handle, std::string path) : handle_(handle), path_(std::move(path)) {}
  void migrate();

  sqlite3* handle_ = nullptr;
  std::string path_;
};

// A prepared statement; bind is 1-based, column is 0-based, as in SQLite.
class Statement {
 public:
  Statement(Database& db, sqlite3_stmt* stmt) : db_(&db), stmt_(stmt) {}
  Statement(Statement&& other) noexcept : db_(other.db_), stmt_(other.stmt_) { other.stmt_ = nullptr; }
  Statement(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, const std::string& value);
  Statement& bind(int index, const char* value) { return bind(index, std::string(value)); }
  Statement& bind_null(int index);
  Statement& bind(int index, std::optional<double> value) { return value ? bind(index, *value) : bind_null(index); }
  Statement& bind(int index, std::optional<std::int64_t> value) {
    return value ? bind(index, *value) : bind_null(index);
  }

  bool step();  // true while a row is available
  void run() {
    while (step()) {
    }
  }

  std::int64_t column_int(int index);
  // Column `index` as an int in [lo, hi]; anything else (a REAL 1e300 or 64.5, text, a value out of
  // range, all of which hand edits and imports can store) throws DatabaseError naming `name`.
  int column_int_within(int index, const char* name, long long lo, long long hi);
  double column_double(int index);
  std::optional<double> column_optional_double(int index);
  std::string column_text(int index);
  int column_count();
  std::string column_name(int index);
  bool column_is_null(int index);
  bool column_is_integer(int index);
  bool column_is_real(int index);

 private:
  Database* db_;
  sqlite3_stmt* stmt_;
};

}  // namespace hetlu::db
