#pragma once
// Text helpers of the `// @` description readers (kernel_spec.cpp, user_kernel.cpp).
#include <ktune/error.hpp>
#include <ktune/generator/expr.hpp>

#include <array>
#include <cctype>
#include <string>
#include <string_view>
#include <vector>

namespace ktune::description {

inline std::string trim(std::string_view s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return std::string(s.substr(b, e - b));
}

// The names, comma-separated ("none" when there are none), for messages.
inline std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

// Splits on `sep` outside parentheses and angle brackets, trimming each part.
inline std::vector<std::string> split_top(std::string_view s, char sep) {
  std::vector<std::string> out;
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '(' || s[i] == '<') ++depth;
    else if (s[i] == ')' || s[i] == '>') --depth;
    else if (s[i] == sep && depth == 0) {
      out.push_back(trim(s.substr(start, i - start)));
      start = i + 1;
    }
  }
  out.push_back(trim(s.substr(start)));
  return out;
}

inline bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// "(x, y, z)": a launch geometry; throws ktune::Error saying what is wrong.
inline std::array<Expr, 3> parse_dim3(std::string_view text) {
  const std::string t = trim(text);
  if (t.size() < 2 || t.front() != '(' || t.back() != ')') throw Error("expected a (x, y, z) tuple");
  const auto parts = split_top(std::string_view(t).substr(1, t.size() - 2), ',');
  if (parts.size() != 3) throw Error("expected three dimensions");
  return {Expr::parse(parts[0]), Expr::parse(parts[1]), Expr::parse(parts[2])};
}

}  // namespace ktune::description
