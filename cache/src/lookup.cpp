#include <ktune/cache/lookup.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace ktune {

std::string_view to_string(MatchLevel level) {
  switch (level) {
    case MatchLevel::exact: return "exact";
    case MatchLevel::nearest: return "nearest";
    case MatchLevel::same_arch: return "same_arch";
    case MatchLevel::fallback: break;
  }
  return "fallback";
}

LookupResult lookup(const std::vector<TuningRecord>& candidates, const std::vector<std::int64_t>& shape,
                    std::int64_t align, const std::vector<std::string>& current_hashes,
                    const std::function<bool(const TuningRecord&)>& usable) {
  LookupResult result;
  double best = std::numeric_limits<double>::infinity();
  for (const auto& rec : candidates) {
    if (std::find(current_hashes.begin(), current_hashes.end(), rec.template_hash) == current_hashes.end()) {
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
    // The alignment class is one more coordinate: a winner tuned at this class (odd
    // pitches, say) accesses memory as this call will; one of another class is merely
    // valid here (H200, f32 8192x2048 at pitches 2051/8195: the 8192x2048 winner ran
    // at 73.6% of memcpy).
    const double a = std::log(static_cast<double>(std::max<std::int64_t>(rec.align, 1)) /
                              static_cast<double>(std::max<std::int64_t>(align, 1)));
    d += a * a;
    // A tie breaks towards the larger alignment class (faster configs), then the key.
    if (d < best || (d == best && result.record && rec.align > result.record->align)) {
      best = d;
      result.level = MatchLevel::nearest;
      result.record = rec;
    }
  }
  return result;
}

LookupResult lookup_config(const Database& db, const std::string& device_key, const TuningProblem& p,
                           const DeviceLimits& limits) {
  const KernelSpec& spec = *p.spec;
  const Problem& problem = p.problem;
  const auto usable = [&](const TuningRecord& r) {
    try {
      return !why_invalid(spec, config_from_json(spec, r.config), limits, problem);
    } catch (const std::exception&) {
      return false;  // the template's tunables changed since it was stored
    }
  };
  const std::int64_t align = p.align();
  LookupResult r = lookup(db.find(device_key, p.family(), p.variant, p.dtype_key), p.shape, align, spec.current_hashes(), usable);
  if (r.record) return r;
  // Another device model of the same compute capability: its winners compile for this
  // arch and are usually far better than the safe default.
  const auto arch = [](const std::string& key) {
    const std::size_t a = key.find("|sm_");
    return a == std::string::npos ? std::string() : key.substr(a, key.find('|', a + 1) - a);
  };
  std::vector<TuningRecord> others;
  for (auto& rec : db.all())
    if (rec.device_key != device_key && !arch(device_key).empty() && arch(rec.device_key) == arch(device_key) &&
        rec.family == p.family() && rec.variant == p.variant && rec.dtype == p.dtype_key)
      others.push_back(std::move(rec));
  LookupResult o = lookup(others, p.shape, align, spec.current_hashes(), usable);
  o.stale += r.stale;
  if (o.record) o.level = MatchLevel::same_arch;
  return o;
}

}  // namespace ktune
