#pragma once
// A tuning run read back from its search log (JSON Lines).
#include <ktune/generator/space.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace ktune {

struct RecordedRun {
  nlohmann::json header;   // the run's first line
  std::optional<nlohmann::json> closing;  // absent while a run is in progress or was killed
  DType dtype = DType::f32;
  std::vector<Config> configs;                 // candidates in log order
  std::vector<std::optional<double>> median_us;  // nullopt: failed
  std::vector<nlohmann::json> candidates;      // the candidate lines themselves
  std::optional<Config> winner;                // from the closing line, when there is one
  std::size_t bad_lines = 0;                   // truncated or corrupt lines, skipped
  std::string first_bad_line;                  // "file:line: why" of the first one with a reason

  // Index of the fastest candidate; nullopt when none succeeded.
  std::optional<std::size_t> best() const;
  // The kernel description the run tuned (see run_spec).
  const KernelSpec& spec() const;
};

// The kernel description of a log header: a built-in family's, or a user's kernel's
// from the source the header carries ("kernel_source"). Throws ktune::Error when
// neither is there.
const KernelSpec& run_spec(const nlohmann::json& header);

// Reads a search log of a family the build knows, or of a user's kernel. Corrupt or truncated lines are
// counted and skipped; a missing header or an unknown family throws ktune::Error.
// Tunables added to the template after the log was written take their first declared
// value (a new tunable lists the old behaviour first).
RecordedRun read_search_log(const std::filesystem::path& path);

}  // namespace ktune
