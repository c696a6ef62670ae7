#include <ktune/cache/database.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/hash.hpp>
#include <ktune/generator/log.hpp>

#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <cstdlib>

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

std::optional<std::vector<std::int64_t>> parse_shape(std::string_view text) {
  std::vector<std::int64_t> shape;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t x = std::min(text.find('x', pos), text.size());
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
          {"dtype", dtype},             {"shape", shape},
          {"align", align},             {"config", config},
          {"template_hash", template_hash}, {"median_us", median_us},
          {"spread_pct", spread_pct},   {"rate", rate}, {"rate_unit", rate_unit},
          {"ceiling_fraction", ceiling_fraction}, {"tool_version", tool_version},
          {"nvrtc_version", nvrtc_version}, {"driver_version", driver_version},
          {"tuned_at", tuned_at}};
}

TuningRecord TuningRecord::from_json(const nlohmann::json& j) {
  try {
    TuningRecord r;
    r.device_key = j.at("device_key");
    r.device_name = j.value("device_name", "");
    r.device_uuid = j.value("device_uuid", "");
    r.family = j.at("family");
    r.dtype = j.at("dtype");
    r.shape = j.at("shape").get<std::vector<std::int64_t>>();
    r.align = j.at("align");
    r.config = j.at("config");
    r.template_hash = j.at("template_hash");
    r.median_us = j.at("median_us");
    r.spread_pct = j.value("spread_pct", 0.0);
    if (j.contains("rate")) {
      r.rate = j.at("rate");
      r.rate_unit = j.at("rate_unit");
    } else {  // schema 1
      r.rate = j.value("gbps", 0.0);
      r.rate_unit = r.family == "gemm" ? "GFLOP/s" : "GB/s";
    }
    r.ceiling_fraction = j.value("ceiling_fraction", 0.0);
    r.tool_version = j.value("tool_version", "");
    r.nvrtc_version = j.value("nvrtc_version", "");
    r.driver_version = j.value("driver_version", "");
    r.tuned_at = j.value("tuned_at", "");
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed tuning record: ") + e.what());
  }
}

namespace {

std::shared_ptr<spdlog::logger> log() { return logger("ktune.cache"); }

}  // namespace

struct Database::Handle {
  sqlite3* db = nullptr;
  std::mutex mutex;  // one connection shared by a tuner's compile threads: one call at a time
  ~Handle() { sqlite3_close_v2(db); }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error("tuning database: " + what + ": " + (db ? sqlite3_errmsg(db) : "cannot open"));
  }
  void exec(const char* sql) const {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
      std::string msg = err ? err : "?";
      sqlite3_free(err);
      throw Error(std::string("tuning database: ") + sql + ": " + msg);
    }
  }
};

namespace {

// A prepared statement that finalizes itself.
class Statement {
 public:
  Statement(sqlite3* db, const char* sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr) != SQLITE_OK)
      throw Error(std::string("tuning database: ") + sqlite3_errmsg(db) + " in: " + sql);
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
  // True while rows come; throws on errors.
  bool step() {
    const int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    throw Error(std::string("tuning database: ") + sqlite3_errmsg(db_));
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
constexpr const char* k_schema = R"sql(
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results(
  device_key TEXT NOT NULL, family TEXT NOT NULL, dtype TEXT NOT NULL, shape TEXT NOT NULL,
  align INTEGER NOT NULL, template_hash TEXT NOT NULL, median_us REAL NOT NULL, record TEXT NOT NULL,
  PRIMARY KEY(device_key, family, dtype, shape, align));
CREATE TABLE IF NOT EXISTS binaries(key TEXT PRIMARY KEY, content_hash TEXT NOT NULL, entry TEXT NOT NULL,
  bytes BLOB NOT NULL);
)sql";

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

// Schema 1 -> 2: each record's JSON is rewritten by from_json's reading of schema 1.
void migrate_1_to_2(sqlite3* db) {
  std::vector<std::pair<std::int64_t, std::string>> rewritten;
  {
    Statement q(db, "SELECT rowid, record FROM results");
    while (q.step()) {
      try {
        rewritten.emplace_back(q.int64(0), TuningRecord::from_json(nlohmann::json::parse(q.text(1))).to_json().dump());
      } catch (const std::exception& e) {
        log()->warn("schema migration keeps an unreadable tuning record as it is: {}", e.what());
      }
    }
  }
  for (const auto& [rowid, record] : rewritten) {
    Statement u(db, "UPDATE results SET record=? WHERE rowid=?");
    u.bind(1, record).bind(2, rowid);
    u.step();
  }
}

}  // namespace

// Creates the tables of a new file, or brings an earlier schema up to this one. An
// earlier file is first copied aside (VACUUM INTO: a consistent snapshot even while
// others write); the migration itself is one transaction, so a crash leaves either
// schema, never a mix. Returns what is wrong with a file this ktune cannot use.
std::optional<std::string> Database::create_or_migrate(Handle& db, const fs::path& path) {
  // nullopt: a new file (no version yet).
  const auto version_now = [&]() -> std::optional<int> {
    Statement tables(db.db, "SELECT count(*) FROM sqlite_master WHERE name='meta'");
    tables.step();
    return tables.int64(0) == 0 ? std::nullopt : schema_version(db.db);
  };
  if (const auto v = version_now(); readable_version(v) && *v < k_schema_version) {
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
    const std::optional<int> v = version_now();  // again: another process may have migrated meanwhile
    if (!v) {
      db.exec(("INSERT INTO meta VALUES('schema_version', '" + std::to_string(k_schema_version) + "')").c_str());
    } else if (!readable_version(v)) {
      db.exec("ROLLBACK");
      return version_problem(v);
    } else if (*v < k_schema_version) {
      migrate_1_to_2(db.db);  // the only step so far
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
  if (const char* d = std::getenv("KTUNE_CACHE_DIR"); d && *d) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "ktune";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "ktune";
  return fs::temp_directory_path() / "ktune";
}

Database::Database(const fs::path& path, bool read_only) : path_(path), read_only_(read_only) {
  if (!read_only) create_private_directory(path.parent_path());
  for (const fs::path& p : {path, path.parent_path().empty() ? fs::path(".") : path.parent_path()})
    if (writable_by_others(p))
      throw Error("tuning database: " + p.string() + " is writable by other users; refusing to load code from it (chmod go-w " +
                  p.string() + ")");
  const auto try_open = [&]() -> std::optional<std::string> {
    db_ = std::make_unique<Handle>();
    const int flags = read_only ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
    if (sqlite3_open_v2(path.c_str(), &db_->db, flags | SQLITE_OPEN_FULLMUTEX, nullptr) != SQLITE_OK)
      return std::string("cannot open: ") + sqlite3_errmsg(db_->db);
    sqlite3_busy_timeout(db_->db, 30000);
    try {
      if (!read_only) {
        db_->exec("PRAGMA journal_mode=WAL");
        db_->exec("PRAGMA synchronous=FULL");
      }
      {
        Statement check(db_->db, "PRAGMA quick_check");
        if (!check.step() || check.text(0) != "ok") return "integrity check failed: " + check.text(0);
      }
      if (!read_only) {
        if (auto problem = create_or_migrate(*db_, path)) return problem;
      } else if (const auto version = schema_version(db_->db); !readable_version(version)) {
        return version_problem(version);
      }
      Statement probe(db_->db, "SELECT device_key, family, dtype, shape, align, template_hash, median_us, record "
                               "FROM results LIMIT 0");
      probe.step();
    } catch (const MigrationError&) {
      throw;
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::nullopt;
  };
  auto problem = try_open();
  if (!problem) {
    if (!read_only) fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write, fs::perm_options::replace);
    return;
  }
  if (read_only) throw Error("tuning database " + path.string() + " is unusable: " + *problem);
  // Set the broken file aside (never delete what a user might want back) and start empty.
  db_.reset();
  const fs::path aside = path.string() + ".broken-" + now_tag();
  std::error_code ec;
  fs::rename(path, aside, ec);
  for (const char* suffix : {"-wal", "-shm"}) fs::remove(path.string() + suffix, ec);
  log()->error("tuning database {} is unusable ({}); moved it to {} and started an empty one", path.string(),
               *problem, aside.string());
  recovered_from_ = *problem + " (moved to " + aside.string() + ")";
  if (auto again = try_open()) throw Error("tuning database " + path.string() + ": " + *again);
}

Database::~Database() = default;
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;

bool Database::put(const TuningRecord& r) {
  std::lock_guard<std::mutex> lock(db_->mutex);
  if (read_only_) throw Error("tuning database " + path_.string() + " is open read-only");
  db_->exec("BEGIN IMMEDIATE");
  try {
    const std::string shape = shape_to_string(r.shape);
    bool store = true;
    {
      Statement q(db_->db, "SELECT template_hash, median_us FROM results WHERE device_key=? AND family=? AND "
                           "dtype=? AND shape=? AND align=?");
      q.bind(1, r.device_key).bind(2, r.family).bind(3, r.dtype).bind(4, shape).bind(5, r.align);
      if (q.step()) store = q.text(0) != r.template_hash || r.median_us < q.real(1);
    }
    if (store) {
      Statement ins(db_->db, "INSERT OR REPLACE INTO results VALUES(?,?,?,?,?,?,?,?)");
      ins.bind(1, r.device_key).bind(2, r.family).bind(3, r.dtype).bind(4, shape).bind(5, r.align);
      ins.bind(6, r.template_hash).bind(7, r.median_us).bind(8, r.to_json().dump());
      ins.step();
    }
    db_->exec("COMMIT");
    return store;
  } catch (...) {
    sqlite3_exec(db_->db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

namespace {

std::vector<TuningRecord> read_records(Statement& q) {
  std::vector<TuningRecord> out;
  while (q.step()) {
    try {
      out.push_back(TuningRecord::from_json(nlohmann::json::parse(q.text(0))));
    } catch (const std::exception& e) {
      log()->warn("skipping an unreadable tuning record: {}", e.what());
    }
  }
  return out;
}

}  // namespace

std::optional<TuningRecord> Database::get(const std::string& device_key, const std::string& family,
                                          const std::string& dtype, const std::vector<std::int64_t>& shape,
                                          std::int64_t align) const {
  std::lock_guard<std::mutex> lock(db_->mutex);
  Statement q(db_->db, "SELECT record FROM results WHERE device_key=? AND family=? AND dtype=? AND shape=? AND align=?");
  q.bind(1, device_key).bind(2, family).bind(3, dtype).bind(4, shape_to_string(shape)).bind(5, align);
  auto records = read_records(q);
  if (records.empty()) return std::nullopt;
  return records.front();
}

std::vector<TuningRecord> Database::find(const std::string& device_key, const std::string& family,
                                         const std::string& dtype) const {
  std::lock_guard<std::mutex> lock(db_->mutex);
  Statement q(db_->db, "SELECT record FROM results WHERE device_key=? AND family=? AND dtype=? ORDER BY shape, align");
  q.bind(1, device_key).bind(2, family).bind(3, dtype);
  return read_records(q);
}

std::vector<TuningRecord> Database::all() const {
  std::lock_guard<std::mutex> lock(db_->mutex);
  Statement q(db_->db, "SELECT record FROM results ORDER BY device_key, family, dtype, shape, align");
  return read_records(q);
}

std::size_t Database::prune(const std::function<bool(const TuningRecord&)>& stale) {
  if (read_only_) throw Error("tuning database " + path_.string() + " is open read-only");
  std::size_t removed = 0;
  for (const auto& r : all()) {
    if (!stale(r)) continue;
    std::lock_guard<std::mutex> lock(db_->mutex);
    Statement del(db_->db, "DELETE FROM results WHERE device_key=? AND family=? AND dtype=? AND shape=? AND align=?");
    del.bind(1, r.device_key).bind(2, r.family).bind(3, r.dtype).bind(4, shape_to_string(r.shape)).bind(5, r.align);
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

std::size_t Database::import_json(const nlohmann::json& doc) {
  if (!doc.is_object() || !doc.contains("records") || !doc["records"].is_array())
    throw Error("not a ktune export: expected {\"ktune_schema\": N, \"records\": [...]}");
  const nlohmann::json schema = doc.value("ktune_schema", nlohmann::json(-1));
  if (!schema.is_number_integer() || schema.get<int>() < 1 || schema.get<int>() > k_schema_version)
    throw Error("export has schema " + schema.dump() + ", this ktune reads 1 to " + std::to_string(k_schema_version));
  std::vector<TuningRecord> records;
  for (const auto& j : doc["records"]) records.push_back(TuningRecord::from_json(j));  // all or nothing
  std::size_t stored = 0;
  for (const auto& r : records) stored += put(r) ? 1 : 0;
  return stored;
}

void Database::put_binary(const std::string& key, const StoredBinary& binary) {
  std::lock_guard<std::mutex> lock(db_->mutex);
  if (read_only_) return;  // a read-only database simply doesn't learn new binaries
  Statement ins(db_->db, "INSERT OR REPLACE INTO binaries VALUES(?,?,?,?)");
  ins.bind(1, key).bind(2, hex64(fnv1a64(binary.entry + '\n' + binary.bytes))).bind(3, binary.entry);
  ins.bind_blob(4, binary.bytes);
  ins.step();
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
