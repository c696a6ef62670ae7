#include <ktune/generator/json.hpp>

#include <algorithm>
#include <cstdint>

namespace ktune {

nlohmann::json parse_json(std::string_view text, int max_depth, bool* too_deep) {
  bool deep = false;
  nlohmann::json j = nlohmann::json::parse(
      text,
      [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth > max_depth) deep = true;
        return !deep;
      },
      false);
  if (too_deep) *too_deep = deep;
  return deep ? nlohmann::json(nlohmann::json::value_t::discarded) : j;
}

std::optional<std::string> json_field_error(const nlohmann::json& j, const std::string& name, JsonType type,
                                            bool required) {
  if (!j.is_object() || !j.contains(name)) {
    if (required) return "no '" + name + "'";
    return std::nullopt;
  }
  const nlohmann::json& v = j[name];
  bool ok = false;
  switch (type) {
    case JsonType::string: ok = v.is_string(); break;
    case JsonType::number: ok = v.is_number(); break;
    case JsonType::integer: ok = v.is_number_integer(); break;
    case JsonType::object: ok = v.is_object(); break;
    case JsonType::array: ok = v.is_array(); break;
    case JsonType::integer_list:
      ok = v.is_array() && std::all_of(v.begin(), v.end(), [](const nlohmann::json& e) { return e.is_number_integer(); });
      break;
  }
  static const char* const names[] = {"a string", "a number", "an integer", "an object", "a list", "a list of integers"};
  if (ok) return std::nullopt;
  return "'" + name + "' is not " + names[static_cast<int>(type)];
}

bool is_valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const auto c = static_cast<unsigned char>(text[i]);
    const int extra = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : -1;
    if (extra < 0 || text.size() - i <= static_cast<std::size_t>(extra)) return false;  // a bad lead, or cut short
    std::uint32_t code = extra == 0 ? c : c & (0x3F >> extra);
    for (int k = 1; k <= extra; ++k) {
      const auto next = static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]);
      if ((next >> 6) != 0x2) return false;
      code = (code << 6) | (next & 0x3F);
    }
    // overlong forms, UTF-16 surrogates and code points past U+10FFFF are not UTF-8
    static const std::uint32_t smallest[] = {0, 0x80, 0x800, 0x10000};
    if (code < smallest[extra] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return false;
    i += static_cast<std::size_t>(extra) + 1;
  }
  return true;
}

}  // namespace ktune
