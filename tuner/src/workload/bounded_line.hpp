#pragma once
// Line reading whose memory is bounded by a limit, not by what a file holds: the readers
// of workload and tuning-times files, which users and other runs write.
#include <cstddef>
#include <iosfwd>
#include <string>

namespace ktune {

// The longest line a workload or tuning-times file may hold (a problem takes one short line).
constexpr std::size_t k_max_workload_line = 64 * 1024;

// The next line of `in` (without its '\n') into `line`, at most `limit` characters; false
// at the end of the input. A longer line sets `too_long`, `line` holding its first `limit`
// characters; the rest of it is read and dropped when `skip_rest` (the next call reads the
// next line), else left unread (a caller that stops there never reads an endless line,
// e.g. /dev/zero, to its end).
bool read_bounded_line(std::istream& in, std::string& line, std::size_t limit, bool& too_long, bool skip_rest);

}  // namespace ktune
