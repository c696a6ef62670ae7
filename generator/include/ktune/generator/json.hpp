#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>

namespace ktune {

// JSON that a file, a database, a log or a bundle gives, parsed with a bound on its
// nesting: nlohmann's parser is iterative, but dump() and the value's consumers recurse,
// so a value nested 300k deep parsed fine and crashed whatever printed it. Returns a
// discarded value (is_discarded()) for text that is not JSON or nests deeper than
// max_depth (then *too_deep, when given, says which); every ktune document nests a few
// levels.
constexpr int json_max_depth = 64;
nlohmann::json parse_json(std::string_view text, int max_depth = json_max_depth, bool* too_deep = nullptr);

// The JSON types of the fields readers take as given.
enum class JsonType { string, number, integer, object, array, integer_list };
// What is wrong with field `name` of the object `j`: "'name' is not a string", or
// "no 'name'" when it is required and missing; nullopt when it is fine. A file's
// readers check the fields they use with it, so that one malformed field is that file's
// error, never an exception from the JSON library in the middle of a listing.
std::optional<std::string> json_field_error(const nlohmann::json& j, const std::string& name, JsonType type,
                                            bool required = false);

// Whether text is valid UTF-8: a JSON string that is not cannot be dumped (nlohmann
// throws), so text that becomes one (a kernel source in a search log, a config given on
// the command line) is checked where it comes in.
bool is_valid_utf8(std::string_view text);

}  // namespace ktune
