#include <ktune/generator/json.hpp>

#include <cstdint>

namespace ktune {

nlohmann::json parse_json(std::string_view text, int max_depth) {
  bool too_deep = false;
  nlohmann::json j = nlohmann::json::parse(
      text,
      [&](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth > max_depth) too_deep = true;
        return !too_deep;
      },
      false);
  return too_deep ? nlohmann::json(nlohmann::json::value_t::discarded) : j;
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
