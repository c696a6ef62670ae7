#pragma once
#include <ktune/cache/database.hpp>

#include <string>
#include <vector>

namespace ktune {

// A compiled NVRTC program: CUBIN and the mangled name of each instance, in order.
struct Program {
  std::string cubin;
  std::vector<std::string> entries;
  double compile_ms = 0;  // 0 when read back from the store
  bool stored = false;    // read back from the store, not compiled
};

// The program for these instances of `source`: read back from `store` (keyed by
// binary_key, hash-checked by the database) or compiled with NVRTC and then stored.
// `store` may be null. A store that cannot be read or written only costs a compile
// (reported once in the log); compile errors throw ktune::Error as compile_cubin does.
Program load_or_compile(Database* store, const std::string& source, const std::vector<std::string>& name_expressions,
                        int arch, const std::string& program_name);

}  // namespace ktune
