#pragma once
// The problem options shared by `ktune tune`, `space` and `bench`, for every family:
// transpose (--dtype --shape ROWSxCOLS), elementwise (--expr --dtype [--out-dtype]
// --n [--scalar name=value]), reduce (--op --dtype --n), reduce_rows and reduce_cols
// (--op --dtype --shape ROWSxCOLS), gemm (--dtype --shape MxNxK --layout nn).
#include <ktune/tuner/harness.hpp>
#include <ktune/tuner/timing.hpp>

#include <CLI/CLI.hpp>

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ktune {

struct ProblemArgs {
  std::string family = "transpose";
  std::string dtype = "f32";
  std::string shape = "8192x2048";
  std::string expr, out_dtype, op = "sum", layout = "nn";
  std::vector<std::string> scalars;  // name=value
  std::int64_t n = std::int64_t{1} << 28;
  const CLI::App* command = nullptr;  // where the options were given (which ones were)
};

void add_problem_options(CLI::App* cmd, ProblemArgs& args);

// A validated problem: what the space and a dry run need without a GPU, and how to
// build the harness on one.
struct ParsedProblem {
  const KernelSpec* spec = nullptr;
  Problem problem;  // as a tuning run sees it (cuMemAlloc'd buffers)
  std::string source, type_argument, description;
  std::function<std::unique_ptr<Harness>(const DeviceInfo&, const TimingProtocol&)> harness;
};

// Throws ktune::Error saying what is wrong (unknown family or dtype, bad shape, an
// expression that does not parse, scalars not matching the expression, an option
// given that the family does not use).
ParsedProblem parse_problem(const ProblemArgs& args);

// The same problem's options as a command line, for messages ("--dtype f32 --shape ...").
std::string problem_options(const ProblemArgs& args);

}  // namespace ktune
