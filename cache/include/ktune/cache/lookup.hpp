#pragma once
#include <ktune/cache/database.hpp>
#include <ktune/match_level.hpp>
#include <ktune/generator/tuning_problem.hpp>

#include <functional>

namespace ktune {

struct LookupResult {
  MatchLevel level = MatchLevel::fallback;
  std::optional<TuningRecord> record;  // empty at `fallback`: use the family's safe default
  std::size_t stale = 0;               // records skipped because their template changed
};

// Fallback chain over the records of one device, family and dtype: the exact problem
// -> the nearest tuned problem (squared distance of log sizes per dimension, so aspect
// ratio counts) that `usable` accepts for this call -> fallback. Records tuned on a
// template whose hash is not among `current_hashes` (KernelSpec::current_hashes) are
// never used. (lookup_config adds `same_arch` before the
// fallback.)
LookupResult lookup(const std::vector<TuningRecord>& candidates, const std::vector<std::int64_t>& shape,
                    std::int64_t align, const std::vector<std::string>& current_hashes,
                    const std::function<bool(const TuningRecord&)>& usable);

// The chain above over a database, for one family: a record is usable when its config
// still parses against the family's template and is valid for (device, problem). When
// this device has nothing usable, the nearest usable record of another device model
// with the same compute capability answers, at level `same_arch`.
// Records are found under the problem's keys (family, variant, dtype_key, shape, align).
LookupResult lookup_config(const Database& db, const std::string& device_key, const TuningProblem& problem,
                           const DeviceLimits& limits);
// The same over records in memory (the shipped winners).
LookupResult lookup_config(const std::vector<TuningRecord>& records, const std::string& device_key,
                           const TuningProblem& problem, const DeviceLimits& limits);

}  // namespace ktune
