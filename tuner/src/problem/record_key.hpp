#pragma once
// A stored record's key ({"family", "variant", "dtype", "shape"} and optionally "align")
// as a problem to tune: `ktune tune --record JSON` (the runtime's tune-on-miss) and a
// captured built-in call's bundle both come here.
#include <ktune/tuner/family.hpp>

#include <string>

#include <nlohmann/json.hpp>

namespace ktune {

// Throws ktune::Error "WHAT: why" for a key that is not such an object.
TuningRecord parse_record_key(const nlohmann::json& key, const std::string& what);

// The family's target for the key. Throws ktune::Error "WHAT: why" for an unknown
// family, a key no problem of the family has, or an alignment class (align > 0) the
// family cannot tune that problem at: a winner stored under another class would never
// be the call's exact match.
TuneTarget record_target(const TuningRecord& key, const std::string& what);

}  // namespace ktune
