#include <ktune/cache/lookup.hpp>

#include <cmath>
#include <limits>

namespace ktune {

std::string_view to_string(MatchLevel level) {
  switch (level) {
    case MatchLevel::exact: return "exact";
    case MatchLevel::nearest: return "nearest";
    case MatchLevel::fallback: break;
  }
  return "fallback";
}

LookupResult lookup(const std::vector<TuningRecord>& candidates, const std::vector<std::int64_t>& shape,
                    std::int64_t align, const std::string& template_hash,
                    const std::function<bool(const TuningRecord&)>& usable) {
  LookupResult result;
  double best = std::numeric_limits<double>::infinity();
  for (const auto& rec : candidates) {
    if (rec.template_hash != template_hash) {
      ++result.stale;
      continue;
    }
    if (rec.shape.size() != shape.size() || !usable(rec)) continue;
    if (rec.shape == shape && rec.align == align) {
      result.level = MatchLevel::exact;
      result.record = rec;
      best = -1;
      continue;
    }
    if (result.level == MatchLevel::exact) continue;
    double d = 0;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      const double l = std::log(static_cast<double>(rec.shape[i]) / static_cast<double>(shape[i]));
      d += l * l;
    }
    // A tie breaks towards the larger alignment class (faster configs), then the key.
    if (d < best || (d == best && result.record && rec.align > result.record->align)) {
      best = d;
      result.level = MatchLevel::nearest;
      result.record = rec;
    }
  }
  return result;
}

LookupResult lookup_config(const Database& db, const std::string& device_key, const KernelSpec& spec,
                           const DeviceLimits& limits, const Problem& problem, const std::vector<std::int64_t>& shape) {
  const auto usable = [&](const TuningRecord& r) {
    try {
      return !why_invalid(spec, config_from_json(spec, r.config), limits, problem);
    } catch (const std::exception&) {
      return false;  // the template's tunables changed since it was stored
    }
  };
  return lookup(db.find(device_key, spec.family(), std::string(to_string(problem.dtype))), shape,
                problem.get("align").value_or(1), spec.source_hash(), usable);
}

}  // namespace ktune
