#include "db/database.hpp"

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <filesystem>
#include <thread>

#include "hetlu/detail/stopwatch.hpp"

namespace hetlu::db {
namespace {

// Each entry brings the schema from version i to i + 1. Never edit a released entry: append.
const char* const migrations[] = {
    R"sql(
CREATE TABLE machines (
  id               INTEGER PRIMARY KEY,
  fingerprint      TEXT NOT NULL UNIQUE,  -- hash of hard_key
  hard_key         TEXT NOT NULL,         -- JSON: what decides whether rows apply
  soft_attributes  TEXT NOT NULL,         -- JSON: hostname, hetlu version; a change marks rows stale
  first_seen       TEXT NOT NULL DEFAULT (datetime('now')),
  last_seen        TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE probe_results (
  id          INTEGER PRIMARY KEY,
  machine_id  INTEGER NOT NULL REFERENCES machines(id),
  name        TEXT NOT NULL,
  value       REAL NOT NULL,
  unit        TEXT NOT NULL,
  detail      TEXT NOT NULL DEFAULT '',
  measured_at TEXT NOT NULL DEFAULT (datetime('now'))
);
CREATE TABLE trials (
  id                INTEGER PRIMARY KEY,
  machine_id        INTEGER NOT NULL REFERENCES machines(id),
  level             TEXT NOT NULL,
  solver            TEXT NOT NULL,
  precision         TEXT NOT NULL,
  target            TEXT NOT NULL,
  m                 INTEGER NOT NULL,
  n                 INTEGER NOT NULL,
  nb                INTEGER NOT NULL,
  ib                INTEGER NOT NULL,
  cpu_block_columns INTEGER NOT NULL,
  panel_threads     INTEGER NOT NULL,
  lookahead         INTEGER NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('ok', 'noisy', 'failed')),
  error             TEXT NOT NULL DEFAULT '',
  repetitions       INTEGER NOT NULL DEFAULT 0,
  median_s          REAL,
  min_s             REAL,
  spread            REAL,     -- median absolute deviation / median
  gflops            REAL,
  predicted_s       REAL,     -- the model's prediction for this configuration
  samples           TEXT NOT NULL DEFAULT '[]',  -- JSON array of every timed sample, seconds
  measured_at       TEXT NOT NULL DEFAULT (datetime('now')),
  UNIQUE (machine_id, level, solver, precision, target, m, n, nb, ib, cpu_block_columns,
          panel_threads, lookahead)
);
CREATE TABLE best_plans (
  machine_id        INTEGER NOT NULL REFERENCES machines(id),
  solver            TEXT NOT NULL,
  precision         TEXT NOT NULL,
  target            TEXT NOT NULL,
  m                 INTEGER NOT NULL,
  n                 INTEGER NOT NULL,
  level             TEXT NOT NULL,
  nb                INTEGER NOT NULL,
  ib                INTEGER NOT NULL,
  cpu_block_columns INTEGER NOT NULL,
  panel_threads     INTEGER NOT NULL,
  lookahead         INTEGER NOT NULL,
  median_s          REAL NOT NULL,
  gflops            REAL NOT NULL,
  predicted_s       REAL,
  trial_id          INTEGER REFERENCES trials(id),
  updated_at        TEXT NOT NULL DEFAULT (datetime('now')),
  PRIMARY KEY (machine_id, solver, precision, target, m, n)
);
)sql",
    // 2: probe results keep their spread (MAD / median), as the tuning trials do, and which probe
    // run they belong to, so that a model reads one consistent run.
    R"sql(
ALTER TABLE probe_results ADD COLUMN spread REAL NOT NULL DEFAULT 0;
ALTER TABLE probe_results ADD COLUMN run INTEGER NOT NULL DEFAULT 0;
)sql",
    // 3: hybrid trials and plans say which backend ran the device's part (host or cuda; '' for the
    // CPU target), and it is part of their keys: the tuned d of a GPU is not the host backend's.
    // SQLite cannot change a key in place: both tables are rebuilt, best_plans' reference to
    // trials following the rename.
    R"sql(
CREATE TABLE trials_v3 (
  id                INTEGER PRIMARY KEY,
  machine_id        INTEGER NOT NULL REFERENCES machines(id),
  level             TEXT NOT NULL,
  solver            TEXT NOT NULL,
  precision         TEXT NOT NULL,
  target            TEXT NOT NULL,
  backend           TEXT NOT NULL DEFAULT '',
  m                 INTEGER NOT NULL,
  n                 INTEGER NOT NULL,
  nb                INTEGER NOT NULL,
  ib                INTEGER NOT NULL,
  cpu_block_columns INTEGER NOT NULL,
  panel_threads     INTEGER NOT NULL,
  lookahead         INTEGER NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('ok', 'noisy', 'failed')),
  error             TEXT NOT NULL DEFAULT '',
  repetitions       INTEGER NOT NULL DEFAULT 0,
  median_s          REAL,
  min_s             REAL,
  spread            REAL,
  gflops            REAL,
  predicted_s       REAL,
  samples           TEXT NOT NULL DEFAULT '[]',
  measured_at       TEXT NOT NULL DEFAULT (datetime('now')),
  UNIQUE (machine_id, level, solver, precision, target, backend, m, n, nb, ib, cpu_block_columns,
          panel_threads, lookahead)
);
INSERT INTO trials_v3 (id, machine_id, level, solver, precision, target, backend, m, n, nb, ib,
  cpu_block_columns, panel_threads, lookahead, status, error, repetitions, median_s, min_s, spread,
  gflops, predicted_s, samples, measured_at)
SELECT id, machine_id, level, solver, precision, target, CASE target WHEN 'hybrid' THEN 'host' ELSE '' END,
  m, n, nb, ib, cpu_block_columns, panel_threads, lookahead, status, error, repetitions, median_s,
  min_s, spread, gflops, predicted_s, samples, measured_at FROM trials;
CREATE TABLE best_plans_v3 (
  machine_id        INTEGER NOT NULL REFERENCES machines(id),
  solver            TEXT NOT NULL,
  precision         TEXT NOT NULL,
  target            TEXT NOT NULL,
  backend           TEXT NOT NULL DEFAULT '',
  m                 INTEGER NOT NULL,
  n                 INTEGER NOT NULL,
  level             TEXT NOT NULL,
  nb                INTEGER NOT NULL,
  ib                INTEGER NOT NULL,
  cpu_block_columns INTEGER NOT NULL,
  panel_threads     INTEGER NOT NULL,
  lookahead         INTEGER NOT NULL,
  median_s          REAL NOT NULL,
  gflops            REAL NOT NULL,
  predicted_s       REAL,
  trial_id          INTEGER REFERENCES trials_v3(id),
  updated_at        TEXT NOT NULL DEFAULT (datetime('now')),
  PRIMARY KEY (machine_id, solver, precision, target, backend, m, n)
);
INSERT INTO best_plans_v3 (machine_id, solver, precision, target, backend, m, n, level, nb, ib,
  cpu_block_columns, panel_threads, lookahead, median_s, gflops, predicted_s, trial_id, updated_at)
SELECT machine_id, solver, precision, target, CASE target WHEN 'hybrid' THEN 'host' ELSE '' END, m, n,
  level, nb, ib, cpu_block_columns, panel_threads, lookahead, median_s, gflops, predicted_s, trial_id,
  updated_at FROM best_plans;
DROP TABLE best_plans;
DROP TABLE trials;
ALTER TABLE trials_v3 RENAME TO trials;
ALTER TABLE best_plans_v3 RENAME TO best_plans;
)sql",
    // 4: a trial that failed because of its environment (out of memory, no device) says which
    // environment, so that a calibration in another one measures it again instead of reusing it.
    R"sql(
ALTER TABLE trials ADD COLUMN environment TEXT NOT NULL DEFAULT '';
)sql",
    // 5: distributed solves (#18). The network between ranks as probed for one rank layout (rank
    // count, most ranks on one node), and every timed p?gesv configuration (nb, P x Q, BLAS threads
    // per rank) of a layout, failures included; the best of a layout and size is the least median.
    R"sql(
CREATE TABLE IF NOT EXISTS network_probes (
  machine_id               INTEGER NOT NULL REFERENCES machines(id),
  ranks                    INTEGER NOT NULL,
  ranks_per_node           INTEGER NOT NULL,
  latency_s                REAL NOT NULL,
  bandwidth_bps            REAL NOT NULL,
  broadcast_latency_s      REAL NOT NULL,
  broadcast_bandwidth_bps  REAL NOT NULL,
  measured_at              TEXT NOT NULL DEFAULT (datetime('now')),
  PRIMARY KEY (machine_id, ranks, ranks_per_node)
);
CREATE TABLE IF NOT EXISTS distributed_trials (
  id                INTEGER PRIMARY KEY,
  machine_id        INTEGER NOT NULL REFERENCES machines(id),
  precision         TEXT NOT NULL,
  ranks             INTEGER NOT NULL,
  ranks_per_node    INTEGER NOT NULL,
  n                 INTEGER NOT NULL,
  nb                INTEGER NOT NULL,
  grid_rows         INTEGER NOT NULL,
  grid_cols         INTEGER NOT NULL,
  threads_per_rank  INTEGER NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('ok', 'noisy', 'failed')),
  error             TEXT NOT NULL DEFAULT '',
  repetitions       INTEGER NOT NULL DEFAULT 0,
  median_s          REAL,
  predicted_s       REAL,
  samples           TEXT NOT NULL DEFAULT '[]',
  measured_at       TEXT NOT NULL DEFAULT (datetime('now')),
  UNIQUE (machine_id, precision, ranks, ranks_per_node, n, nb, grid_rows, grid_cols, threads_per_rank)
);
)sql",
    // 6: trials and best plans say on how many CPU threads their solves ran (the calling thread's
    // OpenMP threads, less the host teams'), and it is part of their keys: a plan tuned under
    // OMP_NUM_THREADS=1 had served every later solve on all the cores, and a calibration on all the
    // cores had replaced it. Rows from before keep 0, "not recorded". Both tables are rebuilt, as
    // in 3. Rows whose machine is gone, and plans whose trial is gone (hand edits: SQLite checks a
    // reference only on writes), go as a cascade would take them: they failed the migration, which
    // left the file unreadable to every command, and no look-up or export reaches them.
    R"sql(
CREATE TABLE trials_v6 (
  id                INTEGER PRIMARY KEY,
  machine_id        INTEGER NOT NULL REFERENCES machines(id),
  level             TEXT NOT NULL,
  solver            TEXT NOT NULL,
  precision         TEXT NOT NULL,
  target            TEXT NOT NULL,
  backend           TEXT NOT NULL DEFAULT '',
  cpu_threads       INTEGER NOT NULL DEFAULT 0,
  m                 INTEGER NOT NULL,
  n                 INTEGER NOT NULL,
  nb                INTEGER NOT NULL,
  ib                INTEGER NOT NULL,
  cpu_block_columns INTEGER NOT NULL,
  panel_threads     INTEGER NOT NULL,
  lookahead         INTEGER NOT NULL,
  status            TEXT NOT NULL CHECK (status IN ('ok', 'noisy', 'failed')),
  error             TEXT NOT NULL DEFAULT '',
  repetitions       INTEGER NOT NULL DEFAULT 0,
  median_s          REAL,
  min_s             REAL,
  spread            REAL,
  gflops            REAL,
  predicted_s       REAL,
  samples           TEXT NOT NULL DEFAULT '[]',
  measured_at       TEXT NOT NULL DEFAULT (datetime('now')),
  environment       TEXT NOT NULL DEFAULT '',
  UNIQUE (machine_id, level, solver, precision, target, backend, cpu_threads, m, n, nb, ib, cpu_block_columns,
          panel_threads, lookahead)
);
INSERT INTO trials_v6 (id, machine_id, level, solver, precision, target, backend, cpu_threads, m, n, nb, ib,
  cpu_block_columns, panel_threads, lookahead, status, error, repetitions, median_s, min_s, spread,
  gflops, predicted_s, samples, measured_at, environment)
SELECT id, machine_id, level, solver, precision, target, backend, 0, m, n, nb, ib, cpu_block_columns,
  panel_threads, lookahead, status, error, repetitions, median_s, min_s, spread, gflops, predicted_s, samples,
  measured_at, environment FROM trials WHERE machine_id IN (SELECT id FROM machines);
CREATE TABLE best_plans_v6 (
  machine_id        INTEGER NOT NULL REFERENCES machines(id),
  solver            TEXT NOT NULL,
  precision         TEXT NOT NULL,
  target            TEXT NOT NULL,
  backend           TEXT NOT NULL DEFAULT '',
  cpu_threads       INTEGER NOT NULL DEFAULT 0,
  m                 INTEGER NOT NULL,
  n                 INTEGER NOT NULL,
  level             TEXT NOT NULL,
  nb                INTEGER NOT NULL,
  ib                INTEGER NOT NULL,
  cpu_block_columns INTEGER NOT NULL,
  panel_threads     INTEGER NOT NULL,
  lookahead         INTEGER NOT NULL,
  median_s          REAL NOT NULL,
  gflops            REAL NOT NULL,
  predicted_s       REAL,
  trial_id          INTEGER REFERENCES trials_v6(id),
  updated_at        TEXT NOT NULL DEFAULT (datetime('now')),
  PRIMARY KEY (machine_id, solver, precision, target, backend, cpu_threads, m, n)
);
INSERT INTO best_plans_v6 (machine_id, solver, precision, target, backend, cpu_threads, m, n, level, nb, ib,
  cpu_block_columns, panel_threads, lookahead, median_s, gflops, predicted_s, trial_id, updated_at)
SELECT machine_id, solver, precision, target, backend, 0, m, n, level, nb, ib, cpu_block_columns, panel_threads,
  lookahead, median_s, gflops, predicted_s, trial_id, updated_at FROM best_plans
  WHERE machine_id IN (SELECT id FROM machines) AND (trial_id IS NULL OR trial_id IN (SELECT id FROM trials_v6));
DROP TABLE best_plans;
DROP TABLE trials;
ALTER TABLE trials_v6 RENAME TO trials;
ALTER TABLE best_plans_v6 RENAME TO best_plans;
)sql",
};
constexpr int migration_count = sizeof migrations / sizeof migrations[0];
static_assert(migration_count == schema_version);

// The file at `path` as an SQLite URI (with `query`, e.g. "immutable=1"): its absolute path with every
// byte but letters, digits, '/', '-', '.', '_' and '~' percent-encoded. Debian's SQLite reads URIs
// even without SQLITE_OPEN_URI: a relative path "file:x.db" did not open x.db, and in a URI a '%', '?'
// or '#' of the path read another file or none ("p%20q.db" read "p q.db", with exit 0).
std::string file_uri(const std::string& path, const char* query = nullptr) {
  std::string uri = "file://";  // then the path's leading '/': an empty authority
  for (unsigned char c : std::filesystem::absolute(path).string()) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' || c == '~') {
      uri += static_cast<char>(c);
    } else {
      static const char hex[] = "0123456789ABCDEF";
      uri += {'%', hex[c >> 4], hex[c & 15]};
    }
  }
  return query ? uri + "?" + query : uri;
}

}  // namespace

Database Database::open(const std::string& path, Mode mode) {
  if (path.empty()) throw DatabaseError("database path is empty");
  // A FIFO, socket or device is no database, and opening a FIFO blocks until a writer comes: never.
  std::error_code status_error;
  const auto status = std::filesystem::status(path, status_error);
  if (status_error && status_error != std::errc::no_such_file_or_directory)  // a loop of links, say
    throw DatabaseError("database '" + path + "': " + status_error.message());
  if (std::filesystem::is_directory(status)) throw DatabaseError("database '" + path + "' is a folder, not a file");
  if (!status_error && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw DatabaseError("database '" + path + "' is not a regular file");
  if (mode == Mode::read_write) {
    std::error_code ec;
    auto parent = std::filesystem::path(path).parent_path();
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) throw DatabaseError("cannot create the folder of database '" + path + "': " + ec.message());
    // SQLite writes its journal (-wal, -shm) beside the file: a writable file in a folder this user
    // cannot write failed as "attempt to write a readonly database", at the first read of a WAL
    // database whose -shm was not there yet, or at the first write. Said before SQLite opens it.
    const std::filesystem::path folder = std::filesystem::absolute(path).parent_path();
    if (::access(folder.c_str(), W_OK) != 0)
      throw DatabaseError("database '" + path + "' is in a folder this user cannot write ('" + folder.string() +
                          "'), where SQLite keeps its journal beside it");
  } else if (!std::filesystem::exists(status)) {
    throw DatabaseError("no database at '" + path + "' (run 'hetlu calibrate' first)");
  }
  sqlite3* handle = nullptr;
  int flags = mode == Mode::read_write ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
  int rc = sqlite3_open_v2(file_uri(path).c_str(), &handle, flags | SQLITE_OPEN_URI, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = handle ? sqlite3_errmsg(handle) : sqlite3_errstr(rc);
    sqlite3_close(handle);
    throw DatabaseError("cannot open database '" + path + "': " + message);
  }
  Database db(handle, path);
  sqlite3_busy_timeout(handle, 5000);
  // Reading user_version is the first access to the file: a non-database fails here. A WAL
  // database on read-only storage cannot get its shared-memory file: read it as immutable then
  // (nobody can be writing to read-only storage).
  int version = 0;
  try {
    version = db.user_version();
  } catch (const DatabaseError&) {
    // Only storage nobody can write calls for the immutable reading below: there, nobody can be
    // changing the file. A database another process has locked must not be read that way (it
    // would show stale or half-written rows): the caller hears it is busy.
    const auto folder = std::filesystem::path(path).parent_path();
    const bool read_only_storage = ::access(folder.empty() ? "." : folder.c_str(), W_OK) != 0;
    if (mode != Mode::read_only || !read_only_storage) throw;
    sqlite3* immutable = nullptr;
    const std::string uri = file_uri(path, "immutable=1");
    if (sqlite3_open_v2(uri.c_str(), &immutable, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
      sqlite3_close(immutable);
      throw;
    }
    db = Database(immutable, path);
    version = db.user_version();
    // Read immutably, SQLite ignores the -wal: rows committed there (a calibrate killed before its
    // checkpoint keeps them all there) would be missing without a word (a hostile helper's finding).
    std::error_code size_error;
    const auto wal_size = std::filesystem::file_size(path + "-wal", size_error);
    if (!size_error && wal_size > 0)
      throw DatabaseError("database '" + path +
                          "' is on storage this user cannot write, and rows committed to it are "
                          "still in '" +
                          path +
                          "-wal', which SQLite reads only where it can write: copy both files "
                          "to a writable folder and name the copy");
  }
  if (version > schema_version)
    throw DatabaseError("database '" + path + "' has schema version " + std::to_string(version) +
                        ", newer than this hetlu (" + std::to_string(schema_version) + ")");
  if (version < 0)
    throw DatabaseError("database '" + path + "' has schema version " + std::to_string(version) +
                        ", which no hetlu writes (a damaged or foreign file)");
  bool no_tables = false;  // an SQLite file with nothing in it (0 bytes, or a page of header)
  if (version == 0) {
    // hetlu's first migration creates its tables and sets version 1 in one transaction: tables at
    // version 0 are another program's. Said before anything touches the file (a read-only
    // command had added hetlu's tables to it and turned its journal to WAL). Both read in one
    // statement: another hetlu creating the schema between two reads is no foreign file.
    auto objects = db.prepare("SELECT (SELECT count(*) FROM sqlite_master), user_version FROM pragma_user_version");
    objects.step();
    if (objects.column_int(1) == 0 && objects.column_int(0) > 0)
      throw DatabaseError("database '" + path +
                          "' holds another program's tables (SQLite user_version 0): not a hetlu database; name "
                          "another file");
    no_tables = objects.column_int(0) == 0 && objects.column_int(1) == 0;
  }
  if (mode == Mode::read_write) {
    if (sqlite3_db_readonly(db.handle_, "main") == 1)  // SQLite opened a read-only file read-only
      throw DatabaseError("database '" + path + "' cannot be written (a read-only file or folder)");
    // A -wal or -shm file this user cannot write (left by another user who read the database in a
    // shared folder): SQLite would open the database read-only and fail at the first write with
    // "attempt to write a readonly database" (found by a hostile test). Named here instead.
    for (const char* suffix : {"-wal", "-shm"}) {
      const std::string side = path + suffix;
      struct stat st {};
      if (::stat(side.c_str(), &st) == 0 && ::access(side.c_str(), W_OK) != 0)
        throw DatabaseError("database '" + path + "': its file '" + side + "' belongs to user " +
                            std::to_string(st.st_uid) +
                            " and this user cannot write it: remove it (and the other of -wal and -shm) while no "
                            "hetlu process uses the database, or share the folder with a group that can write both");
    }
    // A damaged file (truncated, a flipped page) is not written into: calibrate added its rows to a
    // database db check called damaged, and recommend then read "tuned" from it (a hostile test).
    // SQLite's quick check reads every page once (milliseconds for a tuning database).
    if (version > 0) {
      auto check = db.prepare("PRAGMA quick_check(1)");
      if (check.step() && check.column_text(0) != "ok")
        throw DatabaseDamaged("database '" + path + "' is damaged (SQLite's quick_check: " + check.column_text(0) +
                                  "): nothing is written into it; 'hetlu db check' lists what, and moving the file "
                                  "aside lets hetlu start a new one",
                              check.column_text(0));
    }
    db.exec("PRAGMA journal_mode=WAL");
    db.exec("PRAGMA foreign_keys=ON");
    db.migrate();
  } else if (no_tables) {
    // An empty file is no database yet: reading it must not create the schema in it (db check had
    // written hetlu's tables into an SQLite file of one empty page and said "ok").
    throw DatabaseError("database '" + path + "' is empty (run 'hetlu calibrate' first)");
  } else if (version < schema_version) {
    // A newer hetlu reading an older database: migrate it when the file may be written, so that
    // an upgrade does not hide the tuned plans until the next calibration.
    if (::access(path.c_str(), W_OK) == 0) {
      { Database closed = std::move(db); }  // this read-only handle goes first
      try {
        open(path, Mode::read_write);
      } catch (const DatabaseDamaged& e) {  // not migrated, so not readable by this hetlu either
        throw DatabaseDamaged("database '" + path + "' has schema version " + std::to_string(version) +
                                  " and is damaged (SQLite's quick_check: " + e.finding +
                                  "), so this hetlu can neither migrate it to " + std::to_string(schema_version) +
                                  " nor read it: move the file aside (hetlu then starts a new one)",
                              e.finding);
      }
      return open(path, Mode::read_only);
    }
    throw DatabaseError("database '" + path + "' has schema version " + std::to_string(version) +
                        "; run 'hetlu calibrate' to migrate it to " + std::to_string(schema_version));
  }
  return db;
}

Database::Database(Database&& other) noexcept : handle_(other.handle_), path_(std::move(other.path_)) {
  other.handle_ = nullptr;
}
Database& Database::operator=(Database&& other) noexcept {
  std::swap(handle_, other.handle_);
  std::swap(path_, other.path_);
  return *this;
}
Database::~Database() {
  sqlite3_close_v2(handle_);
}

void Database::fail(const std::string& what) {
  const int code = sqlite3_errcode(handle_) & 0xff;
  const std::string text = "database '" + path_ + "': " + what + ": " + sqlite3_errmsg(handle_);
  if (code == SQLITE_BUSY || code == SQLITE_LOCKED) throw DatabaseBusy(text);
  throw DatabaseError(text);
}

int Database::user_version() {
  auto stmt = prepare("PRAGMA user_version");
  stmt.step();
  return static_cast<int>(stmt.column_int(0));
}

void Database::copy_to(const std::string& target) {
  prepare("VACUUM INTO ?1").bind(1, file_uri(target)).run();
}

void Database::exec(const std::string& sql) {
  // SQLite answers SQLITE_BUSY without calling the busy handler in some cases (switching to WAL
  // while another connection reads, a deadlock it avoids): back off and retry, so that two
  // calibrations on one database both finish; but for 30 s at most (each try may also wait out the
  // busy timeout): a database another process keeps locked is an error, not a silent hang.
  const detail::Stopwatch since_start;
  for (;;) {
    char* message = nullptr;
    const int rc = sqlite3_exec(handle_, sql.c_str(), nullptr, nullptr, &message);
    if (rc == SQLITE_OK) return;
    std::string text = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    const bool busy = (rc & 0xff) == SQLITE_BUSY || (rc & 0xff) == SQLITE_LOCKED;
    if (!busy) throw DatabaseError("database '" + path_ + "': " + text);
    if (since_start.seconds() > 30)
      throw DatabaseBusy("database '" + path_ + "' is locked by another process (waited 30 s): " + text);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
}

Statement Database::prepare(const std::string& sql) {
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(handle_, sql.c_str(), -1, &stmt, nullptr) != SQLITE_OK) fail("cannot prepare SQL");
  return Statement(*this, stmt);
}

std::int64_t Database::last_insert_id() {
  return sqlite3_last_insert_rowid(handle_);
}

bool Database::in_transaction() {
  return sqlite3_get_autocommit(handle_) == 0;
}

std::int64_t Database::changes() {
  return sqlite3_changes64(handle_);
}

void Database::migrate() {
  // One immediate transaction for all steps, the version read inside it: two processes opening a
  // new database at once take turns, and the second finds the schema already current.
  transaction([&] {
    for (int version = user_version(); version < schema_version; ++version) try {
        exec(migrations[version]);
        exec("PRAGMA user_version = " + std::to_string(version + 1));
      } catch (const DatabaseError& e) {  // rolled back whole: the file is as it was
        throw DatabaseError(std::string(e.what()) + ", migrating schema version " + std::to_string(version) + " to " +
                            std::to_string(schema_version) +
                            "; nothing was changed (tables that do not match their version: a damaged or foreign "
                            "file?)");
      }
  });
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

Statement& Statement::bind(int index, std::int64_t value) {
  if (sqlite3_bind_int64(stmt_, index, value) != SQLITE_OK) db_->fail("cannot bind");
  return *this;
}
Statement& Statement::bind(int index, double value) {
  if (sqlite3_bind_double(stmt_, index, value) != SQLITE_OK) db_->fail("cannot bind");
  return *this;
}
Statement& Statement::bind(int index, const std::string& value) {
  if (sqlite3_bind_text(stmt_, index, value.c_str(), static_cast<int>(value.size()), SQLITE_TRANSIENT) != SQLITE_OK)
    db_->fail("cannot bind");
  return *this;
}
Statement& Statement::bind_null(int index) {
  if (sqlite3_bind_null(stmt_, index) != SQLITE_OK) db_->fail("cannot bind");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_->fail("query failed");
}

std::int64_t Statement::column_int(int index) {
  return sqlite3_column_int64(stmt_, index);
}
int Statement::column_int_within(int index, const char* name, long long lo, long long hi) {
  const std::int64_t v = column_int(index);
  if (!column_is_integer(index) || v < lo || v > hi)
    throw DatabaseError(std::string(name) + " = " + (column_is_null(index) ? "NULL" : column_text(index)) +
                        " is not a whole number in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<int>(v);
}
double Statement::column_double(int index) {
  return sqlite3_column_double(stmt_, index);
}
std::optional<double> Statement::column_optional_double(int index) {
  if (sqlite3_column_type(stmt_, index) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(stmt_, index);
}
std::string Statement::column_text(int index) {
  // Every byte, a NUL too (a hand edit): read up to the first NUL, "gepp\0x" would pass as "gepp".
  const unsigned char* text = sqlite3_column_text(stmt_, index);
  if (!text) return "";
  return std::string(reinterpret_cast<const char*>(text), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, index)));
}

int Statement::column_count() {
  return sqlite3_column_count(stmt_);
}
std::string Statement::column_name(int index) {
  return sqlite3_column_name(stmt_, index);
}
bool Statement::column_is_null(int index) {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}
bool Statement::column_is_integer(int index) {
  return sqlite3_column_type(stmt_, index) == SQLITE_INTEGER;
}
bool Statement::column_is_real(int index) {
  return sqlite3_column_type(stmt_, index) == SQLITE_FLOAT;
}

}  // namespace hetlu::db
