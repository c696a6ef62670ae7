#include <ktune/cache/resolve.hpp>

#include <ktune/generator/family_model.hpp>

#include <cmath>

namespace ktune {

bool fits_call(const TuningRecord& record, const std::vector<std::int64_t>& shape, std::int64_t align) {
  if (record.align != align || record.shape.size() != shape.size()) return false;
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (std::abs(std::log2(static_cast<double>(record.shape[i]) / static_cast<double>(shape[i]))) > 1.0) return false;
  return true;
}

Resolved resolve_config(const Database* db, const std::vector<TuningRecord>& shipped, const std::string& device_key,
                        const TuningProblem& p, const DeviceLimits& limits) {
  Resolved out;
  const auto answer = [&](const LookupResult& r, MatchLevel level) {
    out.level = level;
    out.record = r.record;
    out.config = config_from_json(*p.spec, r.record->config);
    return out;
  };
  const auto fits = [&](const LookupResult& r) { return r.record && fits_call(*r.record, p.shape, p.align()); };
  LookupResult mine;
  if (db) mine = lookup_config(*db, device_key, p, limits);
  out.stale = mine.stale;
  if (fits(mine)) return answer(mine, mine.level);
  const LookupResult ours = lookup_config(shipped, device_key, p, limits);
  if (fits(ours)) return answer(ours, MatchLevel::shipped);
  if (std::optional<Config> pick = model_pick(*p.spec, limits, p.problem)) {
    out.level = MatchLevel::model;
    out.config = std::move(*pick);
    return out;
  }
  if (mine.record) return answer(mine, mine.level);
  if (ours.record) return answer(ours, MatchLevel::shipped);
  out.config = p.default_config;
  return out;
}

}  // namespace ktune
