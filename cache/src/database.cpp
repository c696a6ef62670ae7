#include <ktune/cache/database.hpp>
#include <ktune/generator/settings.hpp>

#include <ktune/error.hpp>
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

namespace ktune {
namespace fs = std::filesystem;

std::string DeviceFingerprint::key() const {
  return name + "|sm_" + std::to_string(cc_major) + std::to_string(cc_minor) + "|" + std::to_string(sm_count) +
         "sm|" + std::to_string(memory_bytes >> 20) + "MiB|" + std::to_string(l2_bytes >> 20) + "MiB";
}

std::string shape_to_string(const std::vector<std::int64_t>& shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

std::optional<std::vector<std::int64_t>> parse_shape(std::string_view text, char separator) {
  std::vector<std::int64_t> shape;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t x = std::min(text.find(separator, pos), text.size());
    const std::string_view part = text.substr(pos, x - pos);
    if (part.empty() || part.size() > 18) return std::nullopt;
    std::int64_t v = 0;
    for (char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    if (v <= 0) return std::nullopt;
    shape.push_back(v);
    pos = x + 1;
  }
  return shape;
}

nlohmann::json TuningRecord::to_json() const {
  return {{"device_key", device_key},   {"device_name", device_name},
          {"device_uuid", device_uuid}, {"family", family},
          {"variant", variant},
          {"dtype", dtype},             {"shape", shape},
          {"align", align},             {"config", config},
          {"template_hash", template_hash}, {"median_us", median_us},
          {"spread_pct", spread_pct},   {"rate", rate}, {"rate_unit", rate_unit},
          {"ceiling_fraction", ceiling_fraction}, {"tool_version", tool_version},
          {"nvrtc_version", nvrtc_version}, {"driver_version", driver_version},
          {"tuned_at", tuned_at}};
}

namespace {

// JSON integers only: 1.5 or 1e300 are errors, not silently 1 or INT64_MIN.
std::vector<std::int64_t> strict_integers(const nlohmann::json& j, const char* what) {
  if (!j.is_array()) throw Error(std::string(what) + " must be an array of integers, not " + j.dump().substr(0, 80));
  std::vector<std::int64_t> out;
  for (const auto& v : j) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() <= std::uint64_t{std::numeric_limits<std::int64_t>::max()})
      out.push_back(static_cast<std::int64_t>(v.get<std::uint64_t>()));
    else if (v.is_number_integer() && !v.is_number_unsigned())
      out.push_back(v.get<std::int64_t>());
    else
      throw Error(std::string(what) + " must hold integers, not " + v.dump().substr(0, 80));
  }
  return out;
}

}  // namespace

nlohmann::json parse_export(std::istream& in, const std::string& name) {
  constexpr std::size_t max_bytes = std::size_t{1} << 30;
  constexpr int max_depth = 16;  // an export nests 4 deep
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) throw Error(name + " is larger than 1 GiB; not a ktune export");
  }
  bool too_deep = false;
  nlohmann::json doc = nlohmann::json::parse(
      text,
      [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth > max_depth) too_deep = true;
        return !too_deep;
      },
      false);
  if (too_deep) throw Error(name + " nests deeper than " + std::to_string(max_depth) + " levels; not a ktune export");
  if (doc.is_discarded()) throw Error(name + " is not JSON");
  return doc;
}

std::optional<std::string> TuningRecord::invalid() const {
  const auto positive_finite = [](double v) { return std::isfinite(v) && v > 0; };
  if (device_key.empty() || family.empty() || dtype.empty() || template_hash.empty() ||
      family.find(':') != std::string::npos)
    return std::string("device_key, family, dtype and template_hash must not be empty, and the family is one name "
                       "(the variant is its own field)");
  // "f32", or "f32>f16" where outputs differ from inputs (an elementwise cast)
  const auto arrow = dtype.find('>');
  if (!parse_dtype(dtype.substr(0, arrow)) || (arrow != std::string::npos && !parse_dtype(dtype.substr(arrow + 1))))
    return "unknown dtype '" + dtype + "' (known: " + std::string(dtype_names()) + ", or IN>OUT of two of them)";
  if (shape.empty()) return std::string("shape is empty");
  for (auto d : shape)
    if (d < 1 || d > std::numeric_limits<std::int32_t>::max())
      return "shape " + nlohmann::json(shape).dump() + " has a size outside 1 .. 2^31-1";
  if (align < 1 || align > 16 || (align & (align - 1)) != 0)
    return "align " + std::to_string(align) + " is not a power of two from 1 to 16";
  if (!positive_finite(median_us)) return "median_us " + nlohmann::json(median_us).dump() + " is not a positive time";
  if (!std::isfinite(spread_pct) || spread_pct < 0 || !std::isfinite(rate) || rate < 0 || !std::isfinite(ceiling_fraction) ||
      ceiling_fraction < 0)
    return std::string("spread_pct, rate and ceiling_fraction must be finite and not negative");
  if (!config.is_object() || config.empty()) return "config must be a non-empty object, not " + config.dump().substr(0, 80);
  return std::nullopt;
}

std::string TuningRecord::to_stored() const {
  nlohmann::json j = to_json();
  j["checksum"] = hex64(fnv1a64(j.dump()));
  return j.dump();
}

TuningRecord TuningRecord::from_stored(const std::string& text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
  if (j.is_discarded() || !j.is_object()) throw Error("stored tuning record is not a JSON object");
  if (j.contains("checksum")) {
    const nlohmann::json sum = j["checksum"];
    j.erase("checksum");
    if (sum != hex64(fnv1a64(j.dump())))
      throw Error("stored tuning record fails its checksum (edited outside ktune?): " + j.dump().substr(0, 200));
  }
  return from_json(j);
}

namespace {

// Schemas 1 and 2 kept family and variant in one key, "family:variant" ("reduce:sum",
// "elementwise:<expr>"), except GEMM's nn layout, stored as plain "gemm" before layouts
// existed. This reads those files and exports; it is history, no family's logic.
std::pair<std::string, std::string> legacy_key(const std::string& key) {
  const std::size_t colon = key.find(':');
  if (colon != std::string::npos) return {key.substr(0, colon), key.substr(colon + 1)};
  static const std::map<std::string, std::string> implied = {{"gemm", "nn"}};
  const auto it = implied.find(key);
  return {key, it == implied.end() ? "" : it->second};
}

}  // namespace

TuningRecord TuningRecord::from_json(const nlohmann::json& j) {
  try {
    TuningRecord r;
    r.device_key = j.at("device_key");
    r.device_name = j.value("device_name", "");
    r.device_uuid = j.value("device_uuid", "");
    r.family = j.at("family");
    if (j.contains("variant"))
      r.variant = j.at("variant");
    else  // schema 1 and 2
      std::tie(r.family, r.variant) = legacy_key(r.family);
    r.dtype = j.at("dtype");
    r.shape = strict_integers(j.at("shape"), "shape");
    r.align = strict_integers(nlohmann::json::array({j.at("align")}), "align").front();
    r.config = j.at("config");
    r.template_hash = j.at("template_hash");
    r.median_us = j.at("median_us");
    r.spread_pct = j.value("spread_pct", 0.0);
    if (j.contains("rate")) {
      r.rate = j.at("rate");
      r.rate_unit = j.at("rate_unit");
    } else {  // schema 1
      r.rate = j.value("gbps", 0.0);
      r.rate_unit = r.shape.size() == 3 ? "GFLOP/s" : "GB/s";  // GEMM, the only 3-d problem then
    }
    r.ceiling_fraction = j.value("ceiling_fraction", 0.0);
    r.tool_version = j.value("tool_version", "");
    r.nvrtc_version = j.value("nvrtc_version", "");
    r.driver_version = j.value("driver_version", "");
    r.tuned_at = j.value("tuned_at", "");
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed tuning record: ") + e.what());
  } catch (const Error& e) {
    throw Error(std::string("malformed tuning record: ") + e.what());
  }
}

namespace {

const Log* log() { return logger("ktune.cache"); }

}  // namespace

namespace {

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

}  // namespace

struct Database::Handle {
  sqlite3* db = nullptr;
  std::mutex mutex;  // one connection shared by a tuner's compile threads: one call at a time
  ~Handle() { sqlite3_close_v2(db); }

  void exec(const char* sql) const {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) throw SqliteError(db, sql);
  }
};

namespace {

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

std::string now_tag() {
  return std::to_string(std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count());
}

}  // namespace

void create_private_directory(const fs::path& dir) {
  if (dir.empty() || fs::exists(dir)) return;
  create_private_directory(dir.parent_path());
  fs::create_directory(dir);
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
}

namespace {

// Group- or world-writable: someone else could plant a binary.
bool writable_by_others(const fs::path& p) {
  std::error_code ec;
  const auto perms = fs::status(p, ec).permissions();
  return !ec && (perms & (fs::perms::group_write | fs::perms::others_write)) != fs::perms::none;
}

}  // namespace

namespace {

// A database that must not be set aside: it is fine, only this ktune cannot migrate it.
struct MigrationError : Error {
  using Error::Error;
};

// The stored schema version: nullopt when there is none, -1 when it is not a positive
// number.
std::optional<int> schema_version(sqlite3* db) {
  Statement tables(db, "SELECT count(*) FROM sqlite_master WHERE name='meta'");
  tables.step();
  if (tables.int64(0) == 0) return std::nullopt;  // a new file: no tables yet
  Statement version(db, "SELECT value FROM meta WHERE key = 'schema_version'");
  if (!version.step()) return std::nullopt;
  const std::string text = version.text(0);
  if (text.empty() || text.size() > 6 || text.find_first_not_of("0123456789") != std::string::npos) return -1;
  const int v = std::stoi(text);
  return v >= 1 ? v : -1;
}

bool readable_version(std::optional<int> version) {
  return version && *version >= 1 && *version <= Database::k_schema_version;
}

std::string version_problem(std::optional<int> version) {
  if (!version) return "no schema version";
  return "schema version " + (*version < 0 ? std::string("(not a number)") : std::to_string(*version)) +
         ", this ktune reads 1 to " + std::to_string(Database::k_schema_version);
}

// Schemas 1 and 2 -> 3: the results table is rebuilt with family and variant in
// columns of their own, each record rewritten by from_stored's reading of the older
// ones (schema 1: "gbps" for "rate"; 1 and 2: "family:variant" keys). A row that cannot
// be read is copied as it is, under its old key split the same way (reads skip and
// report it, as before, and `cache recover` sees it).
void migrate_to_3(sqlite3* db) {
  const auto exec = [&](const char* sql) {
    if (sqlite3_exec(db, sql, nullptr, nullptr, nullptr) != SQLITE_OK) throw SqliteError(db, sql);
  };
  exec(KTUNE_RESULTS_TABLE("results_3"));
  {
    Statement q(db, "SELECT device_key, family, dtype, shape, align, template_hash, median_us, record FROM results");
    while (q.step()) {
      Statement ins(db, "INSERT OR REPLACE INTO results_3 VALUES(?,?,?,?,?,?,?,?,?)");
      try {
        const TuningRecord r = TuningRecord::from_stored(q.text(7));
        ins.bind(2, r.family).bind(3, r.variant).bind(9, r.to_stored());
      } catch (const std::exception& e) {
        log()->warn("schema migration keeps an unreadable tuning record as it is: {}", e.what());
        const auto [family, variant] = legacy_key(q.text(1));
        ins.bind(2, family).bind(3, variant).bind(9, q.text(7));
      }
      ins.bind(1, q.text(0)).bind(4, q.text(2)).bind(5, q.text(3)).bind(6, q.int64(4)).bind(7, q.text(5));
      ins.bind(8, q.real(6));
      ins.step();
    }
  }
  exec("DROP TABLE results");
  exec("ALTER TABLE results_3 RENAME TO results");
}

}  // namespace

// Creates the tables of a new file, or brings an earlier schema up to this one. An
// earlier file is first copied aside (VACUUM INTO: a consistent snapshot even while
// others write); the migration itself is one transaction, so a crash leaves either
// schema, never a mix. Returns what is wrong with a file this ktune cannot use.
std::optional<std::string> Database::create_or_migrate(Handle& db, const fs::path& path) {
  // nullopt: a new file (no version yet).
  if (const auto v = schema_version(db.db); readable_version(v) && *v < k_schema_version) {
    const fs::path backup = path.string() + ".schema" + std::to_string(*v);
    // Written under a private name and renamed: a crash mid-copy leaves no half backup.
    const fs::path partial = backup.string() + ".partial-" + std::to_string(getpid()) + "-" +
                             std::to_string(reinterpret_cast<std::uintptr_t>(db.db));  // one per connection
    std::error_code ec;
    std::string why;
    try {
      if (!fs::exists(backup)) {
        Statement copy(db.db, "VACUUM INTO ?");
        copy.bind(1, partial.string());
        copy.step();
        fs::permissions(partial, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace, ec);
        if (!fs::exists(backup)) fs::rename(partial, backup, ec);  // else another process was first
      }
    } catch (const Error& e) {
      why = std::string(": ") + e.what();
    }
    fs::remove(partial, ec);
    if (!fs::exists(backup))
      throw MigrationError("tuning database " + path.string() + " has schema " + std::to_string(*v) +
                           " and could not be copied to " + backup.string() + " before migrating it (left as it is)" +
                           why);
    migrated_backup_ = backup;
  }
  db.exec("BEGIN IMMEDIATE");
  try {
    db.exec(k_schema);
    const std::optional<int> v = schema_version(db.db);  // again: another process may have migrated meanwhile
    if (!v) {
      db.exec(("INSERT INTO meta VALUES('schema_version', '" + std::to_string(k_schema_version) + "')").c_str());
    } else if (!readable_version(v)) {
      db.exec("ROLLBACK");
      return version_problem(v);
    } else if (*v < k_schema_version) {
      migrate_to_3(db.db);
      db.exec(("UPDATE meta SET value='" + std::to_string(k_schema_version) + "' WHERE key='schema_version'").c_str());
      log()->warn("tuning database {} migrated from schema {} to {}; the schema-{} file is kept as {}", path.string(),
                  *v, k_schema_version, *v, migrated_backup_ ? migrated_backup_->string() : "?");
    } else {
      migrated_backup_.reset();  // someone else migrated it first
    }
    db.exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db.db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
  return std::nullopt;
}

fs::path Database::default_dir() {
  if (const std::string d = settings::cache_dir(); !d.empty()) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "ktune";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "ktune";
  return fs::temp_directory_path() / "ktune";
}

namespace {

// Refuses a database or directory that another user controls (as ssh does with keys):
// a stored CUBIN is code that runs on the GPU. Root-owned files are trusted (a shipped,
// installed database).
void check_trust(const fs::path& path) {
  for (const fs::path& p : {path, path.parent_path().empty() ? fs::path(".") : path.parent_path()}) {
    struct stat st {};
    if (::stat(p.c_str(), &st) != 0) continue;
    if (writable_by_others(p))
      throw DatabaseError(p.string(), "writable by other users",
                          "tuning database: " + p.string() +
                              " is writable by other users; refusing to load code from it (chmod go-w " + p.string() + ")");
    if (st.st_uid != ::geteuid() && st.st_uid != 0)
      throw DatabaseError(p.string(), "belongs to another user",
                          "tuning database: " + p.string() + " belongs to another user (uid " + std::to_string(st.st_uid) +
                              "); refusing to load code from it (set KTUNE_CACHE_DIR to a directory of your own)");
  }
}

// Creates a missing database file owner-only (SQLite would make it 0644); true when it
// did. An existing file keeps its owner's modes.
bool create_private_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  ::close(fd);
  return true;
}

std::pair<dev_t, ino_t> file_identity(const fs::path& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return {0, 0};
  return {st.st_dev, st.st_ino};
}

// An SQLite URI of a path (for ?immutable=1): '%', '?' and '#' escaped.
std::string file_uri(const fs::path& path, const char* query) {
  std::string uri = "file:";
  for (char c : fs::absolute(path).string()) {
    if (c == '%' || c == '?' || c == '#') {
      char hex[4];
      std::snprintf(hex, sizeof hex, "%%%02X", static_cast<unsigned char>(c));
      uri += hex;
    } else {
      uri += c;
    }
  }
  return uri + "?" + query;
}

// How long to wait for another process's write before failing with "locked":
// $KTUNE_DB_BUSY_MS, default 30 s.
int busy_timeout_ms() {
  const std::string v = settings::db_busy_ms();
  if (v.empty()) return 30000;
  char* end = nullptr;
  const long ms = std::strtol(v.c_str(), &end, 10);
  if (*end || ms < 0 || ms > 86400000) throw Error("KTUNE_DB_BUSY_MS must be milliseconds, not '" + v + "'");
  return static_cast<int>(ms);
}

// Switching a rollback-journal file to WAL takes an exclusive lock, and SQLite answers
// BUSY without calling the busy handler where waiting could deadlock (several processes
// opening an old file at once, each holding a shared lock): try again until the busy
// timeout, as the handler would.
void enable_wal(sqlite3* db) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(busy_timeout_ms());
  for (;;) {
    const int rc = sqlite3_exec(db, "PRAGMA journal_mode=WAL", nullptr, nullptr, nullptr) & 0xff;
    if (rc == SQLITE_OK) return;
    if (rc != SQLITE_BUSY || std::chrono::steady_clock::now() >= deadline) throw SqliteError(db, "PRAGMA journal_mode=WAL");
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

// A name for a set-aside file that no other process or earlier set-aside has taken.
fs::path claim_aside_name(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  return path.string() + ".broken-" + now_tag() + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
}

// Renames without ever replacing an existing file.
bool rename_no_replace(const fs::path& from, const fs::path& to, std::string* why) {
  if (::renameat2(AT_FDCWD, from.c_str(), AT_FDCWD, to.c_str(), RENAME_NOREPLACE) == 0) return true;
  *why = std::strerror(errno);
  return false;
}

// Holds an exclusive lock on `<path>.lock` for the whole set-aside, so two processes
// that found the same damage do not both move files.
class SetAsideLock {
 public:
  explicit SetAsideLock(const fs::path& path) {
    fd_ = ::open((path.string() + ".lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (fd_ < 0 || ::flock(fd_, LOCK_EX) != 0) {
      const std::string err = std::strerror(errno);
      throw DatabaseError(path.string(), "cannot lock its .lock file: " + err, "cannot lock " + path.string() + ".lock: " + err);
    }
  }
  ~SetAsideLock() { ::close(fd_); }
  SetAsideLock(const SetAsideLock&) = delete;
  SetAsideLock& operator=(const SetAsideLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

// Why opening failed, and whether that proves the file is not a healthy ktune database.
struct Database::OpenProblem {
  std::string what;
  bool damaged = false;
  int code = SQLITE_OK;
};

SalvageReport salvage_records(const fs::path& path) {
  SalvageReport report;
  sqlite3* raw = nullptr;
  const std::string uri = file_uri(path, "mode=ro&immutable=1");
  if (sqlite3_open_v2(uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
    sqlite3_close_v2(raw);
    return report;
  }
  // Row by row from the last good rowid: a bad page costs the rows on it, not the rest.
  std::int64_t next = std::numeric_limits<std::int64_t>::min();
  for (int misses = 0; misses < 4096;) {
    try {
      Statement q(raw, "SELECT rowid, record FROM results WHERE rowid >= ? ORDER BY rowid");
      q.bind(1, next);
      while (q.step()) {
        next = q.int64(0) + 1;
        misses = 0;
        try {
          TuningRecord r = TuningRecord::from_stored(q.text(1));
          if (const auto why = r.invalid()) throw Error(*why);
          report.records.push_back(std::move(r));
        } catch (const std::exception& e) {
          report.unreadable.push_back("rowid " + std::to_string(next - 1) + ": " + e.what());
        }
      }
      break;
    } catch (const Error& e) {
      if (next == std::numeric_limits<std::int64_t>::min()) {  // not even the table is readable
        report.unreadable.push_back(e.what());
        break;
      }
      ++misses;
      next += misses < 256 ? 1 : std::int64_t{1} << std::min(misses - 256, 40);
    }
  }
  sqlite3_close_v2(raw);
  return report;
}

std::optional<Database::OpenProblem> Database::try_open(const fs::path& path, bool immutable) {
  db_ = std::make_unique<Handle>();
  const int flags = read_only_ ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  const std::string name = immutable ? file_uri(path, "immutable=1") : path.string();
  if (sqlite3_open_v2(name.c_str(), &db_->db, flags | SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
    const SqliteError e(db_->db, "open");
    return OpenProblem{e.what(), e.damage(), e.code};
  }
  sqlite3_busy_timeout(db_->db, busy_timeout_ms());
  try {
    if (!read_only_) {
      enable_wal(db_->db);
      db_->exec("PRAGMA synchronous=FULL");
    }
    {
      Statement check(db_->db, "PRAGMA quick_check");
      if (!check.step() || check.text(0) != "ok") return OpenProblem{"integrity check failed: " + check.text(0), true};
    }
    const std::optional<int> version = schema_version(db_->db);
    if (version && *version > k_schema_version)  // a newer ktune's healthy database
      return OpenProblem{version_problem(version) + "; written by a newer ktune: use that one, or another KTUNE_CACHE_DIR",
                         false};
    older_schema_ = read_only_ && readable_version(version) && *version < k_schema_version;
    if (!read_only_) {
      if (auto problem = create_or_migrate(*db_, path)) return OpenProblem{*problem, true};
    } else if (!readable_version(version)) {
      Statement any(db_->db, "SELECT count(*) FROM sqlite_master");
      any.step();
      if (any.int64(0) == 0) return OpenProblem{"empty (no tables yet; a tuner may be creating it)", false};
      return OpenProblem{version_problem(version), true};
    }
    try {
      Statement probe(db_->db, older_schema_ ? "SELECT record FROM results LIMIT 0"
                                             : "SELECT device_key, family, variant, dtype, shape, align, "
                                               "template_hash, median_us, record FROM results LIMIT 0");
      probe.step();
    } catch (const SqliteError& e) {
      return OpenProblem{std::string("not a ktune database: ") + e.what(), e.code == SQLITE_ERROR || e.damage(), e.code};
    }
  } catch (const MigrationError&) {
    throw;
  } catch (const SqliteError& e) {
    return OpenProblem{e.what(), e.damage(), e.code};
  }
  return std::nullopt;
}

Database::Database(const fs::path& path, bool read_only) : path_(path), read_only_(read_only) {
  if (!read_only) create_private_directory(path.parent_path());
  check_trust(path);
  std::pair<dev_t, ino_t> identity;
  std::optional<OpenProblem> problem;
  // A file that another process sets aside or puts in place while this one opens it
  // fails with an error that says nothing about either file (an I/O error on a renamed
  // file): open what is there now, a few times at most.
  for (int attempt = 0;; ++attempt) {
    if (!read_only && !fs::exists(path)) create_fresh(path);
    identity = file_identity(path);
    problem = try_open(path, false);
    if (!problem || problem->damaged || attempt == 4 || file_identity(path) == identity) break;
  }
  if (read_only && problem && !problem->damaged) problem = open_shipped(path, *problem);
  if (!problem) {
    if (older_schema_) serve_older_schema();
    return;
  }
  db_.reset();
  if (read_only && problem->damaged) {
    serve_salvaged(path, problem->what);
    return;
  }
  if (!problem->damaged)
    throw DatabaseError(path.string(), "cannot be used: " + problem->what,
                        "tuning database " + path.string() + " cannot be used: " + problem->what + " (left as it is)");
  set_aside_and_salvage(path, identity, problem->what);
}

// A new database is made under a name of its own, given its tables, closed, and only
// then renamed into place (never over a file): no other process sees a half-made file,
// so none can judge it, write to it or remove it, and a failure (a full disk) leaves
// nothing behind. Another process's database that got there first is kept.
void Database::create_fresh(const fs::path& path) {
  static std::atomic<unsigned> counter{0};
  const fs::path fresh = path.string() + ".new-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  const auto remove_fresh = [&] {
    std::error_code ec;
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(fresh.string() + suffix, ec);
  };
  if (!create_private_file(fresh))
    throw DatabaseError(path.string(), "cannot be created: " + fresh.string() + ": " + std::strerror(errno),
                        "tuning database " + path.string() + " cannot be created: " + fresh.string() + ": " +
                            std::strerror(errno));
  const auto problem = try_open(fresh, false);
  db_.reset();  // closing checkpoints the WAL into the file
  if (problem) {
    remove_fresh();
    throw DatabaseError(path.string(), "cannot be created: " + problem->what,
                        "tuning database " + path.string() + " cannot be created: " + problem->what);
  }
  std::string ignored;
  if (!rename_no_replace(fresh, path, &ignored)) remove_fresh();  // another process's database is there now
}

// A damaged file opened read-only is never touched: its readable records are served
// from memory (list, export and an application's lookups still see them), and the
// damage is reported.
void Database::serve_salvaged(const fs::path& path, const std::string& why) {
  const SalvageReport salvaged = salvage_records(path);
  serve_from_memory(salvaged.records);
  recovered_from_ = why + " (opened read-only: " + std::to_string(salvaged.records.size()) + " readable record(s) served from memory, " +
                    std::to_string(salvaged.unreadable.size()) + " unreadable; the file is left as it is)";
  log()->error("tuning database {} is damaged ({}); read-only, so it is left as it is and its {} readable record(s) "
               "are used; `ktune cache recover` copies them into a healthy database",
               path.string(), why, salvaged.records.size());
}

// An earlier schema opened read-only is not migrated (that would write): its records,
// read as that schema stored them, are served from memory in this one.
void Database::serve_older_schema() {
  std::vector<TuningRecord> records;
  {
    Statement q(db_->db, "SELECT record FROM results");
    while (q.step()) {
      try {
        records.push_back(TuningRecord::from_stored(q.text(0)));
      } catch (const std::exception& e) {
        log()->warn("skipping an unreadable tuning record: {}", e.what());
      }
    }
  }
  serve_from_memory(records);
}

void Database::serve_from_memory(const std::vector<TuningRecord>& records) {
  db_ = std::make_unique<Handle>();
  if (sqlite3_open_v2(":memory:", &db_->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK)
    throw SqliteError(db_->db, "open :memory:");
  db_->exec(k_schema);
  read_only_ = false;
  std::vector<TuningRecord> valid;
  for (const auto& r : records)
    if (!r.invalid()) valid.push_back(r);
  put_all(valid);
  read_only_ = true;
}

// A shipped database on a read-only mount may still be marked WAL and have no -shm
// file, which SQLite cannot create there: read it as immutable, unless a -wal file holds
// data that immutable reading would miss.
std::optional<Database::OpenProblem> Database::open_shipped(const fs::path& path, const OpenProblem& problem) {
  if (problem.code != SQLITE_CANTOPEN && problem.code != SQLITE_READONLY && problem.code != SQLITE_IOERR) return problem;
  std::error_code ec;
  const auto wal = fs::file_size(path.string() + "-wal", ec);
  if (!ec && wal > 0) return problem;
  auto again = try_open(path, true);
  if (again) return problem;
  log()->info("tuning database {} read as immutable (read-only location, no -shm file)", path.string());
  return std::nullopt;
}

// The file is proven damaged: under a lock, and only if it is still the file that was
// judged, copy every readable record into a fresh database, rename the damaged file
// (with its -wal and -shm) to a name nobody has, and report what was kept and lost.
void Database::set_aside_and_salvage(const fs::path& path, std::pair<dev_t, ino_t> judged, const std::string& why) {
  const auto cannot = [&](const std::string& reason) {
    return Error("tuning database " + path.string() + " is damaged (" + why + ") and could not be set aside: " + reason +
                 " (left as it is; `ktune cache recover` copies its readable records)");
  };
  std::optional<SetAsideLock> lock;
  try {
    lock.emplace(path);
  } catch (const Error& e) {
    throw cannot(e.what());
  }
  if (file_identity(path) != judged) {  // another process set it aside meanwhile
    if (auto again = try_open(path, false))
      throw DatabaseError(path.string(), "cannot be used: " + again->what,
                          "tuning database " + path.string() + " cannot be used: " + again->what + " (left as it is)");
    return;
  }
  const SalvageReport salvaged = salvage_records(path);
  const fs::path aside = claim_aside_name(path);
  std::string err;
  if (!rename_no_replace(path, aside, &err)) throw cannot(err);
  std::error_code ec;
  for (const char* suffix : {"-wal", "-shm"}) {
    std::string ignored;
    if (fs::exists(path.string() + suffix, ec)) rename_no_replace(path.string() + suffix, aside.string() + suffix, &ignored);
  }
  create_fresh(path);
  if (auto again = try_open(path, false)) throw DatabaseError(path.string(), again->what);
  const std::size_t kept = put_all(salvaged.records);
  recovered_from_ = why + " (moved to " + aside.string() + "; " + std::to_string(kept) + " readable record(s) copied back, " +
                    std::to_string(salvaged.unreadable.size()) + " unreadable)";
  log()->error("tuning database {} is damaged ({}); moved it to {} and copied {} readable record(s) into a fresh one; "
               "{} could not be read",
               path.string(), why, aside.string(), kept, salvaged.unreadable.size());
}

Database::~Database() = default;
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;

bool Database::put(const TuningRecord& r) { return put_all({r}) == 1; }

std::size_t Database::put_all(const std::vector<TuningRecord>& records) {
  for (const auto& r : records)
    if (const auto why = r.invalid()) throw Error("tuning record " + r.family + " " + shape_to_string(r.shape) + ": " + *why);
  std::lock_guard<std::mutex> lock(db_->mutex);
  if (read_only_) throw DatabaseError(path_.string(), "open read-only", "tuning database " + path_.string() + " is open read-only");
  db_->exec("BEGIN IMMEDIATE");
  try {
    std::size_t stored = 0;
    for (const auto& r : records) {
      const std::string shape = shape_to_string(r.shape);
      bool store = true;
      {
        Statement q(db_->db, "SELECT template_hash, median_us FROM results WHERE device_key=? AND family=? AND "
                             "variant=? AND dtype=? AND shape=? AND align=?");
        q.bind(1, r.device_key).bind(2, r.family).bind(3, r.variant).bind(4, r.dtype).bind(5, shape).bind(6, r.align);
        // A stored time that is no positive number (written before validation) never wins.
        if (q.step()) store = q.text(0) != r.template_hash || r.median_us < q.real(1) || !(q.real(1) > 0);
      }
      if (store) {
        Statement ins(db_->db, "INSERT OR REPLACE INTO results VALUES(?,?,?,?,?,?,?,?,?)");
        ins.bind(1, r.device_key).bind(2, r.family).bind(3, r.variant).bind(4, r.dtype).bind(5, shape).bind(6, r.align);
        ins.bind(7, r.template_hash).bind(8, r.median_us).bind(9, r.to_stored());
        ins.step();
        ++stored;
      }
    }
    db_->exec("COMMIT");
    return stored;
  } catch (...) {
    sqlite3_exec(db_->db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

namespace {

// The columns every record query selects: the key, then the record.
#define KTUNE_RECORD_COLUMNS "device_key, family, variant, dtype, shape, align, record"

// Reads records, skipping (and reporting) any that fail their checksum or whose key
// columns no longer match their content.
std::vector<TuningRecord> read_records(Statement& q) {
  std::vector<TuningRecord> out;
  while (q.step()) {
    try {
      TuningRecord r = TuningRecord::from_stored(q.text(6));
      if (r.device_key != q.text(0) || r.family != q.text(1) || r.variant != q.text(2) || r.dtype != q.text(3) ||
          shape_to_string(r.shape) != q.text(4) || r.align != q.int64(5))
        throw Error("its key (" + q.text(1) + " " + q.text(2) + " " + q.text(3) + " " + q.text(4) + " align " +
                    q.text(5) + ") does not match its content");
      out.push_back(std::move(r));
    } catch (const std::exception& e) {
      log()->warn("skipping an unreadable tuning record: {}", e.what());
    }
  }
  return out;
}

}  // namespace

std::optional<TuningRecord> Database::get(const std::string& device_key, const std::string& family,
                                          const std::string& variant, const std::string& dtype,
                                          const std::vector<std::int64_t>& shape, std::int64_t align) const {
  std::lock_guard<std::mutex> lock(db_->mutex);
  Statement q(db_->db, "SELECT " KTUNE_RECORD_COLUMNS " FROM results WHERE device_key=? AND family=? AND variant=? AND "
                       "dtype=? AND shape=? AND align=?");
  q.bind(1, device_key).bind(2, family).bind(3, variant).bind(4, dtype).bind(5, shape_to_string(shape)).bind(6, align);
  auto records = read_records(q);
  if (records.empty()) return std::nullopt;
  return records.front();
}

std::vector<TuningRecord> Database::find(const std::string& device_key, const std::string& family,
                                         const std::string& variant, const std::string& dtype) const {
  std::lock_guard<std::mutex> lock(db_->mutex);
  Statement q(db_->db, "SELECT " KTUNE_RECORD_COLUMNS " FROM results WHERE device_key=? AND family=? AND variant=? AND "
                       "dtype=? ORDER BY shape, align");
  q.bind(1, device_key).bind(2, family).bind(3, variant).bind(4, dtype);
  return read_records(q);
}

std::vector<TuningRecord> Database::all() const {
  std::lock_guard<std::mutex> lock(db_->mutex);
  Statement q(db_->db, "SELECT " KTUNE_RECORD_COLUMNS " FROM results ORDER BY device_key, family, variant, dtype, shape, align");
  return read_records(q);
}

std::size_t Database::prune(const std::function<bool(const TuningRecord&)>& stale) {
  if (read_only_) throw DatabaseError(path_.string(), "open read-only", "tuning database " + path_.string() + " is open read-only");
  std::size_t removed = 0;
  for (const auto& r : all()) {
    if (!stale(r)) continue;
    std::lock_guard<std::mutex> lock(db_->mutex);
    Statement del(db_->db, "DELETE FROM results WHERE device_key=? AND family=? AND variant=? AND dtype=? AND shape=? "
                           "AND align=?");
    del.bind(1, r.device_key).bind(2, r.family).bind(3, r.variant).bind(4, r.dtype).bind(5, shape_to_string(r.shape));
    del.bind(6, r.align);
    del.step();
    removed += static_cast<std::size_t>(sqlite3_changes(db_->db));
  }
  return removed;
}

nlohmann::json Database::export_json() const {
  nlohmann::json records = nlohmann::json::array();
  for (const auto& r : all()) records.push_back(r.to_json());
  return {{"ktune_schema", k_schema_version}, {"records", records}};
}

std::size_t Database::import_json(const nlohmann::json& doc,
                                  const std::function<std::optional<std::string>(const TuningRecord&)>& valid_config) {
  if (!doc.is_object() || !doc.contains("records") || !doc["records"].is_array())
    throw Error("not a ktune export: expected {\"ktune_schema\": N, \"records\": [...]}");
  const nlohmann::json schema = doc.value("ktune_schema", nlohmann::json(-1));
  if (!schema.is_number_integer() || schema.get<int>() < 1 || schema.get<int>() > k_schema_version)
    throw Error("export has schema " + schema.dump() + ", this ktune reads 1 to " + std::to_string(k_schema_version));
  std::vector<TuningRecord> records;
  std::string rejected;
  std::size_t bad = 0, index = 0;
  for (const auto& j : doc["records"]) {  // all or nothing: every record is checked first
    std::optional<std::string> why;
    try {
      records.push_back(TuningRecord::from_json(j));
      why = records.back().invalid();
      if (!why && valid_config) why = valid_config(records.back());
    } catch (const Error& e) {
      why = e.what();
    }
    if (why && ++bad <= 20) rejected += "\n  record " + std::to_string(index) + ": " + *why;
    ++index;
  }
  if (bad) throw Error(std::to_string(bad) + " of " + std::to_string(index) + " record(s) rejected, nothing stored:" + rejected +
                       (bad > 20 ? "\n  ..." : ""));
  return put_all(records);
}

void Database::write_shipping_copy(const fs::path& dest) const {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(dest, ec)))
    throw DatabaseError(dest.string(), "exists", "ship: " + dest.string() + " exists; give a new file name (nothing was written)");
  {
    std::lock_guard<std::mutex> lock(db_->mutex);
    Statement copy(db_->db, "VACUUM INTO ?");  // a consistent snapshot, even while others write
    copy.bind(1, dest.string());
    copy.step();
  }
  Handle out;
  if (sqlite3_open_v2(dest.c_str(), &out.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
    throw SqliteError(out.db, "open " + dest.string());
  out.exec("PRAGMA journal_mode=DELETE");  // no -wal or -shm needed to read it
  out.exec("VACUUM");
  fs::permissions(dest, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read, fs::perm_options::replace);
}

void Database::put_binary(const std::string& key, const StoredBinary& binary) {
  std::lock_guard<std::mutex> lock(db_->mutex);
  if (read_only_) return;  // a read-only database simply doesn't learn new binaries
  Statement ins(db_->db, "INSERT OR REPLACE INTO binaries VALUES(?,?,?,?)");
  ins.bind(1, key).bind(2, hex64(fnv1a64(binary.entry + '\n' + binary.bytes))).bind(3, binary.entry);
  ins.bind_blob(4, binary.bytes);
  ins.step();
}

void Database::put_kernel_locations(const std::string& binary_key,
                                    const std::vector<std::pair<std::string, std::string>>& kernels) {
  std::lock_guard<std::mutex> lock(db_->mutex);
  if (read_only_) return;
  db_->exec("BEGIN IMMEDIATE");  // one commit (one sync) for the whole program
  try {
    Statement ins(db_->db, "INSERT OR REPLACE INTO kernels VALUES(?,?,?)");
    for (const auto& [key, entry] : kernels) {
      ins.reset();
      ins.bind(1, key).bind(2, binary_key).bind(3, entry);
      ins.step();
    }
    db_->exec("COMMIT");
  } catch (...) {
    sqlite3_exec(db_->db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

std::optional<KernelLocation> Database::kernel_location(const std::string& kernel_key) {
  std::lock_guard<std::mutex> lock(db_->mutex);
  if (read_only_) {  // a writable open created the table; a file opened read-only may predate it
    Statement table(db_->db, "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='kernels'");
    if (!table.step() || table.int64(0) == 0) return std::nullopt;
  }
  Statement q(db_->db, "SELECT binary_key, entry FROM kernels WHERE key=?");
  q.bind(1, kernel_key);
  if (!q.step()) return std::nullopt;
  return KernelLocation{q.text(0), q.text(1)};
}

std::optional<StoredBinary> Database::get_binary(const std::string& key) {
  std::lock_guard<std::mutex> lock(db_->mutex);
  std::string hash;
  StoredBinary binary;
  {
    Statement q(db_->db, "SELECT content_hash, entry, bytes FROM binaries WHERE key=?");
    q.bind(1, key);
    if (!q.step()) return std::nullopt;
    hash = q.text(0);
    binary.entry = q.text(1);
    binary.bytes = q.blob(2);
  }
  if (hex64(fnv1a64(binary.entry + '\n' + binary.bytes)) == hash) return binary;
  log()->error("stored binary {} in {} fails its content hash; discarding it (it will be recompiled)", key,
               path_.string());
  if (!read_only_) {
    Statement del(db_->db, "DELETE FROM binaries WHERE key=?");
    del.bind(1, key);
    del.step();
  }
  return std::nullopt;
}

}  // namespace ktune
