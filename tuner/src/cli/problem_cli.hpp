#pragma once
// The problem options shared by `ktune tune`, `space`, `bench`, `cache explain` and each
// line of a workload file: a registered family and its options (the union of every
// family's, each checked against the family given, problem/problem_args.cpp), or a
// user's kernel (--kernel FILE.cu --problem n=...), or a capture bundle.
#include "problem/problem_args.hpp"
#include "workload/workload.hpp"

#include <CLI/CLI.hpp>

#include <string>

namespace ktune {

void add_problem_options(CLI::App* cmd, ProblemArgs& args);

// A workload line as `ktune tune` would take it (the same options, checked the same
// way): its problem and its own search options. Throws ktune::Error.
void parse_workload_line(const std::string& text, WorkloadEntry& entry);

}  // namespace ktune
