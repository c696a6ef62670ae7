#pragma once
// Ties a KernelParams list (ktune/runtime/launch.hpp) to a kernel's declaration in its
// source: the same number of parameters, each of the same kind. Used by each family's
// tests for its entries, and tested itself in tests/runtime/launch_params_test.cpp.
#include <gtest/gtest.h>

#include <cctype>
#include <cstddef>
#include <regex>
#include <string>
#include <vector>

namespace ktune {

// One parameter declaration ("const typename T::in* __restrict__ A") as a kind of
// param_kind(): "pointer", a scalar type, "dependent" (a template's type: T, Acc,
// typename X::y) or "struct".
inline std::string declared_kind(std::string decl) {
  if (decl.find('*') != std::string::npos) return "pointer";
  for (const char* word : {"const", "__restrict__", "__grid_constant__", "typename", "volatile"})
    decl = std::regex_replace(decl, std::regex(std::string("\\b") + word + "\\b"), " ");
  std::vector<std::string> words;
  for (std::size_t i = 0; i < decl.size();) {
    while (i < decl.size() && std::isspace(static_cast<unsigned char>(decl[i]))) ++i;
    std::size_t j = i;
    while (j < decl.size() && !std::isspace(static_cast<unsigned char>(decl[j]))) ++j;
    if (j > i) words.push_back(decl.substr(i, j - i));
    i = j;
  }
  if (words.size() < 2) return "unparsed: " + decl;
  words.pop_back();  // the parameter's name
  std::string type;
  for (const auto& w : words) type += (type.empty() ? "" : " ") + w;
  if (type == "unsigned int") type = "unsigned";
  for (const char* scalar : {"int", "unsigned", "long long", "unsigned long long", "float", "double"})
    if (type == scalar) return type;
  if (type.find("::") != std::string::npos || (words.size() == 1 && std::isupper(static_cast<unsigned char>(type[0])) &&
                                               type.size() <= 3))
    return "dependent";
  return "struct";
}

// The kinds of the parameters of the first `__global__` declaration of `entry` in
// `source`; empty when there is none.
inline std::vector<std::string> declared_params(const std::string& source, const std::string& entry) {
  const std::regex name("\\b" + entry + "\\s*\\(");
  for (auto it = std::sregex_iterator(source.begin(), source.end(), name); it != std::sregex_iterator(); ++it) {
    const auto at = static_cast<std::size_t>(it->position());
    const std::size_t line = source.rfind("__global__", at);
    if (line == std::string::npos || at - line > 400 || source.find(';', line) < at) continue;
    std::vector<std::string> kinds;
    std::string current;
    int depth = 0;
    for (std::size_t i = at + static_cast<std::size_t>(it->length()); i < source.size(); ++i) {
      const char c = source[i];
      if (c == '(' || c == '<') ++depth;
      if ((c == ')' || c == '>') && depth > 0) {
        --depth;
      } else if (c == ')' || (c == ',' && depth == 0)) {
        if (current.find_first_not_of(" \t\n") != std::string::npos) kinds.push_back(declared_kind(current));
        current.clear();
        if (c == ')') return kinds;
        continue;
      }
      current += c;
    }
  }
  return {};
}

// `kinds` (a KernelParams list) against the entry's first `declared` parameters (all
// when 0): a dependent parameter takes any scalar.
inline ::testing::AssertionResult params_match(const std::string& source, const std::string& entry,
                                               const std::vector<std::string>& kinds, std::size_t declared = 0) {
  const auto want = declared_params(source, entry);
  if (want.empty()) return ::testing::AssertionFailure() << "no __global__ " << entry << "(...) in the source";
  const std::size_t n = declared ? declared : kinds.size();
  if (want.size() != n || kinds.size() < n)
    return ::testing::AssertionFailure() << entry << " declares " << want.size() << " parameters; the launch passes "
                                         << kinds.size() << " (checked: " << n << ")";
  for (std::size_t i = 0; i < n; ++i) {
    const bool scalar = kinds[i] != "pointer" && kinds[i] != "struct";
    if (want[i] != kinds[i] && !(want[i] == "dependent" && scalar))
      return ::testing::AssertionFailure() << entry << " parameter " << i + 1 << " is " << want[i] << ", the launch passes "
                                           << kinds[i];
  }
  return ::testing::AssertionSuccess();
}

}  // namespace ktune
