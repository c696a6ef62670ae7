#include <ktune/generator/json.hpp>

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

}  // namespace ktune
