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
#include <set>
#include <functional>
#include <sys/resource.h>
#include <mutex>
#include <thread>
#include <vector>

#include "test_support.hpp"

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

  // Runs SQL past the Database class, as another program or a hand edit would.
  static void raw_exec(const fs::path& path, const std::string& sql) {
    sqlite3* raw = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &raw), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(raw, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(raw);
    sqlite3_close(raw);
  }
  std::vector<fs::path> aside_files() const {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(db_path().parent_path()))
      if (e.path().filename().string().find("tuning.db.broken-") == 0 && e.path().string().find("-wal") == std::string::npos &&
          e.path().string().find("-shm") == std::string::npos)
        out.push_back(e.path());
    return out;
  }
  // A database with n records, closed (its WAL checkpointed into the file).
  void fill(std::int64_t n) {
    Database db(db_path());
    for (std::int64_t i = 1; i <= n; ++i) db.put(record(i, 1.0));
  }
  // Zeroes the first page past the middle of the file that holds records (their JSON),
  // not an index page; false when there is none.
  bool zero_a_record_page() const {
    std::fstream f(db_path(), std::ios::in | std::ios::out | std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    std::size_t page = bytes.size() / 2 / 4096 * 4096;
    while (page < bytes.size() && bytes.substr(page, 4096).find("template_hash") == std::string::npos) page += 4096;
    if (page >= bytes.size()) return false;
    const std::string zeros(4096, '\0');
    f.clear();
    f.seekp(static_cast<std::streamoff>(page));
    f.write(zeros.data(), 4096);
    return static_cast<bool>(f);
  }
  // Runs `f` in a child process as another user (nobody); returns its exit status.
  static int as_nobody(const std::function<int()>& f) {
    const pid_t pid = fork();
    if (pid == 0) {
      if (setgid(65534) != 0 || setuid(65534) != 0) _exit(90);
      _exit(f());
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 99;
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
  const auto r = db.get("NVIDIA H100|sm_90|132sm|81559MiB|50MiB", "transpose", "", "f32", {8192, 2048}, 4);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->config, record(8192, 40.0).config);
  EXPECT_DOUBLE_EQ(r->median_us, 40.0);
  EXPECT_EQ(r->to_json(), record(8192, 40.0).to_json());
  EXPECT_FALSE(db.get(r->device_key, "transpose", "", "f32", {8192, 2048}, 1));  // other alignment class
  EXPECT_FALSE(db.get(r->device_key, "transpose", "", "f16", {8192, 2048}, 4));
  EXPECT_EQ(db.find(r->device_key, "transpose", "", "f32").size(), 1u);
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

// A newer ktune's database is healthy: an error, never set aside. A version that is not
// a number proves the file is not ktune's.
TEST_F(DatabaseTest, NewerSchemaIsAnErrorAndBadVersionIsSetAside) {
  {
    Database db(db_path());
    db.put(record(1, 1.0));
  }
  raw_exec(db_path(), "UPDATE meta SET value='99' WHERE key='schema_version'");
  const std::string e = error_of([&] { Database db(db_path()); });
  EXPECT_NE(e.find("schema version 99"), std::string::npos) << e;
  EXPECT_NE(e.find("newer ktune"), std::string::npos) << e;
  EXPECT_EQ(aside_files().size(), 0u);
  raw_exec(db_path(), "UPDATE meta SET value='abc' WHERE key='schema_version'");
  Database db(db_path());
  ASSERT_TRUE(db.recovered_from());
  EXPECT_NE(db.recovered_from()->find("not a number"), std::string::npos) << *db.recovered_from();
  EXPECT_EQ(db.all().size(), 1u);  // its record was salvaged
}

// The golden database was written by ktune at schema 1 (commit 127da01, `ktune cache
// import tests/data/schema1/records.json`, plus one stored binary); see
// tests/data/schema1/README.md.
class MigrationTest : public DatabaseTest {
 protected:
  fs::path golden_copy(const std::string& name = "tuning.db", const char* schema = "schema1") const {
    const fs::path path = db_path().parent_path() / name;
    create_private_directory(path.parent_path());
    fs::copy_file(fs::path(KTUNE_TEST_DATA_DIR) / schema / "tuning.db", path);
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
#ifdef KTUNE_HAS_GEMM  // the gemm folder declares what its records of schemas 1 and 2 left implied
  static constexpr const char* k_gemm_nn = "nn";
  static constexpr const char* k_gemm_unit = "GFLOP/s";
#else  // a build without gemm reads them as any family's: no variant, GB/s
  static constexpr const char* k_gemm_nn = "";
  static constexpr const char* k_gemm_unit = "GB/s";
#endif
  // The golden file's three records, read through any schema.
  static void expect_golden_records(const Database& db) {
    const auto records = db.all();
    ASSERT_EQ(records.size(), 3u);
    const auto& eltwise = records[0];
    const auto& gemm = records[1];
    const auto& transpose = records[2];
    EXPECT_EQ(eltwise.family, "elementwise");  // schema 1 and 2: "elementwise:o0=(i0+i1)"
    EXPECT_EQ(eltwise.variant, "o0=(i0+i1)");
    EXPECT_EQ(eltwise.rate_unit, "GB/s");
    EXPECT_EQ(gemm.family, "gemm");
    EXPECT_EQ(gemm.variant, k_gemm_nn);  // schema 1 and 2 stored the nn layout as plain "gemm"
    EXPECT_EQ(gemm.shape, (std::vector<std::int64_t>{4096, 4096, 4096}));
    EXPECT_DOUBLE_EQ(gemm.rate, 45447.9);
    EXPECT_EQ(gemm.rate_unit, k_gemm_unit);  // schema 1 called it gbps
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
  EXPECT_FALSE(stored.contains("gbps")) << stored;  // rewritten in the current form
  EXPECT_EQ(stored.at("variant"), k_gemm_nn);
  EXPECT_EQ(stored.at("rate_unit"), k_gemm_unit);
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

// The golden schema-2 file (tests/data/schema2, written by 4aed0b3) kept family and
// variant in one key; schema 3 has a column for each, and lookups find the records
// under the split keys.
TEST_F(MigrationTest, GoldenSchema2DatabaseSplitsFamilyAndVariant) {
  const fs::path path = golden_copy("tuning.db", "schema2");
  const auto expect_split = [](const Database& db) {
    const auto records = db.all();
    ASSERT_EQ(records.size(), 6u);
    std::set<std::string> keys;
    for (const auto& r : records) {
      EXPECT_EQ(r.family.find(':'), std::string::npos) << r.family;
      keys.insert(r.family + "|" + r.variant);
    }
    EXPECT_EQ(keys, (std::set<std::string>{"elementwise|o0=(i0+i1)", "gemm|" + std::string(k_gemm_nn), "gemm|nt",
                                           "reduce|sum", "reduce_rows|max", "transpose|"}));
    const std::string dev = records.front().device_key;
    EXPECT_TRUE(db.get(dev, "reduce", "sum", "f32", {4096}, 4));
    EXPECT_TRUE(db.get(dev, "gemm", "nt", "f32", {64, 64, 64}, 4));
    EXPECT_EQ(db.find(dev, "gemm", k_gemm_nn, "f32").size(), 1u);
    EXPECT_FALSE(db.get(dev, "reduce:sum", "", "f32", {4096}, 4));  // the old key is gone
  };
  {
    Database read_only(path, /*read_only=*/true);  // read as it is: nothing written
    expect_split(read_only);
    EXPECT_EQ(stored_schema(path), "2");
  }
  {
    Database db(path);
    ASSERT_TRUE(db.migrated_backup());
    EXPECT_EQ(*db.migrated_backup(), fs::path(path.string() + ".schema2"));
    expect_split(db);
  }
  EXPECT_EQ(stored_schema(path), "3");
  EXPECT_EQ(raw_query(path, "SELECT variant FROM results WHERE family='reduce_rows'"), "max");
  EXPECT_EQ(stored_schema(path.string() + ".schema2"), "2");
  // A schema-2 export imports into schema 3 the same way.
  std::ifstream in(fs::path(KTUNE_TEST_DATA_DIR) / "schema2" / "records.json");
  Database fresh(path.parent_path() / "fresh.db");
  EXPECT_EQ(fresh.import_json(nlohmann::json::parse(in)), 6u);
  expect_split(fresh);
}

TEST_F(MigrationTest, ProcessesOpeningAtOnceMigrateOnce) {
  const fs::path path = golden_copy();
  std::vector<std::thread> openers;
  std::atomic<int> migrated{0};
  std::mutex mutex;
  std::vector<std::string> failures;
  for (int i = 0; i < 6; ++i)
    openers.emplace_back([&] {
      std::string failure;
      try {
        Database db(path);
        if (db.migrated_backup()) ++migrated;
        if (db.recovered_from()) failure = "set aside as unreadable";
        else if (db.all().size() != 3) failure = std::to_string(db.all().size()) + " records";
      } catch (const std::exception& e) {
        failure = e.what();
      }
      const std::lock_guard<std::mutex> lock(mutex);
      if (!failure.empty()) failures.push_back(failure);
    });
  for (auto& t : openers) t.join();
  EXPECT_TRUE(failures.empty()) << failures.size() << " openers failed, first: " << failures.front();
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
  {
    Database garbage(db_path(), true);  // damage is reported, nothing is touched
    ASSERT_TRUE(garbage.recovered_from());
    EXPECT_NE(garbage.recovered_from()->find("left as it is"), std::string::npos) << *garbage.recovered_from();
    EXPECT_TRUE(garbage.all().empty());
    EXPECT_THROW(garbage.put(record(6, 1.0)), Error);
  }
  EXPECT_EQ(fs::file_size(db_path()), 7u);  // not set aside, not changed
  EXPECT_TRUE(aside_files().empty());
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

// Kernel locations: each kernel of a stored program is found under its own key; a
// read-only database reads them and learns none; a file from before they existed (the
// schema-1 golden file, opened read-only, as it is) simply has none.
TEST_F(DatabaseTest, KernelLocations) {
  {
    Database db(db_path());
    EXPECT_FALSE(db.kernel_location("ka"));
    db.put_binary("program", {std::string("\x7f" "ELF two kernels", 15), "_Z1av\n_Z1bv"});
    db.put_kernel_locations("program", {{"ka", "_Z1av"}, {"kb", "_Z1bv"}});
    const auto b = db.kernel_location("kb");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->binary_key, "program");
    EXPECT_EQ(b->entry, "_Z1bv");
    db.put_kernel_locations("other", {{"kb", "_Z1bv"}});  // compiled again elsewhere: the newest wins
    EXPECT_EQ(db.kernel_location("kb")->binary_key, "other");
    EXPECT_EQ(db.kernel_location("ka")->binary_key, "program");
  }
  Database read_only(db_path(), true);
  EXPECT_TRUE(read_only.kernel_location("ka"));
  read_only.put_kernel_locations("third", {{"kc", "_Z1cv"}});
  EXPECT_FALSE(read_only.kernel_location("kc"));
}

TEST_F(MigrationTest, FilesFromBeforeKernelLocationsHaveNone) {
  const fs::path path = golden_copy();
  Database read_only(path, true);
  EXPECT_FALSE(read_only.kernel_location("fixture-binary-key"));
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
    EXPECT_TRUE(db.get(record(999999, 1.0).device_key, "transpose", "", "f32", {999999, 2048}, 4));
  }
}

// Issue 14, case 1: a database another process holds a write lock on is busy, not
// broken: the command fails with the reason and every record stays where it was.
TEST_F(DatabaseTest, LockedDatabaseIsAnErrorNotSetAside) {
  fill(500);
  sqlite3* holder = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &holder), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(holder, "BEGIN IMMEDIATE", nullptr, nullptr, nullptr), SQLITE_OK);
  setenv("KTUNE_DB_BUSY_MS", "200", 1);
  const std::string e = error_of([&] { Database db(db_path()); });
  unsetenv("KTUNE_DB_BUSY_MS");
  sqlite3_exec(holder, "ROLLBACK", nullptr, nullptr, nullptr);
  sqlite3_close(holder);
  EXPECT_NE(e.find("locked"), std::string::npos) << e;
  EXPECT_NE(e.find("left as it is"), std::string::npos) << e;
  EXPECT_TRUE(aside_files().empty());
  EXPECT_EQ(Database(db_path(), true).all().size(), 500u);
}

// Case 1: a full disk (here a file-size limit: writes fail with EFBIG, as with ENOSPC)
// is an error; nothing is set aside, and a new file that could not be set up is removed.
TEST_F(DatabaseTest, FullDiskIsAnErrorNotSetAside) {
  fill(50);
  const auto size = fs::file_size(db_path());
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    rlimit limit{static_cast<rlim_t>(size), static_cast<rlim_t>(size)};
    setrlimit(RLIMIT_FSIZE, &limit);
    int code = 0;
    try {
      Database db(db_path());
      for (int i = 1000; i < 3000; ++i) db.put(record(i, 1.0));
      code = 1;  // all of it fit: the limit did not bite
    } catch (const Error&) {
    }
    limit = {0, 0};
    setrlimit(RLIMIT_FSIZE, &limit);
    try {
      Database fresh(db_path().parent_path() / "new.db");
      fresh.put(record(1, 1.0));
      code |= 2;
    } catch (const Error&) {
    }
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_TRUE(aside_files().empty());
  EXPECT_GE(Database(db_path(), true).all().size(), 50u);
  EXPECT_FALSE(fs::exists(db_path().parent_path() / "new.db"));  // not left behind empty
}

// Issue 51 (13): a shipping copy that hits a full disk left a 0-byte file under its name,
// which blocked the retry ("exists"). Now nothing is left under that name, and the retry
// with room succeeds; a database's -wal, -shm or -journal name is refused.
TEST_F(DatabaseTest, ShippingCopyOnAFullDiskLeavesNothingBehind) {
  fill(200);
  const fs::path ship = db_path().parent_path() / "ship.db";
  const pid_t pid = fork();
  if (pid == 0) {
    signal(SIGXFSZ, SIG_IGN);
    rlimit limit{4096, 4096};
    setrlimit(RLIMIT_FSIZE, &limit);
    int code = 0;
    try {
      Database(db_path(), true).write_shipping_copy(ship);
      code = 1;  // it fit: the limit did not bite
    } catch (const Error&) {
    }
    _exit(code);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  EXPECT_FALSE(fs::exists(ship));
  for (const auto& entry : fs::directory_iterator(ship.parent_path()))
    EXPECT_EQ(entry.path().filename().string().find("ship.db"), std::string::npos) << entry.path();
  Database(db_path(), true).write_shipping_copy(ship);
  EXPECT_EQ(Database(ship, true).all().size(), 200u);
  for (const char* suffix : {"-wal", "-shm", "-journal"})
    EXPECT_THROW(Database(db_path(), true).write_shipping_copy(db_path().string() + suffix), DatabaseError) << suffix;
}

// Case 1: a directory where SQLite wants its -shm file, and a cache "directory" that is
// a file: errors naming the problem, files left as they are.
TEST_F(DatabaseTest, UnopenableDatabaseIsAnErrorNotSetAside) {
  fill(5);
  fs::create_directory(db_path().string() + "-shm");
  const std::string e = error_of([&] { Database db(db_path()); });
  EXPECT_NE(e.find("left as it is"), std::string::npos) << e;
  EXPECT_TRUE(aside_files().empty());
  fs::remove(db_path().string() + "-shm");
  EXPECT_EQ(Database(db_path(), true).all().size(), 5u);
  std::ofstream(dir_ / "plainfile") << "x";
  const std::string f = error_of([&] { Database db(dir_ / "plainfile" / "tuning.db"); });
  EXPECT_NE(f.find("plainfile"), std::string::npos) << f;
  EXPECT_EQ(fs::file_size(dir_ / "plainfile"), 1u);
}

// Case 1: a damaged file in a directory this user cannot write: the error says it could
// not be set aside, and nothing was moved or created.
TEST_F(DatabaseTest, DamagedFileThatCannotBeSetAsideIsLeftAsItIs) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to drop to another user";
  fs::create_directories(db_path().parent_path());
  std::ofstream(db_path()) << "not a database";
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::others_exec, fs::perm_options::replace);
  fs::permissions(db_path().parent_path(), fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                                               fs::perms::others_read | fs::perms::others_exec,
                  fs::perm_options::replace);
  fs::permissions(db_path(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::others_read, fs::perm_options::replace);
  const int status = as_nobody([&] {
    try {
      Database db(db_path());
      return 2;
    } catch (const Error& e) {
      return std::string(e.what()).find("could not be set aside") != std::string::npos ? 0 : 3;
    }
  });
  EXPECT_EQ(status, 0);
  EXPECT_TRUE(aside_files().empty());
  EXPECT_EQ(fs::file_size(db_path()), 14u);
}

// Case 2 and 3: one zeroed page; eight processes open it at once. Exactly one sets it
// aside (under a name of its own), the readable records are copied back, and no
// set-aside file is overwritten.
TEST_F(DatabaseTest, ConcurrentOpenersOfADamagedFileSalvageOnce) {
  fill(500);
  ASSERT_TRUE(zero_a_record_page());
  std::vector<pid_t> children;
  for (int i = 0; i < 8; ++i) {
    const pid_t pid = fork();
    if (pid == 0) {
      try {
        Database db(db_path());
        db.all();
        _exit(0);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "opener %d: %s\n", i, e.what());  // why, when this fails
        _exit(1);
      }
    }
    children.push_back(pid);
  }
  for (pid_t pid : children) {
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  ASSERT_EQ(aside_files().size(), 1u);
  // Read-only, the damaged file itself serves its readable records (case 3: list and
  // export no longer refuse it).
  const auto aside_records = Database(aside_files().front(), true).all().size();
  const std::size_t kept = Database(db_path(), true).all().size();
  EXPECT_EQ(aside_records, kept);
  EXPECT_GE(kept, 450u);  // a page holds a few dozen records
  EXPECT_LT(kept, 500u);
  EXPECT_EQ(salvage_records(aside_files().front()).records.size(), kept);  // the damaged file is intact
}

// Fault injection: 1000 random corruptions (one page overwritten with random bytes or
// zeros, or the file cut) of a 300-record database. Opening never crashes or hangs;
// when the file is set aside, every record salvage can read is back in the fresh
// database and the damaged file is kept; otherwise every readable record is there.
TEST_F(DatabaseTest, RandomPageCorruptionsNeverLoseReadableRecords) {
  fill(300);
  const fs::path healthy = dir_ / "healthy.db";
  fs::copy_file(db_path(), healthy);
  const auto pages = fs::file_size(healthy) / 4096;
  std::uint64_t state = 12345;
  const auto next = [&] { return state = state * 6364136223846793005ull + 1442695040888963407ull; };
  std::size_t set_aside = 0, opened = 0, salvaged_total = 0;
  // 400 trials: 18 s on a CI-like machine (1000 took 43 s); the fuzz test mutates further.
  constexpr int trials = 400;
  for (int trial = 0; trial < trials; ++trial) {
    fs::remove_all(db_path().parent_path());
    fs::create_directories(db_path().parent_path());
    fs::permissions(db_path().parent_path(), fs::perms::owner_all, fs::perm_options::replace);
    fs::copy_file(healthy, db_path());
    const auto page = 1 + next() % (pages - 1);  // page 0 is the header: a damaged header is another test
    const int kind = static_cast<int>(next() % 3);
    if (kind == 2) {
      fs::resize_file(db_path(), page * 4096);
    } else {
      std::fstream f(db_path(), std::ios::in | std::ios::out | std::ios::binary);
      std::string bytes(4096, '\0');
      if (kind == 0)
        for (auto& b : bytes) b = static_cast<char>(next() >> 56);
      f.seekp(static_cast<std::streamoff>(page * 4096));
      f.write(bytes.data(), 4096);
    }
    const std::size_t readable = salvage_records(db_path()).records.size();
    std::size_t now = 0;
    bool aside = false;
    try {
      Database db(db_path());
      now = db.all().size();
      aside = db.recovered_from().has_value();
    } catch (const Error& e) {
      ADD_FAILURE() << "trial " << trial << ": " << e.what();
      continue;
    }
    if (aside) {
      ++set_aside;
      salvaged_total += now;
      ASSERT_EQ(aside_files().size(), 1u) << trial;
      EXPECT_EQ(salvage_records(aside_files().front()).records.size(), readable) << trial;  // kept as it was
    } else {
      ++opened;
    }
    EXPECT_GE(now, readable) << "trial " << trial << " (page " << page << ", kind " << kind << ")";
  }
  std::printf("%d corruptions: %zu set aside (%.1f records kept of 300 on average), %zu opened as they were\n", trials,
              set_aside, set_aside ? static_cast<double>(salvaged_total) / static_cast<double>(set_aside) : 0.0, opened);
  EXPECT_GT(set_aside, static_cast<std::size_t>(trials / 10));
}

// Case 3: records carry a checksum; a byte changed in a record's text, or a key column
// that no longer matches its record, is skipped and reported, the others are read.
TEST_F(DatabaseTest, EditedRecordsFailTheirChecksum) {
  fill(3);
  raw_exec(db_path(), "UPDATE results SET record=replace(record, '\"xor\"', '\"qor\"') WHERE shape='1x2048'");
  raw_exec(db_path(), "UPDATE results SET shape='9x2048' WHERE shape='2x2048'");
  Database db(db_path());
  const auto all = db.all();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].shape[0], 3);
  EXPECT_THROW(TuningRecord::from_stored(R"({"checksum": "0000000000000000", "family": "transpose"})"), Error);
}

// Case 5: nonsense is rejected record by record with a reason; nothing is stored; an
// invalid stored time (from before validation) never blocks a genuine record.
TEST_F(DatabaseTest, ImportRejectsNonsenseWithReasons) {
  Database db(db_path());
  const auto doc_with = [&](const std::function<void(nlohmann::json&)>& edit) {
    nlohmann::json r = record(7, 3.0).to_json();
    edit(r);
    return nlohmann::json{{"ktune_schema", 2}, {"records", {record(8, 3.0).to_json(), r}}};
  };
  const std::vector<std::pair<std::function<void(nlohmann::json&)>, std::string>> cases = {
      {[](nlohmann::json& r) { r["median_us"] = -5; }, "not a time a kernel takes"},
      {[](nlohmann::json& r) { r["median_us"] = 0; }, "not a time a kernel takes"},
      // Issue 51: a denormal or absurdly small time beat every real one and hung reports.
      {[](nlohmann::json& r) { r["median_us"] = 5e-324; }, "not a time a kernel takes"},
      {[](nlohmann::json& r) { r["median_us"] = 1e-300; }, "not a time a kernel takes"},
      {[](nlohmann::json& r) { r["median_us"] = 1e300; }, "not a time a kernel takes"},
      {[](nlohmann::json& r) { r["shape"] = nlohmann::json::array(); }, "shape is empty"},
      {[](nlohmann::json& r) { r["shape"] = {0, 0}; }, "outside 1"},
      {[](nlohmann::json& r) { r["shape"] = {-1, 5}; }, "outside 1"},
      {[](nlohmann::json& r) { r["shape"] = {1.5, 2}; }, "must hold integers"},
      {[](nlohmann::json& r) { r["shape"] = {1e300, 2}; }, "must hold integers"},
      {[](nlohmann::json& r) { r["dtype"] = "f99"; }, "unknown dtype"},
      {[](nlohmann::json& r) { r["dtype"] = "f32>f99"; }, "unknown dtype"},
      {[](nlohmann::json& r) { r["dtype"] = ">f16"; }, "unknown dtype"},
      {[](nlohmann::json& r) { r["align"] = 0; }, "power of two"},
      {[](nlohmann::json& r) { r["align"] = -4; }, "power of two"},
      {[](nlohmann::json& r) { r["align"] = std::int64_t{1} << 40; }, "power of two"},
      {[](nlohmann::json& r) { r["config"] = nlohmann::json::object(); }, "config must be"},
      {[](nlohmann::json& r) { r["config"] = "tile_m=64"; }, "config must be"},
      // Schema 3: family and variant are separate; a "family:variant" key with a variant
      // field is no record of any ktune.
      {[](nlohmann::json& r) { r["family"] = "reduce:sum"; }, "the family is one name"},
      {[](nlohmann::json& r) { r["variant"] = 7; }, "malformed tuning record"},
  };
  for (const auto& [edit, reason] : cases) {
    const std::string e = error_of([&] { db.import_json(doc_with(edit)); });
    EXPECT_NE(e.find("record 1: "), std::string::npos) << reason << ": " << e;
    EXPECT_NE(e.find(reason), std::string::npos) << e;
    EXPECT_NE(e.find("nothing stored"), std::string::npos) << e;
  }
  EXPECT_TRUE(db.all().empty());  // all or nothing
  const auto only_transpose = [](const TuningRecord& r) -> std::optional<std::string> {
    if (r.family != "transpose") return "unknown family '" + r.family + "'";
    return std::nullopt;
  };
  EXPECT_NE(error_of([&] { db.import_json(doc_with([](nlohmann::json& r) { r["family"] = "foo"; }), only_transpose); })
                .find("unknown family 'foo'"),
            std::string::npos);
  // A -5 us record that got in before validation does not block a real one.
  db.put(record(9, 4.0));
  raw_exec(db_path(), "UPDATE results SET median_us=-5");
  EXPECT_TRUE(db.put(record(9, 3.0)));
  EXPECT_EQ(db.get(record(9, 3.0).device_key, "transpose", "", "f32", {9, 2048}, 4)->median_us, 3.0);
  // Inputs and outputs of different types (an elementwise cast) are a valid key.
  TuningRecord cast = record(10, 2.0);
  cast.dtype = "f32>f16";
  EXPECT_TRUE(db.put(cast));
}

// Case 8: a database owned by another user is refused; the user's own modes are kept.
TEST_F(DatabaseTest, ForeignOwnerIsRefusedAndModesAreKept) {
  fill(1);
  fs::permissions(db_path(), fs::perms::owner_read, fs::perm_options::replace);
  { Database ro(db_path(), true); }
  EXPECT_EQ(fs::status(db_path()).permissions() & fs::perms::all, fs::perms::owner_read);
  fs::permissions(db_path(), fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
  if (geteuid() != 0) GTEST_SKIP() << "chown to another user needs root";
  ASSERT_EQ(chown(db_path().c_str(), 12345, 12345), 0);
  const std::string e = error_of([&] { Database db(db_path(), true); });
  EXPECT_NE(e.find("belongs to another user"), std::string::npos) << e;
  ASSERT_EQ(chown(db_path().c_str(), 0, 0), 0);
  ASSERT_EQ(chown(db_path().parent_path().c_str(), 12345, 12345), 0);
  EXPECT_NE(error_of([&] { Database db(db_path()); }).find("belongs to another user"), std::string::npos);
}

// Case 4: a shipping copy opens read-only where its user cannot write (a root-owned
// directory, opened as nobody), and so does a WAL-mode file copied without its -shm.
TEST_F(DatabaseTest, ShippedDatabaseOpensWhereNothingCanBeWritten) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to drop to another user";
  fill(20);
  const fs::path ship = dir_ / "ship" / "tuning.db";
  fs::create_directories(ship.parent_path());
  Database(db_path(), true).write_shipping_copy(ship);
  EXPECT_THROW(Database(db_path(), true).write_shipping_copy(ship), Error);  // never over an existing file
  const fs::path wal_copy = dir_ / "ship" / "wal.db";
  fs::copy_file(db_path(), wal_copy);  // still marked WAL, no -shm beside it
  fs::permissions(dir_, fs::perms::owner_all | fs::perms::group_exec | fs::perms::others_exec, fs::perm_options::replace);
  for (const fs::path& p : {ship.parent_path(), ship.parent_path().parent_path()})
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec, fs::perm_options::replace);
  fs::permissions(wal_copy, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read, fs::perm_options::replace);
  for (const fs::path& p : {ship, wal_copy}) {
    const int status = as_nobody([&] {
      try {
        return Database(p, true).all().size() == 20 ? 0 : 2;
      } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 3;
      }
    });
    EXPECT_EQ(status, 0) << p;
  }
  EXPECT_FALSE(fs::exists(ship.string() + "-wal"));
  EXPECT_FALSE(fs::exists(wal_copy.string() + "-shm"));
}

// Issue 51 (11): a damaged database in a directory its reader cannot write was refused
// ("attempt to write a readonly database") instead of served read-only from its salvage.
TEST_F(DatabaseTest, DamagedDatabaseInAReadOnlyDirectoryIsServedFromItsSalvage) {
  if (geteuid() != 0) GTEST_SKIP() << "needs root to drop to another user";
  fill(500);
  ASSERT_TRUE(zero_a_record_page());
  const auto before = fs::file_size(db_path());
  for (const fs::path& p : {db_path().parent_path(), dir_})
    fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec, fs::perm_options::replace);
  fs::permissions(db_path(), fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read | fs::perms::others_read,
                  fs::perm_options::replace);
  const int status = as_nobody([&] {
    try {
      const Database db(db_path(), true);
      const std::size_t n = db.all().size();
      return db.recovered_from() && n >= 450 && n < 500 ? 0 : 2;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "%s\n", e.what());
      return 3;
    }
  });
  EXPECT_EQ(status, 0);
  EXPECT_EQ(fs::file_size(db_path()), before);  // left as it is
  EXPECT_TRUE(aside_files().empty());
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

// Issue 51 (5, 10): a stored record nested 300k deep parsed, and printing it overflowed
// the stack (cache list, export, merge); one without its checksum loaded as if intact.
TEST_F(DatabaseTest, DeepOrUncheckedStoredRecordsAreSkippedAndReported) {
  fill(3);
  nlohmann::json unchecked = nlohmann::json::parse(record(2, 1.0).to_stored());
  unchecked.erase("checksum");
  const std::string deep = "{\"config\": " + std::string(300000, '[') + std::string(300000, ']') + "}";
  sqlite3* raw = nullptr;
  ASSERT_EQ(sqlite3_open(db_path().c_str(), &raw), SQLITE_OK);
  for (const auto& [rowid, text] : {std::pair<int, std::string>{1, deep}, {2, unchecked.dump()}}) {
    sqlite3_stmt* st = nullptr;
    ASSERT_EQ(sqlite3_prepare_v2(raw, "UPDATE results SET record = ? WHERE rowid = ?", -1, &st, nullptr), SQLITE_OK);
    sqlite3_bind_text(st, 1, text.c_str(), -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 2, rowid);
    EXPECT_EQ(sqlite3_step(st), SQLITE_DONE);
    sqlite3_finalize(st);
  }
  sqlite3_close(raw);
  const auto all = Database(db_path(), true).all();
  EXPECT_EQ(all.size(), 1u);
  for (const auto& r : all) EXPECT_FALSE(r.to_json().dump().empty());
  EXPECT_THROW(TuningRecord::from_stored(unchecked.dump()), Error);
  EXPECT_NO_THROW(TuningRecord::from_stored(unchecked.dump(), true));  // a schema-2 record, read by the migration
}

}  // namespace
}  // namespace ktune
