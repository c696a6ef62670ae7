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

// The options for a source: with `-I<toolkit include folder>` when it includes the
// toolkit's headers (needs_toolkit_headers), as half-precision kernels do.
std::vector<std::string> compile_options(int arch, const std::string& source = {});
// Whether `source` includes a CUDA toolkit header (`#include <cuda_...>`), which NVRTC
// does not carry itself.
bool needs_toolkit_headers(const std::string& source);
// The folder holding cuda_fp16.h and cuda_bf16.h: KTUNE_CUDA_INCLUDE, else CUDA_PATH or
// CUDA_HOME's include/, the include/ beside the libnvrtc in use (toolkits and pip's
// nvidia wheels), the toolkit ktune was built with, /usr/local/cuda/include. Throws
// CompileError naming every place it looked when none holds them.
const std::string& cuda_include_dir();
std::string nvrtc_version();  // e.g. "13.0"
// Key of a compiled binary: hash of everything that determines its bytes.
std::string binary_key(const std::string& source, const std::vector<std::string>& name_expressions, int arch);

}  // namespace ktune
