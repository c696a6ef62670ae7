#include "problem/record_key.hpp"

#include <ktune/error.hpp>

namespace ktune {

TuningRecord parse_record_key(const nlohmann::json& j, const std::string& what) {
  TuningRecord r;
  try {
    if (j.is_discarded() || !j.is_object()) throw Error("not a JSON object");
    r.family = j.at("family").get<std::string>();
    r.variant = j.value("variant", std::string());
    r.dtype = j.at("dtype").get<std::string>();
    r.shape = j.at("shape").get<std::vector<std::int64_t>>();
    r.align = j.value("align", std::int64_t{0});  // 0: not given, the family's dense class
  } catch (const std::exception& e) {
    throw Error(what + ": " + e.what() + " (want {\"family\", \"variant\", \"dtype\", \"shape\"} and optionally \"align\")");
  }
  return r;
}

TuneTarget record_target(const TuningRecord& r, const std::string& what) {
  const FamilyPart& part = family(r.family);
  TuneTarget target = family_target(part, part.options_of(r));
  const std::int64_t tuned = target.problem.align();
  if (r.align > 0 && tuned != r.align)
    throw Error(what + ": " + r.family + " tunes this problem at alignment class " + std::to_string(tuned) +
                " only, not the call's " + std::to_string(r.align) + " (its calls use the nearest stored record)");
  return target;
}

}  // namespace ktune
