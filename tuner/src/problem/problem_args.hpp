#pragma once
// A problem as the user names it, and the one place it becomes a tuning target: a
// registered family and its options, a user's kernel (--kernel FILE.cu --problem
// n=...), a capture bundle (--capture), or a record key (--record JSON). The command
// line (cli/), workload lines (workload/) and the runtime's tune-on-miss all come here;
// the CLI only fills ProblemArgs in.
#include <ktune/tuner/family.hpp>

#include <map>
#include <string>
#include <vector>

namespace ktune {

struct ProblemArgs {
  std::string family;
  std::map<std::string, std::vector<std::string>> given;  // option name -> values given
  std::string kernel;                                     // --kernel FILE.cu
  std::vector<std::string> problem;                       // --problem NAME=VALUE[,NAME=VALUE]
  std::string capture;                                    // --capture BUNDLE (a folder: see capture_workload)
};

// Throws ktune::Error saying what is wrong (unknown family, an option the family does
// not take, a bad value, a kernel file that does not describe itself; CaptureError for
// a bundle that cannot be used).
TuneTarget resolve_problem(const ProblemArgs& args);

// Whether the arguments name a problem at all (a family, a kernel, or any option).
bool names_a_problem(const ProblemArgs& args);

// The problem of a record key given as JSON ({"family", "variant", "dtype", "shape"} and
// optionally "align", as the runtime passes it when it tunes on a miss): the family's
// options for it. Throws ktune::Error for malformed JSON, an unknown family, a problem
// given besides it, a key no problem of the family has, or an alignment class the
// family cannot tune that problem at.
ProblemArgs record_problem(const std::string& json, const ProblemArgs& given);

// The problem as a command line, for messages: "transpose --dtype f32 --shape ...".
// problem_tokens: as `ktune tune` arguments, each value whole (an expression has spaces).
std::vector<std::string> problem_tokens(const ProblemArgs& args);
std::string problem_command(const ProblemArgs& args);

}  // namespace ktune
