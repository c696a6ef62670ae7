// libFuzzer target: arbitrary bytes as a search log. Reading either works or throws
// ktune::Error; nothing crashes, hangs or throws anything else, and every candidate read
// has a config of its family's tunables and a positive time. The hardware counters of
// its closing line are read, tabled and explained as `ktune log` does (a malformed record
// is a warning, never a failure).
#include <ktune/error.hpp>
#include <ktune/generator/kernel_time.hpp>
#include <ktune/tuner/recorded_run.hpp>

#include "report/counter_table.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const fs::path file = fs::temp_directory_path() / ("ktune-log-fuzz-" + std::to_string(getpid()) + ".jsonl");
  std::ofstream(file, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  try {
    const ktune::RecordedRun run = ktune::read_search_log(file);
    if (run.configs.size() != run.median_us.size() || run.configs.size() != run.candidates.size()) std::abort();
    for (const auto& t : run.median_us)
      if (t && !ktune::plausible_kernel_time(*t)) std::abort();
    (void)run.best();
    (void)run.header.dump();  // what log show and export print: the depth bound holds
    for (const auto& c : run.candidates) (void)c.dump();
    if (const auto table = ktune::counter_table(run)) {
      (void)ktune::counter_text(*table);
      (void)ktune::explain_winner(*table);
      for (const auto& row : table->rows) (void)ktune::summarize(row);
    }
  } catch (const ktune::Error&) {
  }
  return 0;
}
