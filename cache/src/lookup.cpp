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
    case MatchLevel::shipped: return "shipped";
    case MatchLevel::model: return "model";
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

namespace {

std::string arch_of(const std::string& device_key) {
  const std::size_t a = device_key.find("|sm_");
  return a == std::string::npos ? std::string() : device_key.substr(a, device_key.find('|', a + 1) - a);
}

bool same_problem_keys(const TuningRecord& r, const TuningProblem& p) {
  return r.family == p.family() && r.variant == p.variant && r.dtype == p.dtype_key;
}

// The chain over this device's records of the problem's keys (`mine`), then, when none is
// usable, over another device model's of the same architecture among `others()` (every
// record: a database is read whole only when this device has nothing usable).
template <typename Others>
LookupResult lookup_chain(const std::vector<TuningRecord>& mine, Others others, const std::string& device_key,
                          const TuningProblem& p, const DeviceLimits& limits) {
  const KernelSpec& spec = *p.spec;
  const auto usable = [&](const TuningRecord& r) {
    try {
      return !why_invalid(spec, config_from_json(spec, r.config), limits, p.problem);
    } catch (const std::exception&) {
      return false;  // the template's tunables changed since it was stored
    }
  };
  LookupResult r = lookup(mine, p.shape, p.align(), spec.current_hashes(), usable);
  if (r.record || arch_of(device_key).empty()) return r;
  // Another device model of the same compute capability: its winners compile for this
  // arch and are usually far better than the safe default.
  std::vector<TuningRecord> same_arch;
  for (auto& rec : others())
    if (rec.device_key != device_key && arch_of(rec.device_key) == arch_of(device_key) && same_problem_keys(rec, p))
      same_arch.push_back(std::move(rec));
  LookupResult o = lookup(same_arch, p.shape, p.align(), spec.current_hashes(), usable);
  o.stale += r.stale;
  if (o.record) o.level = MatchLevel::same_arch;
  return o;
}

}  // namespace

LookupResult lookup_config(const Database& db, const std::string& device_key, const TuningProblem& p,
                           const DeviceLimits& limits) {
  return lookup_chain(db.find(device_key, p.family(), p.variant, p.dtype_key), [&] { return db.all(); }, device_key, p,
                      limits);
}

LookupResult lookup_config(const std::vector<TuningRecord>& records, const std::string& device_key,
                           const TuningProblem& p, const DeviceLimits& limits) {
  std::vector<TuningRecord> mine;
  for (const auto& rec : records)
    if (rec.device_key == device_key && same_problem_keys(rec, p)) mine.push_back(rec);
  return lookup_chain(mine, [&]() -> const std::vector<TuningRecord>& { return records; }, device_key, p, limits);
}

}  // namespace ktune
