#pragma once
// Small, dependency-free SVG charts for the HTML report: each function returns one
// <svg> element with labelled axes, to be inlined into the page (no scripts, no fetches).
#include <string>
#include <vector>

namespace ktune::svg {

struct Axis {
  std::string label;
  bool log = false;  // logarithmic scale (values must be > 0)
};

struct Series {
  std::string name;
  std::vector<double> x, y;
  std::string colour;
};

// Step lines (best-so-far curves), one per series, with a legend when there are several.
std::string step_plot(const std::string& title, const Axis& x, const Axis& y, const std::vector<Series>& series);

// Histogram of values into `bins` equal bins.
std::string histogram(const std::string& title, const Axis& x, const std::vector<double>& values, int bins);

// One column of jittered points per category, with the category's median marked.
std::string strip_plot(const std::string& title, const Axis& y, const std::vector<std::string>& categories,
                       const std::vector<std::vector<double>>& values);

// Cells coloured by value (lower is better: dark = fast); NaN cells are left empty.
std::string heat_map(const std::string& title, const std::string& x_label, const std::vector<std::string>& x_cats,
                     const std::string& y_label, const std::vector<std::string>& y_cats,
                     const std::vector<std::vector<double>>& cells, const std::string& value_label);

// Text safe inside HTML/SVG elements and attributes.
std::string escape(const std::string& text);

}  // namespace ktune::svg
