#pragma once
// The tuning database's own pieces (internal to cache/src): SQLite wrappers, the schema,
// and the helpers its files share. database.cpp: reads, writes, import and export;
// tuning_record.cpp: records and their JSON; schema.cpp: tables and migration;
// file_trust.cpp: ownership, modes and paths; open.cpp: opening, salvage and set-aside;
// binaries.cpp: the program store.
#include <ktune/cache/database.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/settings.hpp>
#include <ktune/generator/hash.hpp>
#include <ktune/generator/log.hpp>

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <mutex>
#include <thread>

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ktune {
namespace store {

inline const Log* log() { return logger("ktune.cache"); }


// An SQLite failure with its primary result code, so that opening can tell a damaged
// file (SQLITE_CORRUPT, SQLITE_NOTADB) from a condition of the moment (busy, locked,
// full, I/O, permissions), which never justifies setting a file aside.
struct SqliteError : Error {
  SqliteError(sqlite3* db, const std::string& context)
      : Error("tuning database: " + context + ": " + describe(db)), code(db ? sqlite3_errcode(db) & 0xff : SQLITE_CANTOPEN) {}
  static std::string describe(sqlite3* db) {
    if (!db) return "out of memory";
    std::string m = sqlite3_errmsg(db);
    if (const int e = sqlite3_system_errno(db)) m += std::string(" (") + std::strerror(e) + ")";
    return m;
  }
  bool damage() const { return code == SQLITE_CORRUPT || code == SQLITE_NOTADB; }
  int code;
};

}  // namespace store

struct Database::Handle {
  sqlite3* db = nullptr;
  std::mutex mutex;  // one connection shared by a tuner's compile threads: one call at a time
  ~Handle() { sqlite3_close_v2(db); }

  void exec(const char* sql) const {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) throw store::SqliteError(db, sql);
  }
};

namespace store {

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK) throw SqliteError(db, sql);
  }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  Statement& bind(int i, const std::string& s) {
    sqlite3_bind_text(stmt_, i, s.c_str(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  Statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  Statement& bind(int i, double v) {
    sqlite3_bind_double(stmt_, i, v);
    return *this;
  }
  Statement& bind_blob(int i, const std::string& s) {
    sqlite3_bind_blob(stmt_, i, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
    return *this;
  }
  // Ready to run again with new bindings.
  void reset() {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }
  // True while rows come; throws on errors.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw SqliteError(db_, sqlite3_sql(stmt_));
  }
  std::string text(int i) const {
    const auto* p = sqlite3_column_text(stmt_, i);
    return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, i)))
             : std::string();
  }
  std::string blob(int i) const {
    const auto* p = static_cast<const char*>(sqlite3_column_blob(stmt_, i));
    return p ? std::string(p, static_cast<std::size_t>(sqlite3_column_bytes(stmt_, i))) : std::string();
  }
  std::int64_t int64(int i) const { return sqlite3_column_int64(stmt_, i); }
  double real(int i) const { return sqlite3_column_double(stmt_, i); }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

// Records are stored as their JSON (readable with the sqlite3 shell, export is a copy)
// next to the key columns and the median that `put` compares.
#define KTUNE_RESULTS_TABLE(name)                                                                        \
  "CREATE TABLE IF NOT EXISTS " name "(device_key TEXT NOT NULL, family TEXT NOT NULL, variant TEXT NOT NULL, " \
  "dtype TEXT NOT NULL, shape TEXT NOT NULL, align INTEGER NOT NULL, template_hash TEXT NOT NULL, "            \
  "median_us REAL NOT NULL, record TEXT NOT NULL, PRIMARY KEY(device_key, family, variant, dtype, shape, align));"
constexpr const char* k_schema =
    "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);" KTUNE_RESULTS_TABLE("results")
    "CREATE TABLE IF NOT EXISTS binaries(key TEXT PRIMARY KEY, content_hash TEXT NOT NULL, entry TEXT NOT NULL, "
    "bytes BLOB NOT NULL);"
    // Added without a schema change: earlier ktunes never read it.
    "CREATE TABLE IF NOT EXISTS kernels(key TEXT PRIMARY KEY, binary_key TEXT NOT NULL, entry TEXT NOT NULL);";

inline std::string now_tag() {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count());
}

}  // namespace
namespace store {

namespace fs = std::filesystem;

// What a family's records of earlier schemas left implied (generated from the family
// folders' ktune_family(... LEGACY family|variant|unit)).
struct LegacyFamily {
  std::string family, implied_variant, schema1_rate_unit;
};
const std::vector<LegacyFamily>& legacy_families();
// Schemas 1 and 2 kept family and variant in one key (tuning_record.cpp).
std::pair<std::string, std::string> legacy_key(const std::string& key);

// A database that must not be set aside: it is fine, only this ktune cannot migrate it.
struct MigrationError : Error {
  using Error::Error;
};
// The stored schema version: nullopt when there is none, -1 when it is not a positive
// number (schema.cpp).
std::optional<int> schema_version(sqlite3* db);
bool readable_version(std::optional<int> version);
std::string version_problem(std::optional<int> version);

// Refuses a database or directory that another user controls (file_trust.cpp).
void check_trust(const fs::path& path);
// Creates a missing database file owner-only; true when it did.
bool create_private_file(const fs::path& path);
std::pair<dev_t, ino_t> file_identity(const fs::path& path);
// Renames without ever replacing an existing file; false with the reason (open.cpp).
bool rename_no_replace(const fs::path& from, const fs::path& to, std::string* why);
// The intact records on the file's table leaf pages, found without SQLite's b-tree
// (page_scan.cpp): salvage's answer to a damaged root or interior page.
std::vector<TuningRecord> scan_leaf_pages(const fs::path& path);
// An SQLite URI of a path (for ?immutable=1): '%', '?' and '#' escaped.
std::string file_uri(const fs::path& path, const char* query);

}  // namespace store
}  // namespace ktune
