// Opening a database: busy waits, WAL, read-only and shipped files, and the set-aside
// and salvage of a file proven damaged.
#include "store.hpp"

#include <set>

namespace ktune {
namespace fs = std::filesystem;
using namespace store;

namespace store {

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

}  // namespace store

// Why opening failed, and whether that proves the file is not a healthy ktune database.
struct Database::OpenProblem {
  std::string what;
  bool damaged = false;
  int code = SQLITE_OK;
};

namespace {

// The rows SQLite can still reach, one by one from the last good rowid.
SalvageReport salvage_rows(const fs::path& path) {
  SalvageReport report;
  sqlite3* raw = nullptr;
  const std::string uri = file_uri(path, "mode=ro&immutable=1");
  if (sqlite3_open_v2(uri.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr) != SQLITE_OK) {
    sqlite3_close_v2(raw);
    return report;
  }
  // Records without checksums are those of schemas before 3 (whose migration stores them
  // with one); in a file of schema 3 or of an unreadable version, one without is damaged.
  bool legacy = false;
  try {
    const std::optional<int> version = schema_version(raw);
    legacy = version && *version < 3;
  } catch (const std::exception&) {
  }
  // Row by row from the last good rowid: a bad page costs the rows on it, not the rest.
  // `next` only grows (a damaged b-tree can hand rows back out of order: taken as the
  // damage it is, never read twice), and every restart counts, so the walk ends.
  std::int64_t next = std::numeric_limits<std::int64_t>::min();
  for (int misses = 0, restarts = 0; misses < 4096 && restarts < 65536; ++restarts) {
    try {
      Statement q(raw, "SELECT rowid, record FROM results WHERE rowid >= ? ORDER BY rowid");
      q.bind(1, next);
      while (q.step()) {
        const std::int64_t rowid = q.int64(0);
        if (rowid < next || rowid == std::numeric_limits<std::int64_t>::max())
          throw Error("rowid " + std::to_string(rowid) + " out of order");
        next = rowid + 1;
        misses = 0;
        try {
          TuningRecord r = TuningRecord::from_stored(q.text(1), legacy);
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

}  // namespace

// Rows first; then the leaf pages themselves, for the records that only a damaged root
// or interior page hid from SQLite (a key SQLite read is never taken from a page).
SalvageReport salvage_records(const fs::path& path) {
  SalvageReport report = salvage_rows(path);
  const auto key = [](const TuningRecord& r) {
    return r.device_key + '\n' + r.family + '\n' + r.variant + '\n' + r.dtype + '\n' + shape_to_string(r.shape) + '\n' +
           std::to_string(r.align);
  };
  std::set<std::string> seen;
  for (const auto& r : report.records) seen.insert(key(r));
  std::size_t from_pages = 0;
  for (auto& r : scan_leaf_pages(path))
    if (seen.insert(key(r)).second) {
      report.records.push_back(std::move(r));
      ++from_pages;
    }
  if (from_pages)
    log()->warn("salvage of {}: {} record(s) read from table pages that SQLite could not reach", path.string(), from_pages);
  return report;
}

namespace {

// The tables of a SQLite file that has some but no ktune schema version: another
// program's file, which ktune must neither change (WAL, its own tables) nor set aside.
// nullopt for a ktune database and for an empty file (a new one).
std::optional<std::string> foreign_tables(sqlite3* db) {
  if (store::schema_version(db)) return std::nullopt;
  std::string names;
  std::size_t count = 0;
  Statement q(db, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name");
  while (q.step())
    if (++count <= 5) names += (names.empty() ? "" : ", ") + q.text(0);
  if (count == 0) return std::nullopt;
  return names + (count > 5 ? ", ..." : "");
}

}  // namespace

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
    if (auto foreign = foreign_tables(db_->db))
      return OpenProblem{"not a ktune database (a SQLite file with the tables " + *foreign +
                             " and no ktune schema version); give a file of its own",
                         false};
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
        records.push_back(TuningRecord::from_stored(q.text(0), true));  // an older schema's
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
  if (again) return again->damaged ? again : problem;  // damaged: served from its salvage, read-only
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

}  // namespace ktune
