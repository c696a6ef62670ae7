#pragma once
// The config a call runs, from every source in order (docs/runtime-api.md, "Lookup and
// fallback"):
//   exact      the user's database: this problem tuned on this device model
//   nearest    ... the nearest tuned problem that fits (fits_call below)
//   same_arch  ... the nearest that fits, tuned on another model of the same architecture
//   shipped    the winners shipped for known GPUs (this model, then this architecture)
//   model      the family's static model's first-ranked valid config
//   fallback   the family's safe default
// A record that is usable (valid for the call) but does not fit it is used only where no
// model exists: the model knows the problem; a far record knew another one.
#include <ktune/cache/lookup.hpp>

#include <string>
#include <vector>

namespace ktune {

struct Resolved {
  MatchLevel level = MatchLevel::fallback;
  Config config;
  std::optional<TuningRecord> record;  // what answered at exact .. shipped
  std::size_t stale = 0;               // records skipped because their template changed
};

// A record fits a call when every size is within a factor of 2 of the call's and the
// alignment class is the call's. (Measured, H200: an f32 transpose of 50000^2 served from
// the 8192^2 winner ran at 81% of memcpy; tuned, 95-99%.)
bool fits_call(const TuningRecord& record, const std::vector<std::int64_t>& shape, std::int64_t align);

// `db` may be null (no database); `shipped`: shipped_winners(), or a test's table.
Resolved resolve_config(const Database* db, const std::vector<TuningRecord>& shipped, const std::string& device_key,
                        const TuningProblem& problem, const DeviceLimits& limits);

}  // namespace ktune
