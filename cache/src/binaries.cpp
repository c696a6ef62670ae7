// The program store: compiled binaries and where each kernel is found.
#include "store.hpp"

namespace ktune {
namespace fs = std::filesystem;
using namespace store;

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
