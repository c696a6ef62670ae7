#pragma once
// A workload file for `ktune tune --workload FILE`: one problem per line, written as
// after `ktune tune`, e.g.
//   transpose --dtype f32 --shape 8192x2048
//   --kernel stencil/jacobi.cu --problem nx=4096,ny=4096   # paths relative to the file
//   --capture captures/jacobi-1f2e3d4c-f32-4096x4096.ktcap
// Blank lines and text after '#' are ignored.
#include "problem/problem_args.hpp"
#include "workload/search_overrides.hpp"

#include <ktune/cache/database.hpp>
#include <ktune/runtime/device.hpp>

#include <filesystem>
#include <functional>
#include <vector>

namespace ktune {

struct WorkloadEntry {
  int line = 0;           // 1-based, for messages
  ProblemArgs args;       // --kernel resolved against the file's folder
  SearchOverrides search;  // the line's own search options (--strategy, --budget-evals, ...)
  std::string error;      // a capture bundle that cannot be used: reported, skipped, the rest go on

  // The problem, resolved from `args` when it is needed: a target holds its kernel's
  // whole source, and a workload of 20k lines holding every target took 1 GB.
  TuneTarget target() const { return resolve_problem(args); }
  // The line as the tuning-times file names it: the problem and its own search options.
  std::string key() const { return problem_command(args) + search.describe(); }
};

// Whether `db` holds the problem's exact record for this GPU, tuned on the current
// template: such a workload problem is skipped (a second run resumes).
bool stored_exactly(const Database& db, const DeviceInfo& dev, const TuneTarget& problem);

// Fills in a line's problem and search options from its text (the command line's
// parser, cli/problem_cli.hpp); throws ktune::Error.
using WorkloadLineParser = std::function<void(const std::string& text, WorkloadEntry& entry)>;

// Every line is read and checked (family, options, values, kernel files) before any
// problem is tuned; the first bad one throws ktune::Error "FILE:LINE: why".
// A bundle that cannot be used is the exception: its entry carries the error.
std::vector<WorkloadEntry> read_workload(const std::filesystem::path& file, const WorkloadLineParser& parse_line);

// Where the workload runners record how long each problem took (workload/tuning_times.hpp):
// tuning-times.tsv in the search logs' folder.
std::filesystem::path tuning_times_path(const TuneOptions& opt);

// `ktune tune --capture FOLDER`: every bundle in it, one entry each (numbered from 1).
std::vector<WorkloadEntry> capture_workload(const std::filesystem::path& folder);

}  // namespace ktune
