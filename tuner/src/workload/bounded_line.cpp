#include "workload/bounded_line.hpp"

#include <istream>

namespace ktune {

bool read_bounded_line(std::istream& in, std::string& line, std::size_t limit, bool& too_long, bool skip_rest) {
  line.clear();
  too_long = false;
  bool any = false;
  for (std::istream::int_type c; (c = in.get()) != std::istream::traits_type::eof();) {
    any = true;
    if (c == '\n') return true;
    if (line.size() < limit) {
      line.push_back(static_cast<char>(c));
    } else {
      too_long = true;
      if (!skip_rest) return true;
    }
  }
  return any;
}

}  // namespace ktune
