#include "search/search_log.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>

namespace ktune {

SearchLog::SearchLog(std::filesystem::path path) : path_(std::move(path)) {
  create_private_directory(path_.parent_path());
  out_.open(path_, std::ios::out | std::ios::trunc);
  if (!out_) throw Error("cannot write search log " + path_.string());
}

void SearchLog::write(const nlohmann::json& line) {
  out_ << line.dump() << '\n';
  out_.flush();
}

}  // namespace ktune
