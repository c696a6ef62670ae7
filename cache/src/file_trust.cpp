// Where databases live, and which files may be trusted: ownership, modes, identity.
#include "store.hpp"

namespace ktune {
namespace fs = std::filesystem;
using namespace store;

void create_private_directory(const fs::path& dir) {
  if (dir.empty() || fs::exists(dir)) return;
  create_private_directory(dir.parent_path());
  fs::create_directory(dir);
  fs::permissions(dir, fs::perms::owner_all, fs::perm_options::replace);
}

namespace store {

// Group- or world-writable: someone else could plant a binary.
bool writable_by_others(const fs::path& p) {
  std::error_code ec;
  const auto perms = fs::status(p, ec).permissions();
  return !ec && (perms & (fs::perms::group_write | fs::perms::others_write)) != fs::perms::none;
}

}  // namespace store

fs::path Database::default_dir() {
  if (const std::string d = settings::cache_dir(); !d.empty()) return d;
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x && *x) return fs::path(x) / "ktune";
  if (const char* h = std::getenv("HOME"); h && *h) return fs::path(h) / ".cache" / "ktune";
  return fs::temp_directory_path() / "ktune";
}

namespace store {

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

}  // namespace store
}  // namespace ktune
