#pragma once
// A user's own kernel, tuned without C++ glue: a .cu file whose `// @` header says what
// any kernel's does (name, entry, tunables, constraints, launch geometry) plus its
// problem, arguments and verification:
//
//   // @problem nx, ny                        problem variables (positive integers)
//   // @type    T = f32, f64                  optional: the entry's type parameter
//   // @arg     out y : T[nx * ny]            in | out | inout NAME : TYPE[ELEMENTS]
//   // @arg     in  x : T[nx * ny] in [-1, 1] optional range of the random inputs
//   // @arg     out h : i32[256] zeroed       zeroed, not poisoned, before each check
//   // @arg     scalar n : i32 = nx * ny      scalar NAME : TYPE = EXPRESSION | NUMBER
//   // @verify  reference = jacobi_ref        a reference kernel in the same file, with
//   // @verify  block = (256, 1, 1)           its own launch geometry, or
//   // @verify  grid = (ceil_div(nx * ny, 256), 1, 1)
//   // @verify  config = tile_x=32 tile_y=8   a trusted config of the kernel itself
//   // @verify  tolerance = rel 1e-5          exact, or abs X + rel Y + ... (tolerance.hpp)
//   // @work    flops = 2 * m * n * k         optional: FLOPs, reported in FLOP/s against
//                                             FMA chains of the same FLOPs; or
//   // @work    bytes = 2 * n * 4             the bytes it must move (default: every
//                                             pointer argument once, inout twice)
//   // @default tile_x=64 tile_y=4            optional: the config a call nobody tuned
//                                             runs where valid (else the trusted config,
//                                             else the first valid one)
//
// The tuner (tuner/user_kernel_harness) makes random inputs (never all zeros), poisons
// outputs, restores inputs before every candidate, checks guard bytes past every output
// for writes out of bounds, compares each candidate with the reference and times it
// like a built-in; the runtime (ktune::Kernel) launches the stored winner.
#include <ktune/generator/tolerance.hpp>
#include <ktune/generator/tuning_problem.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ktune {

struct KernelArg {
  enum class Role { in, out, inout, scalar };
  Role role = Role::in;
  std::string name;
  std::string type;  // a dtype, or the type parameter's name
  Expr size;         // elements, for pointers
  std::string value; // scalars: a number, or an integer expression of the problem
  double low = 0, high = 0;  // random inputs in [low, high]; low == high: the type's default range
  bool zeroed = false;       // out: zeroed, not poisoned, before each check (accumulating kernels)
  int line = 0;              // of its `// @arg` line, for messages
  bool pointer() const { return role != Role::scalar; }
};

// What a user's kernel may declare (the runtime's launch keeps them in fixed arrays),
// and the largest kernel file read.
constexpr std::size_t k_max_problem_variables = 8, k_max_kernel_args = 32;
constexpr std::size_t k_max_kernel_file_bytes = std::size_t{16} << 20;

struct UserKernel {
  KernelSpec spec;
  std::string origin;  // the file, for messages
  std::vector<std::string> variables;
  std::vector<KernelArg> args;
  std::string reference;  // a reference kernel's entry; empty: `trusted` is the reference
  std::array<Expr, 3> reference_block, reference_grid;
  std::optional<Config> trusted;
  std::optional<Config> preferred;  // `// @default`
  Tolerance tolerance;
  int tolerance_line = 0;
  // `// @work`: expressions of the problem variables (FloatExpr), or none.
  std::optional<FloatExpr> work_flops, work_bytes;
  int work_line = 0;
};

// Throws ktune::Error naming `origin`, the line and what is wrong.
// Shared: the problems and harnesses made from it point into it.
std::shared_ptr<const UserKernel> parse_user_kernel(const std::string& source, const std::string& origin);
std::shared_ptr<const UserKernel> load_user_kernel(const std::string& path);

// One problem of a user's kernel: each variable's value, and the type argument.
struct UserProblem {
  std::vector<std::int64_t> values;  // in the order of `variables`
  DType type = DType::f32;           // the type parameter's dtype (see default_type)
  // The alignment class (`align` in the description): the largest power of two, in
  // elements of `type`, at most 16 bytes, dividing every pointer argument's address.
  // 0: the largest (16 bytes), which the tuner's own buffers have.
  std::int64_t align = 0;
};

// A problem's alignment class resolved: p.align, or 16 bytes' worth of elements.
std::int64_t align_class(const UserProblem& p);
// The class of a call's pointer addresses (nullptr counts as aligned), for `type`.
std::int64_t align_class_of(const std::uintptr_t* addresses, std::size_t count, DType type);
inline std::int64_t align_class_of(const std::vector<std::uintptr_t>& addresses, DType type) {
  return align_class_of(addresses.data(), addresses.size(), type);
}

// The first dtype the @type line lists; without a type parameter, the first pointer
// argument's dtype. It is the dtype key of the stored results and `elem_bytes` in the
// description's expressions.
DType default_type(const UserKernel& kernel);

// "nx=8192", "T=f16", "align=2", ...: every variable once (align optional: the
// alignment class to tune for); throws naming what is missing or unknown.
UserProblem bind_user_problem(const UserKernel& kernel, const std::vector<std::string>& assignments);

// Keys: family = the kernel's name, variant = the hash of its source (two files with
// one kernel name never share records), dtype = the type argument, shape = the
// variables' values.
TuningProblem user_tuning_problem(const UserKernel& kernel, const UserProblem& problem);

// The problem variables by name, for evaluating the description's expressions (refers
// to both arguments: use it while they live).
Scope problem_scope(const UserKernel& kernel, const UserProblem& problem);
// The tolerance's bounds for a problem (its scales evaluated with the problem's values);
// throws InvalidArgument naming the file and line when one is negative or undefined.
ToleranceBounds tolerance_bounds(const UserKernel& kernel, const UserProblem& problem);
// The problem's @work values (0 where not declared); throws naming the file and line
// when one is not a positive number.
struct Work {
  double flops = 0, bytes = 0;
};
Work work_of(const UserKernel& kernel, const UserProblem& problem);
// An argument's dtype for a problem (resolves the type parameter's name).
DType arg_dtype(const UserKernel& kernel, const KernelArg& arg, const UserProblem& problem);
// The C++ type of a dtype in a user's kernel (float, __half, int, ...).
std::string user_type_name(DType dtype);
// The value of every scalar argument and the element count of every pointer argument,
// in argument order (a scalar's value is a double; counts are checked positive).
std::vector<double> arg_values(const UserKernel& kernel, const UserProblem& problem);

}  // namespace ktune
