#pragma once
#include <string>
#include <vector>

namespace ktune {

struct CompileOutput {
  std::string cubin;
  std::vector<std::string> lowered_names;  // mangled names, in the order of the name expressions
  std::string log;
  double milliseconds = 0;
};

// NVRTC straight to CUBIN for sm_<arch> (no PTX, no driver JIT), C++17, several
// template instances of one source in one program (one parse for all of them).
// Throws ktune::Error with the program name, the options and NVRTC's log.
CompileOutput compile_cubin(const std::string& source, const std::vector<std::string>& name_expressions,
                            int arch, const std::string& program_name);

std::vector<std::string> compile_options(int arch);
std::string nvrtc_version();  // e.g. "13.0"
// Key of a compiled binary: hash of everything that determines its bytes.
std::string binary_key(const std::string& source, const std::vector<std::string>& name_expressions, int arch);

}  // namespace ktune
