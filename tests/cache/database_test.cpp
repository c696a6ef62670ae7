#include <ktune/cache/database.hpp>
#include <ktune/generator/error.hpp>

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <fstream>

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
    r.gbps = 3000;
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
