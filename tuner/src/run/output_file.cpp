#include "run/output_file.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ktune {
namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const fs::path& path, const std::string& what) {
  throw Error("cannot write " + path.string() + ": " + what + " (nothing else was changed)");
}

// Writes all of `text` to fd; false with errno set on a short or failed write.
bool write_all(int fd, const std::string& text) {
  for (std::size_t done = 0; done < text.size();) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += static_cast<std::size_t>(n);
  }
  return true;
}

bool is_sqlite_database(const fs::path& path) {
  char head[16] = {};
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool db = ::read(fd, head, sizeof head) == sizeof head && std::memcmp(head, "SQLite format 3", 16) == 0;
  ::close(fd);
  return db;
}

void write_stream(const fs::path& path, const std::string& text) {
  // Opened non-blocking: a FIFO nobody reads would block the open forever (ENXIO instead).
  const int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) fail(path, errno == ENXIO ? "a FIFO that nobody reads" : std::strerror(errno));
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);  // a reader is there: writes wait for it
  const bool ok = write_all(fd, text);
  const int saved = errno;
  if (::close(fd) != 0 || !ok) fail(path, std::strerror(ok ? errno : saved));
}

void replace_regular(const fs::path& path, const std::string& text, mode_t mode) {
  const fs::path dir = path.parent_path().empty() ? fs::path(".") : path.parent_path();
  std::string tmp = (dir / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) fail(path, std::string("cannot create a file in ") + dir.string() + ": " + std::strerror(errno));
  const bool ok = ::fchmod(fd, mode) == 0 && write_all(fd, text) && ::fsync(fd) == 0;
  const int saved = errno;
  if (::close(fd) != 0 || !ok || ::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = ok ? errno : saved;
    ::unlink(tmp.c_str());
    fail(path, std::strerror(err));
  }
}

}  // namespace

void write_output_file(const fs::path& requested, const std::string& text) {
  std::error_code ec;
  fs::path path = requested;
  for (int hops = 0; fs::is_symlink(fs::symlink_status(path, ec)); ++hops) {  // write the target, keep the link
    if (hops == 40) fail(requested, "too many levels of symbolic links");
    const fs::path target = fs::read_symlink(path, ec);
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  // A database's -wal, -shm or -journal file, existing or not: what is written there is
  // replayed into the database by its next reader.
  if (const auto base = database_of_companion(path); base && is_sqlite_database(*base))
    fail(requested, "it belongs to the database " + base->string() + " (its -wal, -shm or -journal file)");
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    if (errno != ENOENT) fail(requested, std::strerror(errno));
    const mode_t mask = ::umask(0);
    ::umask(mask);
    return replace_regular(path, text, 0666 & ~mask);
  }
  if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) return write_stream(path, text);
  if (S_ISDIR(st.st_mode)) fail(requested, "it is a directory");
  if (!S_ISREG(st.st_mode)) fail(requested, "not a regular file, character device or pipe");
  if (is_sqlite_database(path)) fail(requested, "it is a database; choose another name for this output");
  replace_regular(path, text, st.st_mode & 07777);
}

}  // namespace ktune
