#pragma once
// Enums whose values have names: the command line's, the C ABI's and Python's spelling.
//   KTUNE_NAMED_ENUM(Op, sum, max, min)
// declares `enum class Op { sum, max, min }`, to_string(Op) ("max"), and makes
// parse_enum<Op>("max") (nullopt for any other name), enum_names<Op>() ({"sum", "max",
// "min"}) and enum_choices<Op>() ("sum, max, min", for messages) work. Part of ktune's
// public API.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ktune {

template <class E>
struct EnumNames;  // the macro's: `text`, the values' names as written, ", " between them

namespace detail {
// The index-th name of "a, b, c" (empty past the end).
constexpr std::string_view nth_name(std::string_view text, std::size_t index) {
  for (; index > 0; --index) {
    const std::size_t comma = text.find(',');
    if (comma == std::string_view::npos) return {};
    text.remove_prefix(comma + 1);
  }
  text.remove_prefix(text.find_first_not_of(' ') == std::string_view::npos ? text.size() : text.find_first_not_of(' '));
  return text.substr(0, text.find(','));
}
}  // namespace detail

template <class E>
std::optional<E> parse_enum(std::string_view name) {
  for (std::size_t i = 0;; ++i) {
    const std::string_view n = detail::nth_name(EnumNames<E>::text, i);
    if (n.empty()) return std::nullopt;
    if (n == name) return static_cast<E>(i);
  }
}

template <class E>
std::vector<std::string> enum_names() {
  std::vector<std::string> out;
  for (std::size_t i = 0; !detail::nth_name(EnumNames<E>::text, i).empty(); ++i)
    out.emplace_back(detail::nth_name(EnumNames<E>::text, i));
  return out;
}

template <class E>
std::string enum_choices() {
  return std::string(EnumNames<E>::text);
}

}  // namespace ktune

#define KTUNE_NAMED_ENUM(Name, ...)                                                   \
  enum class Name { __VA_ARGS__ };                                                    \
  template <>                                                                         \
  struct EnumNames<Name> {                                                            \
    static constexpr std::string_view text = #__VA_ARGS__;                            \
  };                                                                                  \
  inline std::string_view to_string(Name value) {                                     \
    return detail::nth_name(EnumNames<Name>::text, static_cast<std::size_t>(value)); \
  }
