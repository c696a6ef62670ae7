#pragma once
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

namespace ktune {

// One JSON Lines file per tuning run: a header line, one line per candidate, a closing
// line. Each line is flushed as written, so a run in progress (or killed) is readable.
class SearchLog {
 public:
  explicit SearchLog(std::filesystem::path path);  // throws ktune::Error if unwritable
  void write(const nlohmann::json& line);
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
  std::ofstream out_;
};

}  // namespace ktune
