// libFuzzer target: arbitrary bytes as a tuning database file (read-only as a merged
// shard, then read-write), and as an export to import (through the importer's parser). Whatever the bytes, opening, reading and importing either work or throw
// ktune::Error; nothing crashes, hangs or throws anything else.
#include <ktune/cache/database.hpp>
#include <ktune/error.hpp>

#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fs::path dir = fs::temp_directory_path() / ("ktune-fuzz-" + std::to_string(getpid()));
  fs::remove_all(dir);
  ktune::create_private_directory(dir);
  const fs::path db = dir / "tuning.db";
  std::ofstream(db, std::ios::binary).write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {  // as a merge reads a shard: read-only (a damaged file is salvaged in memory, said by
         // recovered_from, and left as it is), every readable record and the row count
    const ktune::Database shard(db, true);
    (void)shard.recovered_from();
    (void)shard.all();
    (void)shard.row_count();
  } catch (const ktune::Error&) {
  }
  try {
    ktune::Database d(db);  // a broken file is set aside, an empty database replaces it
    (void)d.all();
    (void)d.get_binary("k");
    (void)d.export_json();
  } catch (const ktune::Error&) {
  }
  try {  // the importer: `ktune cache import` parses with parse_export, then imports
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    const auto doc = ktune::parse_export(in, "fuzz");
    ktune::Database d(dir / "import.db");
    d.import_json(doc);
  } catch (const ktune::Error&) {
  }
  return 0;
}
