// The records: reads, writes, prune, import and export, the shipping copy.
#include "store.hpp"

namespace ktune {
namespace fs = std::filesystem;
using namespace store;

Database::~Database() = default;
Database::Database(Database&&) noexcept = default;
Database& Database::operator=(Database&&) noexcept = default;

bool Database::put(const TuningRecord& r) { return put_all({r}) == 1; }

namespace {

// Whether `incoming` replaces the stored record (template hash, median) of its key.
bool replaces(const TuningRecord& incoming, const std::string& stored_hash, double stored_us,
              const Database::IsCurrent& current) {
  const bool incoming_current = current ? current(incoming.family, incoming.template_hash) : true;
  const bool stored_current = current ? current(incoming.family, stored_hash) : stored_hash == incoming.template_hash;
  if (incoming_current != stored_current) return incoming_current;
  return incoming.median_us < stored_us || !plausible_kernel_time(stored_us);
}

}  // namespace

std::size_t Database::put_all(const std::vector<TuningRecord>& records, const IsCurrent& current, PutReport* report) {
  for (const auto& r : records)
    if (const auto why = r.invalid()) throw Error("tuning record " + r.family + " " + shape_to_string(r.shape) + ": " + *why);
  std::lock_guard<std::mutex> lock(db_->mutex);
  if (read_only_) throw DatabaseError(path_.string(), "open read-only", "tuning database " + path_.string() + " is open read-only");
  db_->exec("BEGIN IMMEDIATE");
  try {
    std::size_t stored = 0;
    PutReport counts;
    for (const auto& r : records) {
      const std::string shape = shape_to_string(r.shape);
      bool store = true;
      {
        Statement q(db_->db, "SELECT template_hash, median_us FROM results WHERE device_key=? AND family=? AND "
                             "variant=? AND dtype=? AND shape=? AND align=?");
        q.bind(1, r.device_key).bind(2, r.family).bind(3, r.variant).bind(4, r.dtype).bind(5, shape).bind(6, r.align);
        const bool there = q.step();
        if (there) store = replaces(r, q.text(0), q.real(1), current);
        ++(!there ? counts.added : store ? counts.replaced : counts.kept);
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
    if (report) *report = counts;
    return stored;
  } catch (...) {
    sqlite3_exec(db_->db, "ROLLBACK", nullptr, nullptr, nullptr);
    throw;
  }
}

namespace store {

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

}  // namespace store

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

std::size_t Database::row_count() const {
  std::lock_guard<std::mutex> lock(db_->mutex);
  Statement q(db_->db, "SELECT COUNT(*) FROM results");
  return q.step() ? static_cast<std::size_t>(q.int64(0)) : 0;
}

std::int64_t Database::data_version() const {
  std::lock_guard<std::mutex> lock(db_->mutex);
  Statement q(db_->db, "PRAGMA data_version");
  return q.step() ? q.int64(0) : 0;
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
                                  const std::function<std::optional<std::string>(const TuningRecord&)>& valid_config,
                                  const IsCurrent& current) {
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
  return put_all(records, current);
}

std::optional<fs::path> database_of_companion(const fs::path& path) {
  const std::string name = path.string();
  for (const std::string suffix : {"-wal", "-shm", "-journal"})
    if (name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0)
      return fs::path(name.substr(0, name.size() - suffix.size()));
  return std::nullopt;
}

void Database::write_shipping_copy(const fs::path& dest) const {
  std::error_code ec;
  if (fs::exists(fs::symlink_status(dest, ec)))
    throw DatabaseError(dest.string(), "exists", "ship: " + dest.string() + " exists; give a new file name (nothing was written)");
  const std::string name = dest.string();
  if (const auto base = database_of_companion(dest); base && fs::exists(*base, ec))
    throw DatabaseError(name, "a database's companion file",
                        "ship: " + name + " would be read as a file of the database " + base->string() +
                            "; give another name (nothing was written)");
  // Written under a private name and renamed into place only when complete: a full disk
  // or a crash leaves no half file under `dest` to block the retry.
  const fs::path partial = name + ".partial-" + std::to_string(::getpid());
  try {
    {
      std::lock_guard<std::mutex> lock(db_->mutex);
      Statement copy(db_->db, "VACUUM INTO ?");  // a consistent snapshot, even while others write
      copy.bind(1, partial.string());
      copy.step();
    }
    {
      Handle out;
      if (sqlite3_open_v2(partial.c_str(), &out.db, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK)
        throw SqliteError(out.db, "open " + partial.string());
      out.exec("PRAGMA journal_mode=DELETE");  // no -wal or -shm needed to read it
      out.exec("VACUUM");
    }
    fs::permissions(partial, fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read,
                    fs::perm_options::replace);
    std::string why;
    if (!rename_no_replace(partial, dest, &why))
      throw DatabaseError(name, why, "ship: cannot create " + name + ": " + why + " (nothing was written)");
  } catch (...) {
    fs::remove(partial, ec);
    fs::remove(partial.string() + "-journal", ec);
    throw;
  }
}

}  // namespace ktune
