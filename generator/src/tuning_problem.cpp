#include <ktune/generator/tuning_problem.hpp>

namespace ktune {

std::string TuningProblem::describe() const {
  std::string text = family();
  if (!variant.empty()) text += " " + variant;
  text += " " + dtype_key + " ";
  for (std::size_t i = 0; i < shape.size(); ++i) text += (i ? "x" : "") + std::to_string(shape[i]);
  return text;
}

}  // namespace ktune
