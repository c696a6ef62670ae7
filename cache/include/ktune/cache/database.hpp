#pragma once
#include <ktune/generator/kernel_time.hpp>
#include <ktune/generator/dtype.hpp>

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune {

// What identifies a GPU model for tuning results: results move between identical
// cards, so the UUID is kept as information only.
struct DeviceFingerprint {
  std::string name;
  int cc_major = 0, cc_minor = 0, sm_count = 0;
  std::int64_t memory_bytes = 0, l2_bytes = 0;

  std::string key() const;  // e.g. "NVIDIA H200|sm_90|132sm|143771MiB|60MiB"
};

// One stored winner: per device fingerprint and problem (family, variant, dtype, shape,
// align).
struct TuningRecord {
  std::string device_key, device_name, device_uuid;
  std::string family;   // the kernel: a registered family, or a user kernel's name
  std::string variant;  // what else selects the kernel: "sum", "nt", an expression; may be empty
  std::string dtype;
  std::vector<std::int64_t> shape;
  std::int64_t align = 1;  // alignment class (vector width in elements the call allowed)
  nlohmann::json config;   // tunable name -> value
  std::string template_hash;
  double median_us = 0, spread_pct = 0, ceiling_fraction = 0;
  double rate = 0;                 // in rate_unit: bytes moved or FLOPs per time
  std::string rate_unit = "GB/s";  // "GB/s" or "GFLOP/s"
  std::string tool_version, nvrtc_version, driver_version, tuned_at;

  nlohmann::json to_json() const;
  // Reads schema-3 records and earlier ones (schema 1's "gbps" held GFLOP/s for GEMM;
  // schemas 1 and 2 kept "family:variant" in `family`).
  static TuningRecord from_json(const nlohmann::json& j);  // throws ktune::Error
  // The text stored in the database: the JSON plus a checksum of it, so an edit of the
  // file that SQLite's own checks cannot see is caught per record. from_stored throws
  // ktune::Error on a checksum mismatch (records stored before checksums have none).
  std::string to_stored() const;
  // `legacy`: a record of a schema before checksums (read only by the migration); any
  // other stored record without its checksum is damaged.
  static TuningRecord from_stored(const std::string& text, bool legacy = false);
  // Why the record is not one a tuner could have measured (empty or non-positive
  // shape, a time outside plausible_kernel_time, an alignment that is not a
  // power of two up to 16, an empty key field), or nullopt. Checked by put and import.
  std::optional<std::string> invalid() const;
};

// Parses an export (`ktune cache export`), refusing size (over 1 GiB) and nesting
// (deeper than 16 levels) bombs before they cost memory or stack, and non-JSON, with
// ktune::Error naming `name`.
nlohmann::json parse_export(std::istream& in, const std::string& name);

// The records that can still be read from a damaged database file, and what could not.
struct SalvageReport {
  std::vector<TuningRecord> records;    // readable and valid (TuningRecord::invalid)
  std::vector<std::string> unreadable;  // per lost row (or the whole table): why
};
// Reads a file row by row, read-only and without writing anything next to it (a bad
// page costs the rows on it, not the rest). A file that is no database gives nothing.
SalvageReport salvage_records(const std::filesystem::path& path);

// The database a -wal, -shm or -journal file belongs to by its name (the file name less
// that suffix), or nullopt: such a file is part of its database, and something written
// there is replayed into it.
std::optional<std::filesystem::path> database_of_companion(const std::filesystem::path& path);

// Creates `dir` (and parents) owner-only when missing: stored CUBINs are code that
// runs on the GPU.
void create_private_directory(const std::filesystem::path& dir);

std::string shape_to_string(const std::vector<std::int64_t>& shape);  // "8192x2048"
// Parses "8192x2048" (or sizes with another separator, e.g. "2051,8195"); nullopt when
// malformed or not positive.
std::optional<std::vector<std::int64_t>> parse_shape(std::string_view text, char separator = 'x');

// A compiled kernel binary and the (mangled) names of its entry functions, one per line.
struct StoredBinary {
  std::string bytes;
  std::string entry;
};

// Where a compiled kernel is: the stored binary (its key) that holds it, and its entry
// (mangled name) there.
struct KernelLocation {
  std::string binary_key, entry;
};

// The tuning database: SQLite in WAL mode (atomic, crash-safe, several writers),
// schema-versioned. A file proven not to be a healthy ktune database (corrupt, not a
// database, not ktune's schema) is renamed aside under a name no one has, after its
// readable records were copied into a fresh one that takes its place; anything else
// (busy, locked, full disk, permissions, a newer ktune's schema) is an error with its
// reason and the file is left as it is. A
// database of an earlier schema is migrated in place, in one transaction, after a
// copy of it is kept next to it (`<path>.schema<N>`) for the ktune that wrote it;
// opened read-only it is read as it is.
class Database {
 public:
  // $KTUNE_CACHE_DIR, else $XDG_CACHE_HOME/ktune, else ~/.cache/ktune.
  static std::filesystem::path default_dir();
  static std::filesystem::path default_path() { return default_dir() / "tuning.db"; }
  // `given`, or default_path() when it is empty (an option left unset).
  static std::filesystem::path path_or_default(const std::filesystem::path& given) {
    return given.empty() ? default_path() : given;
  }

  // Creates the file owner-only (and an owner-only directory) when missing; an existing
  // file keeps its modes. read_only opens an existing database without ever writing or
  // setting it aside (a shipped file on a read-only mount, in WAL mode without its -shm,
  // is read as immutable; a damaged one's readable records are served from memory and
  // recovered_from() says so). A database file or directory that other users may write, or
  // that belongs to another user (not root), is refused (ktune::Error): loading a CUBIN
  // from it would run their code.
  explicit Database(const std::filesystem::path& path, bool read_only = false);
  ~Database();
  Database(Database&&) noexcept;
  Database& operator=(Database&&) noexcept;

  const std::filesystem::path& path() const { return path_; }
  // Set when opening found a damaged file and set it aside: what was wrong, where it
  // went, how many records were copied back and how many were lost.
  const std::optional<std::string>& recovered_from() const { return recovered_from_; }

  // Whether a family's template hash is one this ktune builds (the family's
  // KernelSpec::is_current); the cache itself does not know the templates.
  using IsCurrent = std::function<bool(const std::string& family, const std::string& template_hash)>;
  // Stores the record unless the one stored under the same key wins: a record of a
  // current template beats one of another template whatever their times, and of two
  // records both current (or neither) the faster stays (a stored record with an invalid
  // time never counts as faster). Without `current`, the record given is taken as
  // current and a stored one as current only when it has the same template hash (the
  // tuner's own results). Returns whether it was stored; an invalid record is a
  // ktune::Error.
  bool put(const TuningRecord& record);
  // What put_all did with each record: stored under a new key, stored in place of the
  // record there, or not stored (the record there wins).
  struct PutReport {
    std::size_t added = 0, replaced = 0, kept = 0;
  };
  // put for many records in one transaction (all stored or, on an error, none);
  // returns how many were stored (and, with `report`, how each went).
  std::size_t put_all(const std::vector<TuningRecord>& records, const IsCurrent& current = {},
                      PutReport* report = nullptr);
  std::optional<TuningRecord> get(const std::string& device_key, const std::string& family, const std::string& variant,
                                  const std::string& dtype, const std::vector<std::int64_t>& shape,
                                  std::int64_t align) const;
  // Every record of one device, family, variant and dtype (the candidates of a fallback).
  std::vector<TuningRecord> find(const std::string& device_key, const std::string& family, const std::string& variant,
                                 const std::string& dtype) const;
  std::vector<TuningRecord> all() const;
  // Rows in the results table, readable or not (all() skips, and logs, damaged ones).
  std::size_t row_count() const;
  // SQLite's PRAGMA data_version: changes when another connection (another process, or
  // another Database object) commits to the file; a runtime re-resolves its lookups then.
  std::int64_t data_version() const;
  // Deletes the records `stale` selects; returns how many.
  std::size_t prune(const std::function<bool(const TuningRecord&)>& stale);

  // Human-readable interchange: {"ktune_schema": N, "records": [...]}; imports
  // accept this schema and the earlier ones.
  nlohmann::json export_json() const;
  // Puts every record (keeping the faster per key, as put does); returns how many were
  // stored. All or nothing: every record is read and validated first (`valid_config`,
  // when given, checks a record's family and config, e.g. against the family's space),
  // and a ktune::Error lists each rejected record with its reason.
  std::size_t import_json(const nlohmann::json& doc,
                          const std::function<std::optional<std::string>(const TuningRecord&)>& valid_config = {},
                          const IsCurrent& current = {});
  // A self-contained copy for shipping with an application: one file, not in WAL mode,
  // read-only (0444), that opens read-only on a read-only mount. `dest` must not exist.
  void write_shipping_copy(const std::filesystem::path& dest) const;

  // Compiled binaries, keyed by the hash of what produced them. A blob whose content
  // hash no longer matches is reported (returns nullopt) and deleted.
  void put_binary(const std::string& key, const StoredBinary& binary);
  std::optional<StoredBinary> get_binary(const std::string& key);
  // Kernel locations: every kernel of a binary compiled for several instances is
  // findable under its own key (kernel_key -> entry pairs, located in binary_key), so
  // whatever needs one of them later loads that binary instead of compiling it again.
  // nullopt where none is known (also in files written before locations existed).
  void put_kernel_locations(const std::string& binary_key,
                            const std::vector<std::pair<std::string, std::string>>& kernels);
  std::optional<KernelLocation> kernel_location(const std::string& kernel_key);

  // 2: records carry "rate" and "rate_unit" (schema 1: "gbps", which held GFLOP/s
  // for GEMM). 3: family and variant are separate fields and key columns.
  static constexpr int k_schema_version = 3;
  // Set when opening migrated the file from an earlier schema: where the copy is.
  const std::optional<std::filesystem::path>& migrated_backup() const { return migrated_backup_; }

 private:
  struct Handle;
  struct OpenProblem;
  std::optional<OpenProblem> try_open(const std::filesystem::path& path, bool immutable);
  void create_fresh(const std::filesystem::path& path);
  std::optional<OpenProblem> open_shipped(const std::filesystem::path& path, const OpenProblem& problem);
  void serve_salvaged(const std::filesystem::path& path, const std::string& why);
  void serve_older_schema();
  void serve_from_memory(const std::vector<TuningRecord>& records);
  void set_aside_and_salvage(const std::filesystem::path& path, std::pair<dev_t, ino_t> judged, const std::string& why);
  std::optional<std::string> create_or_migrate(Handle& db, const std::filesystem::path& path);
  std::filesystem::path path_;
  std::unique_ptr<Handle> db_;
  bool read_only_ = false;
  bool older_schema_ = false;  // opened read-only at an earlier schema: served from memory
  std::optional<std::string> recovered_from_;
  std::optional<std::filesystem::path> migrated_backup_;
};

}  // namespace ktune
