#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "../common/temp_dir.hpp"
#include "db/database.hpp"

using namespace hetlu;
using db::Database;

TEST(Database, CreatesTheSchemaWithItsVersion) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("sub/folder/t.db"), Database::Mode::read_write);
  EXPECT_EQ(database.user_version(), db::schema_version);
  auto s = database.prepare("PRAGMA journal_mode");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_text(0), "wal");
  for (const char* table : {"machines", "probe_results", "trials", "best_plans"}) {
    auto t = database.prepare("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?1");
    t.bind(1, table);
    ASSERT_TRUE(t.step());
    EXPECT_EQ(t.column_int(0), 1) << table;
  }
}

TEST(Database, ReopeningKeepsDataAndVersion) {
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  {
    auto database = Database::open(path, Database::Mode::read_write);
    database.exec("INSERT INTO machines (fingerprint, hard_key, soft_attributes) VALUES ('abc', '{}', '{}')");
  }
  auto again = Database::open(path, Database::Mode::read_only);
  EXPECT_EQ(again.user_version(), db::schema_version);
  auto s = again.prepare("SELECT fingerprint FROM machines");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_text(0), "abc");
}

TEST(Database, ReadOnlyNeedsAnExistingFile) {
  test_support::TempDir dir;
  try {
    Database::open(dir.file("missing.db"), Database::Mode::read_only);
    FAIL();
  } catch (const db::DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("no database at"), std::string::npos);
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("missing.db")));
}

TEST(Database, CorruptFileIsAClearError) {
  test_support::TempDir dir;
  const auto path = dir.file("corrupt.db");
  std::ofstream(path) << "this is not an SQLite database, just some text that is long enough to matter\n";
  EXPECT_THROW(Database::open(path, Database::Mode::read_only), db::DatabaseError);
  EXPECT_THROW(Database::open(path, Database::Mode::read_write), db::DatabaseError);
}

// A database damaged past its first pages (1000 bytes cut off its end) opened for writing:
// calibrate added its rows to it with exit 0 while db check called it damaged, and recommend then
// read "tuned" from it (a hostile test). Refused now, naming what SQLite's check found; reading it
// still works (what can be read is read, as db check and recommend do).
TEST(Database, ADamagedFileIsNotWrittenInto) {
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  {
    auto database = Database::open(path, Database::Mode::read_write);
    database.exec("INSERT INTO machines (fingerprint, hard_key, soft_attributes) VALUES ('abc', '{}', '{}')");
    for (int i = 0; i < 400; ++i)
      database.exec("INSERT INTO probe_results (machine_id, name, value, unit, detail) VALUES (1, 'probe " +
                    std::to_string(i) + "', " + std::to_string(i) + ", 'GFlop/s', '" + std::string(200, 'x') + "')");
    database.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  std::filesystem::remove(path + "-wal");
  std::filesystem::remove(path + "-shm");
  const auto size = std::filesystem::file_size(path);
  ASSERT_GT(size, 16384u);
  std::filesystem::resize_file(path, size - 1000);
  const auto damaged = std::filesystem::file_size(path);
  try {
    Database::open(path, Database::Mode::read_write);
    ADD_FAILURE() << "a damaged database was opened for writing";
  } catch (const db::DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("is damaged (SQLite's quick_check: "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("hetlu db check"), std::string::npos) << e.what();
  }
  EXPECT_EQ(std::filesystem::file_size(path), damaged);  // nothing written
  EXPECT_NO_THROW(Database::open(path, Database::Mode::read_only));
  // Of an older schema, a reader would migrate it first: said as what it is, not as "db check lists
  // what" (db check cannot read it either).
  {
    sqlite3* handle = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &handle), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(handle, ("PRAGMA user_version = " + std::to_string(db::schema_version - 1)).c_str(), nullptr,
                           nullptr, nullptr),
              SQLITE_OK);
    sqlite3_close(handle);
  }
  try {
    Database::open(path, Database::Mode::read_only);
    ADD_FAILURE() << "a damaged database of an older schema was read";
  } catch (const db::DatabaseDamaged& e) {
    EXPECT_NE(std::string(e.what()).find("can neither migrate it"), std::string::npos) << e.what();
  }
}

TEST(Database, UnwritablePathIsAClearError) {
  test_support::TempDir dir;
  std::ofstream(dir.file("a_file")) << "x";
  // A folder cannot be created below a regular file.
  try {
    Database::open(dir.file("a_file/t.db"), Database::Mode::read_write);
    FAIL();
  } catch (const db::DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("a_file/t.db"), std::string::npos);
  }
}

// A FIFO at the path: opening it for SQLite would wait for a writer forever (a Python solve with
// db= a FIFO never returned). Devices are no databases either.
TEST(Database, AFifoOrADeviceIsRefusedWithoutWaiting) {
  test_support::TempDir dir;
  const auto fifo = dir.file("pipe.db");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  for (const std::string& path : {fifo, std::string("/dev/null")})
    for (auto mode : {Database::Mode::read_only, Database::Mode::read_write}) {
      try {
        Database::open(path, mode);
        FAIL() << path;
      } catch (const db::DatabaseError& e) {
        EXPECT_EQ(std::string(e.what()), "database '" + path + "' is not a regular file");
      }
    }
}

TEST(Database, MigratesAVersionOneFile) {
  test_support::TempDir dir;
  const auto path = dir.file("v1.db");
  {
    // A database as the first release wrote it: version 1, probe results without spread or run.
    auto v1 = Database::open(path, Database::Mode::read_write);
    v1.exec("DROP TABLE probe_results");
    v1.exec(
        "CREATE TABLE probe_results (id INTEGER PRIMARY KEY, machine_id INTEGER NOT NULL, name TEXT NOT NULL, "
        "value REAL NOT NULL, unit TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '', "
        "measured_at TEXT NOT NULL DEFAULT (datetime('now')))");
    v1.exec("INSERT INTO probe_results (machine_id, name, value, unit) VALUES (1, 'dgemm_one_core', 42, 'GFlop/s')");
    v1.exec("PRAGMA user_version = 1");
  }
  // A reader of a writable older file migrates it (an upgrade must not hide the tuned plans).
  auto migrated = Database::open(path, Database::Mode::read_only);
  EXPECT_EQ(migrated.user_version(), db::schema_version);
  auto s = migrated.prepare("SELECT value, spread, run FROM probe_results");
  ASSERT_TRUE(s.step());
  EXPECT_DOUBLE_EQ(s.column_double(0), 42);  // kept
  EXPECT_DOUBLE_EQ(s.column_double(1), 0);
  EXPECT_EQ(s.column_int(2), 0);
}

TEST(Database, MigratesAVersionTwoFileKeepingTrialsAndPlans) {
  test_support::TempDir dir;
  const auto path = dir.file("v2.db");
  {
    // Version 2: trials and best plans without a backend column.
    auto v2 = Database::open(path, Database::Mode::read_write);
    v2.exec("DROP TABLE best_plans");
    v2.exec("DROP TABLE trials");
    v2.exec(
        "CREATE TABLE trials (id INTEGER PRIMARY KEY, machine_id INTEGER NOT NULL REFERENCES machines(id), "
        "level TEXT NOT NULL, solver TEXT NOT NULL, precision TEXT NOT NULL, target TEXT NOT NULL, m INTEGER NOT NULL, "
        "n INTEGER NOT NULL, nb INTEGER NOT NULL, ib INTEGER NOT NULL, cpu_block_columns INTEGER NOT NULL, "
        "panel_threads INTEGER NOT NULL, lookahead INTEGER NOT NULL, status TEXT NOT NULL, error TEXT NOT NULL "
        "DEFAULT '', repetitions INTEGER NOT NULL DEFAULT 0, median_s REAL, min_s REAL, spread REAL, gflops REAL, "
        "predicted_s REAL, samples TEXT NOT NULL DEFAULT '[]', measured_at TEXT NOT NULL DEFAULT (datetime('now')), "
        "UNIQUE (machine_id, level, solver, precision, target, m, n, nb, ib, cpu_block_columns, panel_threads, "
        "lookahead))");
    v2.exec(
        "CREATE TABLE best_plans (machine_id INTEGER NOT NULL REFERENCES machines(id), solver TEXT NOT NULL, "
        "precision TEXT NOT NULL, target TEXT NOT NULL, m INTEGER NOT NULL, n INTEGER NOT NULL, level TEXT NOT NULL, "
        "nb INTEGER NOT NULL, ib INTEGER NOT NULL, cpu_block_columns INTEGER NOT NULL, panel_threads INTEGER NOT "
        "NULL, lookahead INTEGER NOT NULL, median_s REAL NOT NULL, gflops REAL NOT NULL, predicted_s REAL, trial_id "
        "INTEGER REFERENCES trials(id), updated_at TEXT NOT NULL DEFAULT (datetime('now')), PRIMARY KEY (machine_id, "
        "solver, precision, target, m, n))");
    v2.exec("INSERT INTO machines (id, fingerprint, hard_key, soft_attributes) VALUES (1, 'f', '{}', '{}')");
    v2.exec(
        "INSERT INTO trials (id, machine_id, level, solver, precision, target, m, n, nb, ib, cpu_block_columns, "
        "panel_threads, lookahead, status, median_s) VALUES (7, 1, 'quick', 'gepp', 'double', 'cpu', 100, 100, 32, "
        "32, 1, 1, 1, 'ok', 0.25)");
    v2.exec(
        "INSERT INTO best_plans (machine_id, solver, precision, target, m, n, level, nb, ib, cpu_block_columns, "
        "panel_threads, lookahead, median_s, gflops, trial_id) VALUES (1, 'gepp', 'double', 'cpu', 100, 100, "
        "'quick', 32, 32, 1, 1, 1, 0.25, 2.7, 7)");
    v2.exec("PRAGMA user_version = 2");
  }
  auto migrated = Database::open(path, Database::Mode::read_write);
  EXPECT_EQ(migrated.user_version(), db::schema_version);
  auto s = migrated.prepare(
      "SELECT t.id, t.backend, t.median_s, b.backend, b.nb, t.cpu_threads, b.cpu_threads FROM best_plans b "
      "JOIN trials t ON b.trial_id = t.id");
  ASSERT_TRUE(s.step());
  EXPECT_EQ(s.column_int(0), 7);
  EXPECT_EQ(s.column_text(1), "");  // the CPU target has no backend
  EXPECT_DOUBLE_EQ(s.column_double(2), 0.25);
  EXPECT_EQ(s.column_text(3), "");
  EXPECT_EQ(s.column_int(4), 32);
  EXPECT_EQ(s.column_int(5), 0);  // schema 6: the threads were not recorded
  EXPECT_EQ(s.column_int(6), 0);
  // best_plans still refers to trials (the rename carried the reference along).
  auto fk = migrated.prepare("SELECT \"table\" FROM pragma_foreign_key_list('best_plans') WHERE \"from\" = 'trial_id'");
  ASSERT_TRUE(fk.step());
  EXPECT_EQ(fk.column_text(0), "trials");
  auto check = migrated.prepare("PRAGMA foreign_key_check");
  EXPECT_FALSE(check.step());
}

// Schema 5 to 6 (the CPU threads in the keys) with rows a hand edit left behind: a plan whose trial
// is gone, a trial and a plan whose machine is gone (SQLite checks a reference only on writes). The
// migration failed on them, and every command with it; they go, as a cascade would take them, and
// the rest is kept.
TEST(Database, MigratesAVersionFiveFileLeavingRowsWhoseReferenceIsGone) {
  test_support::TempDir dir;
  const auto path = dir.file("v5.db");
  {
    auto v5 = Database::open(path, Database::Mode::read_write);
    v5.exec("PRAGMA foreign_keys = OFF");
    v5.exec("DROP TABLE best_plans");
    v5.exec("DROP TABLE trials");
    v5.exec(
        "CREATE TABLE trials (id INTEGER PRIMARY KEY, machine_id INTEGER NOT NULL REFERENCES machines(id), "
        "level TEXT NOT NULL, solver TEXT NOT NULL, precision TEXT NOT NULL, target TEXT NOT NULL, backend TEXT NOT "
        "NULL DEFAULT '', m INTEGER NOT NULL, n INTEGER NOT NULL, nb INTEGER NOT NULL, ib INTEGER NOT NULL, "
        "cpu_block_columns INTEGER NOT NULL, panel_threads INTEGER NOT NULL, lookahead INTEGER NOT NULL, status TEXT "
        "NOT NULL, error TEXT NOT NULL DEFAULT '', repetitions INTEGER NOT NULL DEFAULT 0, median_s REAL, min_s REAL, "
        "spread REAL, gflops REAL, predicted_s REAL, samples TEXT NOT NULL DEFAULT '[]', measured_at TEXT NOT NULL "
        "DEFAULT (datetime('now')), environment TEXT NOT NULL DEFAULT '', UNIQUE (machine_id, level, solver, "
        "precision, target, backend, m, n, nb, ib, cpu_block_columns, panel_threads, lookahead))");
    v5.exec(
        "CREATE TABLE best_plans (machine_id INTEGER NOT NULL REFERENCES machines(id), solver TEXT NOT NULL, "
        "precision TEXT NOT NULL, target TEXT NOT NULL, backend TEXT NOT NULL DEFAULT '', m INTEGER NOT NULL, n "
        "INTEGER NOT NULL, level TEXT NOT NULL, nb INTEGER NOT NULL, ib INTEGER NOT NULL, cpu_block_columns INTEGER "
        "NOT NULL, panel_threads INTEGER NOT NULL, lookahead INTEGER NOT NULL, median_s REAL NOT NULL, gflops REAL "
        "NOT NULL, predicted_s REAL, trial_id INTEGER REFERENCES trials(id), updated_at TEXT NOT NULL DEFAULT "
        "(datetime('now')), PRIMARY KEY (machine_id, solver, precision, target, backend, m, n))");
    v5.exec("INSERT INTO machines (id, fingerprint, hard_key, soft_attributes) VALUES (1, 'f', '{}', '{}')");
    for (const char* row : {"(7, 1, 100)", "(8, 1, 300)", "(9, 2, 100)"})  // (id, machine, n); machine 2 is gone
      v5.exec(std::string("INSERT INTO trials (id, machine_id, n, level, solver, precision, target, m, nb, ib, "
                          "cpu_block_columns, panel_threads, lookahead, status, median_s) SELECT column1, column2, "
                          "column3, 'quick', 'gepp', 'double', 'cpu', column3, 32, 32, 1, 1, 1, 'ok', 0.25 FROM "
                          "(VALUES ") +
              row + ")");
    // (machine, n, trial): a plan of a kept trial, one without a trial, one whose trial is gone, one
    // of the machine that is gone.
    for (const char* row : {"(1, 100, 7)", "(1, 200, NULL)", "(1, 400, 99)", "(2, 100, 9)"})
      v5.exec(std::string("INSERT INTO best_plans (machine_id, n, trial_id, solver, precision, target, m, level, nb, "
                          "ib, cpu_block_columns, panel_threads, lookahead, median_s, gflops) SELECT column1, "
                          "column2, column3, 'gepp', 'double', 'cpu', column2, 'quick', 32, 32, 1, 1, 1, 0.25, 2.7 "
                          "FROM (VALUES ") +
              row + ")");
    v5.exec("PRAGMA user_version = 5");
  }
  auto migrated = Database::open(path, Database::Mode::read_write);
  EXPECT_EQ(migrated.user_version(), db::schema_version);
  auto trials = migrated.prepare("SELECT group_concat(id) FROM (SELECT id FROM trials ORDER BY id)");
  ASSERT_TRUE(trials.step());
  EXPECT_EQ(trials.column_text(0), "7,8");
  auto plans = migrated.prepare(
      "SELECT group_concat(n || ':' || coalesce(trial_id, '-') || ':' || cpu_threads) FROM (SELECT * FROM "
      "best_plans ORDER BY n)");
  ASSERT_TRUE(plans.step());
  EXPECT_EQ(plans.column_text(0), "100:7:0,200:-:0");
  auto check = migrated.prepare("PRAGMA foreign_key_check");
  EXPECT_FALSE(check.step());
}

TEST(Database, NewerSchemaIsRefused) {
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  Database::open(path, Database::Mode::read_write).exec("PRAGMA user_version = 99");
  EXPECT_THROW(Database::open(path, Database::Mode::read_only), db::DatabaseError);
}

// A version no hetlu writes, or one its tables do not match: one line naming the file and the
// version, and the file left as it was (the migration is one transaction).
TEST(Database, ImpossibleSchemaVersionsAreNamedAndChangeNothing) {
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  { Database::open(path, Database::Mode::read_write); }  // a current database, then its version changed
  for (int version : {-3, 0, 1}) {
    SCOPED_TRACE(version);
    sqlite3* edit = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &edit), SQLITE_OK);
    const std::string pragma = "PRAGMA user_version = " + std::to_string(version);
    ASSERT_EQ(sqlite3_exec(edit, pragma.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(edit);
    for (auto mode : {Database::Mode::read_only, Database::Mode::read_write}) {
      try {
        Database::open(path, mode);
        ADD_FAILURE() << "opened";
      } catch (const db::DatabaseError& e) {
        const std::string what = e.what();
        EXPECT_NE(what.find("t.db"), std::string::npos) << what;
        EXPECT_NE(what.find("version " + std::to_string(version)), std::string::npos) << what;
        EXPECT_EQ(what.find('\n'), std::string::npos) << what;
      }
    }
    sqlite3* raw = nullptr;  // the file itself, not through Database::open (which would migrate it)
    ASSERT_EQ(sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
    sqlite3_stmt* read = nullptr;
    sqlite3_prepare_v2(raw, "PRAGMA user_version", -1, &read, nullptr);
    ASSERT_EQ(sqlite3_step(read), SQLITE_ROW);
    EXPECT_EQ(sqlite3_column_int(read, 0), version);
    sqlite3_finalize(read);
    sqlite3_close(raw);
  }
}

// Another program's SQLite file (user_version 0, tables of its own) got hetlu's tables, WAL and
// version 5 from a read-only `hetlu db check`. Refused in either mode, the file byte for byte as it was.
TEST(Database, AnotherProgramsFileIsRefusedAndLeftAsItWas) {
  test_support::TempDir dir;
  const auto path = dir.file("notes.db");
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other,
                         "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) "
                         "VALUES ('my data')",
                         nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(other);
  auto bytes = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string before = bytes();
  for (auto mode : {Database::Mode::read_only, Database::Mode::read_write}) {
    try {
      Database::open(path, mode);
      ADD_FAILURE() << "opened another program's file";
    } catch (const db::DatabaseError& e) {
      EXPECT_NE(std::string(e.what()).find("not a hetlu database"), std::string::npos) << e.what();
    }
  }
  EXPECT_EQ(bytes(), before);
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
}

// An SQLite file with no tables (a page of header: a .db whose -wal was lost) is empty, as a file
// of 0 bytes is: a read says so and leaves it as it was (db check had written hetlu's tables into
// it and said "ok"; a hostile helper's finding).
TEST(Database, AnSQLiteFileWithNoTablesIsEmptyAndLeftAsItWas) {
  test_support::TempDir dir;
  const auto path = dir.file("blank.db");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "CREATE TABLE t (v); DROP TABLE t;", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  ASSERT_GT(std::filesystem::file_size(path), 0u);
  auto bytes = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string before = bytes();
  try {
    Database::open(path, Database::Mode::read_only);
    ADD_FAILURE() << "read an empty file as a database";
  } catch (const db::DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("is empty"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(bytes() == before) << "the file changed";
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));
  Database::open(path, Database::Mode::read_write);  // a calibration makes it hetlu's
  EXPECT_EQ(Database::open(path, Database::Mode::read_only).user_version(), db::schema_version);
}

// On storage this user cannot write, SQLite reads a database immutably and ignores its -wal: the
// rows of a calibration killed before its checkpoint were missing, and the file was said to have
// schema version 0 ("run hetlu calibrate to migrate it"). Said instead. As root the reader is a
// child run as nobody, since root may write any folder.
TEST(Database, RowsLeftInTheWalOnReadOnlyStorageAreSaid) {
  test_support::TempDir dir;
  const std::string folder = dir.file("ro");
  std::filesystem::create_directory(folder);
  const std::string path = folder + "/k.db";
  const pid_t writer = ::fork();  // writes and dies without a checkpoint, as a killed calibrate
  if (writer == 0) {
    try {
      auto database = Database::open(path, Database::Mode::read_write);
      database.exec("PRAGMA wal_autocheckpoint=0");
      database.exec("INSERT INTO machines (fingerprint, hard_key, soft_attributes) VALUES ('x', '{}', '{}')");
      ::_exit(0);  // before the destructor's close, which would checkpoint
    } catch (...) {
      ::_exit(1);
    }
  }
  int status = 0;
  ::waitpid(writer, &status, 0);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ASSERT_GT(std::filesystem::file_size(path + "-wal"), 0u);
  std::filesystem::remove(path + "-shm");  // as a copy of the two files has it
  ::chmod(path.c_str(), 0644);
  ::chmod((path + "-wal").c_str(), 0644);
  ::chmod(folder.c_str(), 0555);
  ::chmod(dir.file("").c_str(), 0755);
  const bool root = ::geteuid() == 0;
  const pid_t reader = ::fork();
  if (reader == 0) {
    if (root && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
    try {
      Database::open(path, Database::Mode::read_only);
      ::_exit(10);
    } catch (const db::DatabaseError& e) {
      const std::string what = e.what();
      ::_exit(what.find("still in '" + path + "-wal'") != std::string::npos ? 0 : 11);
    }
  }
  ::waitpid(reader, &status, 0);
  ::chmod(folder.c_str(), 0755);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: read without a word; 11: another message";
}

TEST(Database, TransactionRollsBackOnError) {
  test_support::TempDir dir;
  auto database = Database::open(dir.file("t.db"), Database::Mode::read_write);
  EXPECT_THROW(database.transaction([&] {
    database.exec("INSERT INTO machines (fingerprint, hard_key, soft_attributes) VALUES ('x', '{}', '{}')");
    throw std::runtime_error("interrupted");
  }),
               std::runtime_error);
  auto s = database.prepare("SELECT count(*) FROM machines");
  s.step();
  EXPECT_EQ(s.column_int(0), 0);
}

TEST(DefaultPath, FollowsTheEnvironment) {
  ::setenv("HETLU_DB", "/tmp/explicit.db", 1);
  EXPECT_EQ(db::default_path(), "/tmp/explicit.db");
  ::unsetenv("HETLU_DB");
  ::setenv("XDG_DATA_HOME", "/tmp/xdg", 1);
  EXPECT_EQ(db::default_path(), "/tmp/xdg/hetlu/tuning.db");
  ::unsetenv("XDG_DATA_HOME");
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(db::default_path(), "/home/someone/.local/share/hetlu/tuning.db");
}

TEST(Database, AReaderNeverReadsAroundAnotherProcesssLock) {
  // Another connection holds the file in exclusive locking mode with a committed change: a read
  // must fail as busy (the API then falls back to the model with a warning), never read the file
  // "immutable", which showed the rows before the change (second hostile review).
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  { Database::open(path, Database::Mode::read_write).exec("CREATE TABLE x (v INTEGER); INSERT INTO x VALUES (1)"); }
  sqlite3* other = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &other), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(other, "PRAGMA locking_mode=EXCLUSIVE; UPDATE x SET v = 2;", nullptr, nullptr, nullptr),
            SQLITE_OK);
  try {
    auto reader = Database::open(path, Database::Mode::read_only);
    auto s = reader.prepare("SELECT v FROM x");
    ASSERT_TRUE(s.step());
    EXPECT_EQ(s.column_int(0), 2) << "read a stale row";
  } catch (const db::DatabaseError& e) {
    EXPECT_NE(std::string(e.what()).find("locked"), std::string::npos) << e.what();
  }
  sqlite3_close(other);
}

// Another user who read the database in a shared folder left its -shm file, which this user cannot
// write: opening for writing names that file (SQLite failed at the first write with "attempt to
// write a readonly database"; a hostile test's finding). As root the writer is a child run as
// nobody, since root may write any file.
TEST(Database, ASideFileThisUserCannotWriteIsNamed) {
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  ::chmod(dir.file("").c_str(), 0777);
  const bool root = ::geteuid() == 0;
  auto as_writer = [&](auto&& body) {  // runs body in a child as the database's writer; its exit code
    const pid_t child = ::fork();
    if (child == 0) {
      if (root && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(3);
      ::_exit(body());
    }
    int status = 0;
    ::waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  };
  ASSERT_EQ(as_writer([&] {
              try {
                Database::open(path, Database::Mode::read_write).exec("CREATE TABLE x (v INTEGER)");
                return 0;
              } catch (...) {
                return 1;
              }
            }),
            0);
  // The reader's leftover: another owner where root runs this, else this user's but read-only.
  std::ofstream(path + "-shm") << std::string(32768, '\0');
  ::chmod((path + "-shm").c_str(), root ? 0644 : 0444);
  EXPECT_EQ(as_writer([&] {
              try {
                Database::open(path, Database::Mode::read_write).exec("INSERT INTO x VALUES (1)");
                return 10;  // no error
              } catch (const db::DatabaseError& e) {
                const std::string what = e.what();
                return what.find("t.db-shm' belongs to user") != std::string::npos &&
                               what.find("cannot write it") != std::string::npos
                           ? 0
                           : 11;
              }
            }),
            0);
}

// Debian's SQLite reads "file:" names as URIs: "p%20q.db" on read-only storage read "p q.db" (exit
// 0), a '#' or '?' cut the name, and a relative "file:x.db" was not x.db. Every open names the file.
TEST(Database, APathIsTheFileItNamesWhateverItsCharacters) {
  test_support::TempDir dir;
  const std::string folder = dir.file("");
  struct BackAtTheEnd {  // however the test ends
    std::filesystem::path was = std::filesystem::current_path();
    ~BackAtTheEnd() { std::filesystem::current_path(was); }
  } back;
  std::filesystem::current_path(folder);  // "file:x.db" relative
  int k = 0;
  for (const char* name : {"p%20q.db", "a#b.db", "c?mode=memory.db", "file:x.db", "ü \\'$.db"}) {
    SCOPED_TRACE(name);
    const std::string mark = std::to_string(++k);
    {
      auto decoy = Database::open(dir.file("p q.db"), Database::Mode::read_write);  // what %20 would name
      auto database = Database::open(name, Database::Mode::read_write);
      database.exec("INSERT INTO machines (fingerprint, hard_key, soft_attributes) VALUES ('" + mark +
                    "', '{}', '{}')");
    }
    EXPECT_TRUE(std::filesystem::is_regular_file(dir.file(name)));
    auto again = Database::open(dir.file(name), Database::Mode::read_only);
    {
      auto s = again.prepare("SELECT fingerprint FROM machines");
      ASSERT_TRUE(s.step());
      EXPECT_EQ(s.column_text(0), mark);
    }
    // copy_to writes a file of that name too
    const std::string copy = dir.file(std::string("copy ") + name);
    again.copy_to(copy);
    EXPECT_TRUE(std::filesystem::is_regular_file(copy));
    EXPECT_EQ(Database::open(copy, Database::Mode::read_only).user_version(), db::schema_version);
  }
  for (const char* stray : {"p", "a", "c", "file", "x.db", "ü "})  // what a cut or a URI would have named
    EXPECT_FALSE(std::filesystem::exists(dir.file(stray))) << stray;
}
