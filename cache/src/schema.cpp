// The tables, and the migration of earlier schemas.
#include "store.hpp"

namespace ktune {
namespace fs = std::filesystem;
using namespace store;

namespace store {

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
        const TuningRecord r = TuningRecord::from_stored(q.text(7), true);
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

}  // namespace store

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

}  // namespace ktune
