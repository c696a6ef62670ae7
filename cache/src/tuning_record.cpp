// Tuning records: their JSON, validation and checksum, and the export format.
#include "store.hpp"

#include <ktune/generator/json.hpp>

#include <string>
#include <type_traits>

namespace ktune {
namespace fs = std::filesystem;
using namespace store;

std::string DeviceFingerprint::key() const {
  return name + "|sm_" + std::to_string(cc_major) + std::to_string(cc_minor) + "|" + std::to_string(sm_count) +
         "sm|" + std::to_string(memory_bytes >> 20) + "MiB|" + std::to_string(l2_bytes >> 20) + "MiB";
}

std::string shape_to_string(const std::vector<std::int64_t>& shape) {
  std::string s;
  for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s;
}

std::optional<std::vector<std::int64_t>> parse_shape(std::string_view text, char separator) {
  std::vector<std::int64_t> shape;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t x = std::min(text.find(separator, pos), text.size());
    const std::string_view part = text.substr(pos, x - pos);
    if (part.empty() || part.size() > 18) return std::nullopt;
    std::int64_t v = 0;
    for (char c : part) {
      if (c < '0' || c > '9') return std::nullopt;
      v = v * 10 + (c - '0');
    }
    if (v <= 0) return std::nullopt;
    shape.push_back(v);
    pos = x + 1;
  }
  return shape;
}

nlohmann::json TuningRecord::to_json() const {
  return {{"device_key", device_key},   {"device_name", device_name},
          {"device_uuid", device_uuid}, {"family", family},
          {"variant", variant},
          {"dtype", dtype},             {"shape", shape},
          {"align", align},             {"config", config},
          {"template_hash", template_hash}, {"median_us", median_us},
          {"spread_pct", spread_pct},   {"rate", rate}, {"rate_unit", rate_unit},
          {"ceiling_fraction", ceiling_fraction}, {"tool_version", tool_version},
          {"nvrtc_version", nvrtc_version}, {"driver_version", driver_version},
          {"tuned_at", tuned_at}};
}

namespace store {

// JSON integers only: 1.5 or 1e300 are errors, not silently 1 or INT64_MIN.
std::vector<std::int64_t> strict_integers(const nlohmann::json& j, const char* what) {
  if (!j.is_array()) throw Error(std::string(what) + " must be an array of integers, not " + j.dump().substr(0, 80));
  std::vector<std::int64_t> out;
  for (const auto& v : j) {
    if (v.is_number_unsigned() && v.get<std::uint64_t>() <= std::uint64_t{std::numeric_limits<std::int64_t>::max()})
      out.push_back(static_cast<std::int64_t>(v.get<std::uint64_t>()));
    else if (v.is_number_integer() && !v.is_number_unsigned())
      out.push_back(v.get<std::int64_t>());
    else
      throw Error(std::string(what) + " must hold integers, not " + v.dump().substr(0, 80));
  }
  return out;
}

}  // namespace store

nlohmann::json parse_export(std::istream& in, const std::string& name) {
  constexpr std::size_t max_bytes = std::size_t{1} << 30;
  constexpr int max_depth = 16;  // an export nests 4 deep
  std::string text;
  char buffer[1 << 16];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > max_bytes) throw Error(name + " is larger than 1 GiB; not a ktune export");
  }
  bool too_deep = false;
  const nlohmann::json doc = parse_json(text, max_depth, &too_deep);
  if (too_deep) throw Error(name + " nests deeper than " + std::to_string(max_depth) + " levels; not a ktune export");
  if (doc.is_discarded()) throw Error(name + " is not JSON");
  return doc;
}

std::optional<std::string> TuningRecord::invalid() const {
  if (device_key.empty() || family.empty() || dtype.empty() || template_hash.empty() ||
      family.find(':') != std::string::npos)
    return std::string("device_key, family, dtype and template_hash must not be empty, and the family is one name "
                       "(the variant is its own field)");
  // "f32", or "f32>f16" where outputs differ from inputs (an elementwise cast)
  const auto arrow = dtype.find('>');
  if (!parse_dtype(dtype.substr(0, arrow)) || (arrow != std::string::npos && !parse_dtype(dtype.substr(arrow + 1))))
    return "unknown dtype '" + dtype + "' (known: " + std::string(dtype_names()) + ", or IN>OUT of two of them)";
  if (shape.empty()) return std::string("shape is empty");
  for (auto d : shape)
    if (d < 1 || d > std::numeric_limits<std::int32_t>::max())
      return "shape " + nlohmann::json(shape).dump() + " has a size outside 1 .. 2^31-1";
  if (align < 1 || align > 16 || (align & (align - 1)) != 0)
    return "align " + std::to_string(align) + " is not a power of two from 1 to 16";
  if (!plausible_kernel_time(median_us))
    return "median_us " + nlohmann::json(median_us).dump() + " is not a time a kernel takes (1e-3 to 1e12 us)";
  if (!std::isfinite(spread_pct) || spread_pct < 0 || !std::isfinite(rate) || rate < 0 || !std::isfinite(ceiling_fraction) ||
      ceiling_fraction < 0)
    return std::string("spread_pct, rate and ceiling_fraction must be finite and not negative");
  if (!config.is_object() || config.empty()) return "config must be a non-empty object, not " + config.dump().substr(0, 80);
  return std::nullopt;
}

std::string TuningRecord::to_stored() const {
  nlohmann::json j = to_json();
  j["checksum"] = hex64(fnv1a64(j.dump()));
  return j.dump();
}

TuningRecord TuningRecord::from_stored(const std::string& text, bool legacy) {
  nlohmann::json j = parse_json(text);
  if (j.is_discarded() || !j.is_object()) throw Error("stored tuning record is not a JSON object");
  if (!legacy && !j.contains("checksum"))
    throw Error("stored tuning record has no checksum (edited outside ktune?): " + j.dump().substr(0, 200));
  if (j.contains("checksum")) {
    const nlohmann::json sum = j["checksum"];
    j.erase("checksum");
    if (sum != hex64(fnv1a64(j.dump())))
      throw Error("stored tuning record fails its checksum (edited outside ktune?): " + j.dump().substr(0, 200));
  }
  return from_json(j);
}

namespace store {

// Schemas 1 and 2 kept family and variant in one key, "family:variant" ("reduce:sum",
// "elementwise:<expr>"), or the family alone where a variant was implied then (a family
// folder declares it: LEGACY in its ktune_family()). This reads those files and exports.
std::pair<std::string, std::string> legacy_key(const std::string& key) {
  const std::size_t colon = key.find(':');
  if (colon != std::string::npos) return {key.substr(0, colon), key.substr(colon + 1)};
  for (const LegacyFamily& f : legacy_families())
    if (f.family == key) return {key, f.implied_variant};
  return {key, ""};
}

// Schema 1 kept the rate as "gbps" whatever it counted: GB/s, unless the family declared
// another unit then.
std::string schema1_rate_unit(const std::string& family) {
  for (const LegacyFamily& f : legacy_families())
    if (f.family == family && !f.schema1_rate_unit.empty()) return f.schema1_rate_unit;
  return "GB/s";
}

}  // namespace store

namespace {

// Field `name` of a record as a T: a missing field or one of another JSON type is an
// error naming the field, what it must be and what it is.
template <class T>
T field(const nlohmann::json& j, const char* name) {
  if (!j.contains(name)) throw Error(std::string("no '") + name + "'");
  const nlohmann::json& v = j.at(name);
  const bool fits = std::is_same_v<T, std::string> ? v.is_string() : v.is_number();
  if (!fits)
    throw Error(std::string("'") + name + "' must be " + (std::is_same_v<T, std::string> ? "a string" : "a number") +
                ", not " + v.dump().substr(0, 80));
  return v.get<T>();
}

}  // namespace

TuningRecord TuningRecord::from_json(const nlohmann::json& j) {
  try {
    TuningRecord r;
    r.device_key = field<std::string>(j, "device_key");
    r.device_name = j.value("device_name", "");
    r.device_uuid = j.value("device_uuid", "");
    r.family = field<std::string>(j, "family");
    if (j.contains("variant"))
      r.variant = field<std::string>(j, "variant");
    else  // schema 1 and 2
      std::tie(r.family, r.variant) = legacy_key(r.family);
    r.dtype = field<std::string>(j, "dtype");
    r.shape = strict_integers(j.at("shape"), "shape");
    r.align = strict_integers(nlohmann::json::array({j.at("align")}), "align").front();
    r.config = j.at("config");
    r.template_hash = field<std::string>(j, "template_hash");
    r.median_us = field<double>(j, "median_us");
    r.spread_pct = j.contains("spread_pct") ? field<double>(j, "spread_pct") : 0.0;
    if (j.contains("rate")) {
      r.rate = field<double>(j, "rate");
      r.rate_unit = field<std::string>(j, "rate_unit");
    } else {  // schema 1
      r.rate = j.value("gbps", 0.0);
      r.rate_unit = schema1_rate_unit(r.family);
    }
    r.ceiling_fraction = j.value("ceiling_fraction", 0.0);
    r.tool_version = j.value("tool_version", "");
    r.nvrtc_version = j.value("nvrtc_version", "");
    r.driver_version = j.value("driver_version", "");
    r.tuned_at = j.value("tuned_at", "");
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw Error(std::string("malformed tuning record: ") + e.what());
  } catch (const Error& e) {
    throw Error(std::string("malformed tuning record: ") + e.what());
  }
}

}  // namespace ktune
