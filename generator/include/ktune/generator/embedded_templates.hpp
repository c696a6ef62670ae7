#pragma once
#include <string_view>
#include <utility>
#include <vector>

namespace ktune {

// (family name, template source) for every file in templates/, embedded at build time.
std::vector<std::pair<std::string_view, std::string_view>> embedded_templates();

}  // namespace ktune
