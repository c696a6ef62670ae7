#pragma once
#include <ktune/cache/database.hpp>

#include <optional>
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

// The program for these instances of `source`, if `store` has it (keyed by binary_key,
// hash-checked by the database): the program compiled for exactly these instances, or,
// for one instance, any stored program that holds it (its kernel location), whose
// other kernels come along unused. `store` may be null; an unreadable store is logged
// and counts as a miss.
std::optional<Program> load_stored(Database* store, const std::string& source,
                                   const std::vector<std::string>& name_expressions, int arch);

// Stores `program` (compiled for these instances) and, for several instances, where
// each of its kernels is. A store that cannot take it is logged, nothing thrown.
void store_program(Database& store, const std::string& source, const std::vector<std::string>& name_expressions,
                   int arch, const Program& program);

// load_stored, else compiled with NVRTC and stored (store_program). `store` may be
// null. A store that cannot be read or written only costs a compile; compile errors
// throw ktune::Error as compile_cubin does.
Program load_or_compile(Database* store, const std::string& source, const std::vector<std::string>& name_expressions,
                        int arch, const std::string& program_name);

}  // namespace ktune
