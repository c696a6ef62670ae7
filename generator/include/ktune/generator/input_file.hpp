#pragma once
// Opening files that users and other runs write (workloads, tuning times, search logs)
// for reading.
#include <filesystem>
#include <fstream>
#include <string>

namespace ktune {

// `file` opened for reading when it is a regular file (after links); a FIFO, a device
// (/dev/zero) or a folder is refused with ktune::Error naming `what` and the file, before
// it is opened: opening a FIFO blocks until someone writes, and a device may never end.
std::ifstream open_regular_file(const std::filesystem::path& file, const std::string& what);

}  // namespace ktune
