#pragma once
// How long each problem of a workload took to tune, kept so that a later run starts the
// longest first (a long problem started last leaves the other GPUs idle at the end) and
// an array job's shards get equal shares of the work. The workload runners append a line
// per problem tuned to LOG_DIR/tuning-times.tsv:
//   SECONDS <TAB> GPU NAME <TAB> PROBLEM (as in the workload, its own search options included)
// A later line for the same problem wins.
#include <cstddef>
#include <filesystem>
#include <iosfwd>
#include <map>
#include <string>
#include <vector>

namespace ktune {

using TuningTimes = std::map<std::string, double>;  // problem -> seconds

// The times in `in`. A line that does not parse is reported on stderr as "NAME:LINE: why"
// and skipped (the times only order work; nothing is lost by skipping one).
TuningTimes read_tuning_times(std::istream& in, const std::string& name);
// The file's times; a missing file has none. Throws ktune::Error when it cannot be read.
TuningTimes read_tuning_times(const std::filesystem::path& file);

// Appends one line (one write of the whole line, so that runners appending at once do
// not interleave). Warns on stderr, without throwing, when it cannot.
void append_tuning_time(const std::filesystem::path& file, double seconds, const std::string& gpu,
                        const std::string& problem);

// Each problem's expected seconds: its recorded time, else the median of the recorded
// ones (1 when none is), so that an unknown problem neither jumps the queue nor waits.
std::vector<double> expected_seconds(const std::vector<std::string>& problems, const TuningTimes& times);

// Indices of `seconds`, longest first; equal ones keep their order (no times: file order).
std::vector<std::size_t> longest_first(const std::vector<double>& seconds);

// Shard `i` of `n` (indices, longest first): each problem, longest first, goes to the
// shard with the least work so far (the lowest-numbered one of equals). Every index is in
// exactly one shard; with equal times, shard i holds i, i+n, i+2n, ...
std::vector<std::size_t> balanced_shard(const std::vector<double>& seconds, std::size_t i, std::size_t n);

}  // namespace ktune
