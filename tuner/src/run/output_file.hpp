#pragma once
#include <filesystem>
#include <string>

namespace ktune {

// Writes a command's output file (`-o`) so that nothing of the user's is lost:
// - a regular file (new or replaced) is written beside itself under a unique
//   temporary name, synced and renamed over it (keeping its mode), so a reader never
//   sees half a file; the temporary is removed on any failure;
// - a symbolic link is followed: its target is replaced that way, the link stays;
// - a character device or FIFO (/dev/stdout, a pipe) is written directly;
// - a directory, another kind of file, a SQLite database (an export given
//   `-o tuning.db`) or one's -wal, -shm or -journal file (existing or not) is refused.
// Every write, sync and close is checked (a full disk is an error). Throws ktune::Error.
void write_output_file(const std::filesystem::path& path, const std::string& text);

}  // namespace ktune
