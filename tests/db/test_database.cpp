#include <gtest/gtest.h>

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
  EXPECT_THROW(Database::open(path, Database::Mode::read_only), db::DatabaseError);  // read-only cannot migrate
  auto migrated = Database::open(path, Database::Mode::read_write);
  EXPECT_EQ(migrated.user_version(), 2);
  auto s = migrated.prepare("SELECT value, spread, run FROM probe_results");
  ASSERT_TRUE(s.step());
  EXPECT_DOUBLE_EQ(s.column_double(0), 42);  // kept
  EXPECT_DOUBLE_EQ(s.column_double(1), 0);
  EXPECT_EQ(s.column_int(2), 0);
}

TEST(Database, NewerSchemaIsRefused) {
  test_support::TempDir dir;
  const auto path = dir.file("t.db");
  Database::open(path, Database::Mode::read_write).exec("PRAGMA user_version = 99");
  EXPECT_THROW(Database::open(path, Database::Mode::read_only), db::DatabaseError);
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
