#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <fstream>
#include <thread>
#include <vector>

namespace ktune {
namespace {

namespace fs = std::filesystem;

class DatabaseTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune-db-test-" + std::to_string(getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path db_path() const { return dir_ / "sub" / "tuning.db"; }

  static TuningRecord record(std::int64_t rows, double median_us, std::string hash = "tmpl1") {
    TuningRecord r;
    r.device_key = "NVIDIA H100|sm_90|132sm|81559MiB|50MiB";
    r.device_name = "NVIDIA H100";
    r.family = "transpose";
    r.dtype = "f32";
    r.shape = {rows, 2048};
    r.align = 4;
    r.config = {{"tile_m", 64}, {"layout", "xor"}};
    r.template_hash = std::move(hash);
    r.median_us = median_us;
    r.rate = 3000;
    r.tuned_at = "2026-11-21T00:00:00Z";
    return r;
  }

  fs::path dir_;
};

TEST_F(DatabaseTest, RoundTripAndOwnerOnlyDirectory) {
  {
    Database db(db_path());
    EXPECT_FALSE(db.recovered_from());
    EXPECT_TRUE(db.put(record(8192, 40.0)));
  }
  EXPECT_EQ(fs::status(db_path().parent_path()).permissions() & fs::perms::all, fs::perms::owner_all);
  Database db(db_path());
  const auto r = db.get("NVIDIA H100|sm_90|132sm|81559MiB|50MiB", "transpose", "f32", {8192, 2048}, 4);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->config, record(8192, 40.0).config);
  EXPECT_DOUBLE_EQ(r->median_us, 40.0);
  EXPECT_EQ(r->to_json(), record(8192, 40.0).to_json());
  EXPECT_FALSE(db.get(r->device_key, "transpose", "f32", {8192, 2048}, 1));  // other alignment class
  EXPECT_FALSE(db.get(r->device_key, "transpose", "f16", {8192, 2048}, 4));
  EXPECT_EQ(db.find(r->device_key, "transpose", "f32").size(), 1u);
}

TEST_F(DatabaseTest, KeepsTheFasterRecordUnlessTheTemplateChanged) {
  Database db(db_path());
  EXPECT_TRUE(db.put(record(8192, 40.0)));
  EXPECT_FALSE(db.put(record(8192, 41.0)));  // slower: kept the old one
  EXPECT_DOUBLE_EQ(db.all().at(0).median_us, 40.0);
  EXPECT_TRUE(db.put(record(8192, 39.0)));
  EXPECT_DOUBLE_EQ(db.all().at(0).median_us, 39.0);
  EXPECT_TRUE(db.put(record(8192, 45.0, "tmpl2")));  // new template: the new result replaces
  EXPECT_EQ(db.all().at(0).template_hash, "tmpl2");
  EXPECT_EQ(db.all().size(), 1u);
}

TEST_F(DatabaseTest, GarbageFileIsSetAsideAndReported) {
  fs::create_directories(db_path().parent_path());
  std::ofstream(db_path()) << "this is not a database, just some bytes that a user put here";
  Database db(db_path());
  ASSERT_TRUE(db.recovered_from());
  EXPECT_NE(db.recovered_from()->find(".broken-"), std::string::npos) << *db.recovered_from();
  EXPECT_TRUE(db.all().empty());
  EXPECT_TRUE(db.put(record(1, 1.0)));
  int aside = 0;
  for (const auto& e : fs::directory_iterator(db_path().parent_path()))
    if (e.path().filename().string().find("tuning.db.broken-") == 0) ++aside;
  EXPECT_EQ(aside, 1);  // the user's file is kept, renamed
}

TEST_F(DatabaseTest, TruncatedDatabaseIsSetAside) {
  {
    Database db(db_path());
    for (int i = 1; i <= 200; ++i) db.put(record(i, 1.0));
  }
  fs::resize_file(db_path(), fs::file_size(db_path()) / 2);
  fs::remove(db_path().string() + "-wal");
  Database db(db_path());
  EXPECT_TRUE(db.recovered_from());
}

TEST_F(DatabaseTest, WrongSchemaVersionIsSetAside) {
  { Database db(db_path()); }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE meta SET value='99' WHERE key='schema_version'", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  Database db(db_path());
  ASSERT_TRUE(db.recovered_from());
  EXPECT_NE(db.recovered_from()->find("schema version 99"), std::string::npos) << *db.recovered_from();
}

// The golden database was written by ktune at schema 1 (commit 127da01, `ktune cache
// import tests/data/schema1/records.json`, plus one stored binary); see
// tests/data/schema1/README.md.
class MigrationTest : public DatabaseTest {
 protected:
  fs::path golden_copy(const std::string& name = "tuning.db") const {
    const fs::path path = db_path().parent_path() / name;
    create_private_directory(path.parent_path());
    fs::copy_file(fs::path(KTUNE_TEST_DATA_DIR) / "schema1" / "tuning.db", path);
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
    return path;
  }
  // The first column of the first row of `sql`, read past the Database class.
  static std::string raw_query(const fs::path& path, const char* sql) {
    sqlite3* raw = nullptr;
    sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY, nullptr);
    sqlite3_stmt* q = nullptr;
    sqlite3_prepare_v2(raw, sql, -1, &q, nullptr);
    std::string v = sqlite3_step(q) == SQLITE_ROW ? reinterpret_cast<const char*>(sqlite3_column_text(q, 0)) : "none";
    sqlite3_finalize(q);
    sqlite3_close(raw);
    return v;
  }
  static std::string stored_schema(const fs::path& path) {
    return raw_query(path, "SELECT value FROM meta WHERE key='schema_version'");
  }
  // The golden file's three records, read through any schema.
  static void expect_golden_records(const Database& db) {
    const auto records = db.all();
    ASSERT_EQ(records.size(), 3u);
    const auto& eltwise = records[0];
    const auto& gemm = records[1];
    const auto& transpose = records[2];
    EXPECT_EQ(eltwise.family, "elementwise:o0=(i0+i1)");
    EXPECT_EQ(eltwise.rate_unit, "GB/s");
    EXPECT_EQ(gemm.family, "gemm");
    EXPECT_EQ(gemm.shape, (std::vector<std::int64_t>{4096, 4096, 4096}));
    EXPECT_DOUBLE_EQ(gemm.rate, 45447.9);
    EXPECT_EQ(gemm.rate_unit, "GFLOP/s");  // schema 1 called it gbps
    EXPECT_EQ(gemm.config.at("bm"), 128);
    EXPECT_EQ(transpose.family, "transpose");
    EXPECT_DOUBLE_EQ(transpose.rate, 3808.2);
    EXPECT_EQ(transpose.rate_unit, "GB/s");
    EXPECT_DOUBLE_EQ(transpose.median_us, 70.5);
    EXPECT_EQ(transpose.config.at("layout"), "xor");
    EXPECT_EQ(transpose.tuned_at, "2026-11-22T05:40:00Z");
  }
};

TEST_F(MigrationTest, GoldenSchema1DatabaseIsMigratedWithABackup) {
  const fs::path path = golden_copy();
  {
    Database db(path);
    EXPECT_FALSE(db.recovered_from());
    ASSERT_TRUE(db.migrated_backup());
    EXPECT_EQ(*db.migrated_backup(), fs::path(path.string() + ".schema1"));
    expect_golden_records(db);
    const auto binary = db.get_binary("fixture-binary-key");  // binaries survive, hash intact
    ASSERT_TRUE(binary);
    EXPECT_EQ(binary->bytes.size(), 64u);
    EXPECT_EQ(binary->entry, "ktune_transpose<float,64,64,16,16,4,2,0>");
    // New records go in next to the migrated ones.
    EXPECT_TRUE(db.put(record(8192, 5.0)));
    EXPECT_EQ(db.all().size(), 4u);
  }
  EXPECT_EQ(stored_schema(path), std::to_string(Database::k_schema_version));
  const auto stored = nlohmann::json::parse(raw_query(path, "SELECT record FROM results WHERE family='gemm'"));
  EXPECT_FALSE(stored.contains("gbps")) << stored;  // rewritten in the schema-2 form
  EXPECT_EQ(stored.at("rate_unit"), "GFLOP/s");
  const fs::path backup = path.string() + ".schema1";
  EXPECT_EQ(stored_schema(backup), "1");
  EXPECT_EQ(fs::status(backup).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  {
    Database again(path);  // already migrated: nothing to do
    EXPECT_FALSE(again.migrated_backup());
    EXPECT_EQ(again.all().size(), 4u);
  }
  Database old(backup, /*read_only=*/true);  // the kept copy still holds the schema-1 records
  expect_golden_records(old);
}

// No backup, no migration: the schema-1 file stays as it was, not set aside.
TEST_F(MigrationTest, NoMigrationWithoutABackup) {
  // A name the database fits in but its backup copy does not (255 bytes at most).
  const fs::path path = golden_copy(std::string(240, 'd') + ".db");
  try {
    Database db(path);
    ADD_FAILURE() << "opened without a backup";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("could not be copied"), std::string::npos) << e.what();
  }
  EXPECT_EQ(stored_schema(path), "1");
  EXPECT_FALSE(fs::exists(path.string() + ".schema1"));
  for (const auto& entry : fs::directory_iterator(path.parent_path()))
    EXPECT_EQ(entry.path().string().find(".broken"), std::string::npos) << entry.path();
  Database old(path, /*read_only=*/true);
  expect_golden_records(old);
}

TEST_F(MigrationTest, ReadOnlyReadsSchema1AsItIs) {
  const fs::path path = golden_copy();
  const auto before = fs::file_size(path);
  Database db(path, /*read_only=*/true);
  EXPECT_FALSE(db.migrated_backup());
  expect_golden_records(db);
  EXPECT_EQ(stored_schema(path), "1");
  EXPECT_EQ(fs::file_size(path), before);
  EXPECT_FALSE(fs::exists(path.string() + ".schema1"));
}

TEST_F(MigrationTest, ProcessesOpeningAtOnceMigrateOnce) {
  const fs::path path = golden_copy();
  std::vector<std::thread> openers;
  std::atomic<int> migrated{0}, failed{0};
  for (int i = 0; i < 6; ++i)
    openers.emplace_back([&] {
      try {
        Database db(path);
        if (db.migrated_backup()) ++migrated;
        if (db.recovered_from() || db.all().size() != 3) ++failed;
      } catch (const std::exception&) {
        ++failed;
      }
    });
  for (auto& t : openers) t.join();
  EXPECT_EQ(failed.load(), 0);
  EXPECT_EQ(migrated.load(), 1);
  EXPECT_EQ(stored_schema(path), std::to_string(Database::k_schema_version));
}

TEST_F(MigrationTest, Schema1ExportImports) {
  std::ifstream in(fs::path(KTUNE_TEST_DATA_DIR) / "schema1" / "records.json");
  Database db(db_path());
  EXPECT_EQ(db.import_json(nlohmann::json::parse(in)), 3u);
  expect_golden_records(db);
  EXPECT_EQ(db.export_json().at("ktune_schema"), Database::k_schema_version);
  EXPECT_THROW(db.import_json({{"ktune_schema", Database::k_schema_version + 1}, {"records", nlohmann::json::array()}}),
               Error);
  EXPECT_THROW(db.import_json({{"ktune_schema", "1"}, {"records", nlohmann::json::array()}}), Error);
}

TEST_F(DatabaseTest, HandEditedRecordIsSkippedNotFatal) {
  {
    Database db(db_path());
    db.put(record(1, 1.0));
    db.put(record(2, 1.0));
  }
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE results SET record='{broken' WHERE shape='1x2048'", nullptr, nullptr, nullptr),
            SQLITE_OK);
  sqlite3_close(raw);
  Database db(db_path());
  EXPECT_EQ(db.all().size(), 1u);
}

TEST_F(DatabaseTest, ReadOnlyNeverWritesOrMovesFiles) {
  fs::create_directories(db_path().parent_path());
  std::ofstream(db_path()) << "garbage";
  EXPECT_THROW(Database(db_path(), true), Error);
  EXPECT_TRUE(fs::exists(db_path()));  // not set aside
  fs::remove(db_path());
  { Database(db_path()).put(record(5, 5.0)); }
  Database ro(db_path(), true);
  EXPECT_EQ(ro.all().size(), 1u);
  EXPECT_THROW(ro.put(record(6, 1.0)), Error);
}

TEST_F(DatabaseTest, DatabaseWritableByOthersIsRefused) {
  { Database db(db_path()); }
  EXPECT_EQ(fs::status(db_path()).permissions() & fs::perms::all, fs::perms::owner_read | fs::perms::owner_write);
  fs::permissions(db_path(), fs::perms::others_write, fs::perm_options::add);
  try {
    Database db(db_path(), true);
    FAIL() << "a world-writable database was opened";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("writable by other users"), std::string::npos) << e.what();
  }
  fs::permissions(db_path(), fs::perms::others_write, fs::perm_options::remove);
  fs::permissions(db_path().parent_path(), fs::perms::group_write, fs::perm_options::add);
  EXPECT_THROW(Database(db_path(), true), Error);
  fs::permissions(db_path().parent_path(), fs::perms::group_write, fs::perm_options::remove);
  EXPECT_NO_THROW(Database(db_path(), true));
}

TEST_F(DatabaseTest, BinaryWithBadHashIsDiscarded) {
  Database db(db_path());
  db.put_binary("k1", {std::string("\x7f" "ELF cubin bytes", 15), "_Z3foov"});
  auto b = db.get_binary("k1");
  ASSERT_TRUE(b);
  EXPECT_EQ(b->entry, "_Z3foov");
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &raw), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(raw, "UPDATE binaries SET bytes=X'00112233' WHERE key='k1'", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(raw);
  EXPECT_FALSE(db.get_binary("k1"));
  EXPECT_FALSE(db.get_binary("k1"));  // deleted, recompiled next time
}

// Eight processes writing different records at once: none is lost.
TEST_F(DatabaseTest, ConcurrentWritersLoseNothing) {
  { Database db(db_path()); }
  std::vector<pid_t> children;
  for (int p = 0; p < 8; ++p) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      try {
        Database db(db_path());
        for (int i = 0; i < 25; ++i) db.put(record(p * 1000 + i + 1, 1.0 + i));
      } catch (...) {
        _exit(1);
      }
      _exit(0);
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  EXPECT_EQ(Database(db_path()).all().size(), 200u);
}

// A writer killed with SIGKILL mid-stream never leaves a database that fails to open
// or loses what was committed before.
TEST_F(DatabaseTest, KilledWriterLeavesAHealthyDatabase) {
  {
    Database db(db_path());
    db.put(record(999999, 1.0));
  }
  for (int round = 0; round < 50; ++round) {
    const pid_t pid = fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Database db(db_path());
      for (int i = 0;; ++i) db.put(record(round * 100000 + i + 1, 1.0));
    }
    usleep(static_cast<useconds_t>(5000 + (round * 7919) % 150000));  // kill points spread over 5-155 ms
    kill(pid, SIGKILL);
    waitpid(pid, nullptr, 0);
    Database db(db_path());
    ASSERT_FALSE(db.recovered_from()) << *db.recovered_from();
    EXPECT_TRUE(db.get(record(999999, 1.0).device_key, "transpose", "f32", {999999, 2048}, 4));
  }
}

TEST(Shape, ParseAndPrint) {
  EXPECT_EQ(parse_shape("8192x2048"), (std::vector<std::int64_t>{8192, 2048}));
  EXPECT_EQ(shape_to_string({3, 5}), "3x5");
  for (const char* bad : {"", "x", "8192x", "0x5", "-1x5", "12ax4", "99999999999999999999x1"})
    EXPECT_FALSE(parse_shape(bad)) << bad;
}

TEST(TuningRecordJson, MalformedIsAnError) {
  EXPECT_THROW(TuningRecord::from_json(nlohmann::json::parse(R"({"family": "transpose"})")), Error);
}

}  // namespace
}  // namespace ktune
