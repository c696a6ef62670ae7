#pragma once
// ktune's public API: launch the stored best kernel for a problem.
//
//   ktune::LaunchInfo info = ktune::transpose(dst, src, rows, cols, ld_dst, ld_src,
//                                             ktune::DType::f32, stream);
//
// Pointers are device pointers (cudaMalloc / cuMemAlloc) in the current context (or
// device 0's primary context when none is current); stream is a cudaStream_t or
// CUstream (nullptr: the legacy default stream). Calls are thread-safe and
// asynchronous like any kernel launch. After the first call for a problem, a call is
// a hash lookup and a cuLaunchKernel.
// Self-contained: it, the vocabulary headers below and each built family's header
// (<ktune/families.hpp> lists them) are what `cmake --install` puts in include/ktune/;
// nothing from the library's internal layers.
#include <ktune/dtype.hpp>
#include <ktune/error.hpp>
#include <ktune/families.hpp>
#include <ktune/launch_info.hpp>
#include <ktune/match_level.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

namespace ktune {

// A device array for a checked launch: its address, how many elements it holds, and
// their dtype. ktune::array(ptr, count) reads the dtype from the pointer's type (float,
// double, std::int8_t ... std::int64_t, std::uint8_t); for halves give it:
// ktune::Array{ptr, count, ktune::DType::bf16}.
struct Array {
  const void* data;
  std::int64_t count;
  DType dtype;
};
template <class T>
constexpr DType dtype_of_pointer() {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, std::int8_t> ||
                    std::is_same_v<T, std::uint8_t> || std::is_same_v<T, std::int16_t> ||
                    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t>,
                "ktune::array: give a half type's dtype with ktune::Array{ptr, count, dtype}");
  if constexpr (std::is_same_v<T, float>) return DType::f32;
  else if constexpr (std::is_same_v<T, double>) return DType::f64;
  else if constexpr (std::is_same_v<T, std::int8_t>) return DType::i8;
  else if constexpr (std::is_same_v<T, std::uint8_t>) return DType::u8;
  else if constexpr (std::is_same_v<T, std::int16_t>) return DType::i16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return DType::i32;
  else return DType::i64;
}
template <class T>
Array array(const T* data, std::int64_t count) {
  return Array{data, count, dtype_of_pointer<std::remove_cv_t<T>>()};
}

// One argument of a user's kernel launch: a device pointer (unchecked: the kernel gets
// it as it is), a ktune::Array (checked against the declaration before anything is
// launched), or a scalar whose C++ type must be the declared one (f32: float, f64:
// double, i32: int, i64: std::int64_t; i8, u8 and i16 scalars take an int).
struct LaunchArg {
  enum class Kind { pointer, f32, f64, i32, i64 };
  Kind kind;
  union {
    const void* pointer;
    float f32;
    double f64;
    std::int32_t i32;
    std::int64_t i64;
  };
  std::int64_t count = -1;  // an Array's elements; -1: a raw pointer, unchecked
  DType dtype = DType::f32;  // an Array's dtype
  LaunchArg(const void* p) : kind(Kind::pointer), pointer(p) {}
  LaunchArg(const Array& a) : kind(Kind::pointer), pointer(a.data), count(a.count), dtype(a.dtype) {}
  LaunchArg(float v) : kind(Kind::f32), f32(v) {}
  LaunchArg(double v) : kind(Kind::f64), f64(v) {}
  LaunchArg(std::int32_t v) : kind(Kind::i32), i32(v) {}
  LaunchArg(std::int64_t v) : kind(Kind::i64), i64(v) {}
  LaunchArg(long long v) : kind(Kind::i64), i64(static_cast<std::int64_t>(v)) {}
};

// A user's own kernel: a .cu file (or its text) with a `// @` description (README,
// "Your own kernels"), tuned with `ktune tune --kernel FILE`. A launch looks up the
// stored winner for this device and problem at its first call per problem (exact,
// nearest tuned problem that is valid here, same arch, then the kernel's trusted or
// first valid config), and is a hash lookup and a cuLaunchKernel after that.
// Thread-safe; cheap to copy; must not outlive its Runtime.
class Kernel {
 public:
  // Every problem variable the kernel declares, by name, e.g. {{"nx", nx}, {"ny", ny}}.
  using ProblemValues = std::initializer_list<std::pair<std::string_view, std::int64_t>>;

  // Arguments in the declaration's order. Their count, pointer or scalar, and scalar
  // types are checked against the declaration, the problem against its variables; a
  // mismatch or a null pointer throws ktune::InvalidArgument and nothing is launched.
  // An array given as a ktune::Array is also checked: its dtype must be the declared
  // one (the type parameter bound) and it must hold at least the elements its `@arg`
  // extent gives at this problem. A raw pointer is not (nothing says how large it is).
  template <class... Args>
  const LaunchInfo& launch(Stream stream, ProblemValues problem, const Args&... args) const {
    const LaunchArg list[] = {LaunchArg(args)...};
    return launch_args(stream, problem, list, sizeof...(Args));
  }
  const LaunchInfo& launch_args(Stream stream, ProblemValues problem, const LaunchArg* args, std::size_t count) const;
  // The same with the problem as an array (bindings to other languages: ktune/c_api.h).
  using ProblemValue = std::pair<std::string_view, std::int64_t>;
  const LaunchInfo& launch_args(Stream stream, const ProblemValue* problem, std::size_t problem_count,
                                const LaunchArg* args, std::size_t count) const;

  const std::string& name() const;                          // the `// @kernel` name
  std::vector<std::string> argument_names() const;           // as the `// @arg` lines name them
  const std::vector<std::string>& problem_variables() const;  // in declaration order
  // What each argument must be, in declaration order (pointer, or a scalar's kind), and
  // what the kernel does with it (its `// @arg` role).
  const std::vector<LaunchArg::Kind>& argument_kinds() const;
  enum class Role { in, out, inout, scalar };
  std::vector<Role> argument_roles() const;
  // Each argument's declared dtype, the type parameter bound (a pointer's elements, a
  // scalar's value).
  std::vector<DType> argument_dtypes() const;

  struct State;

 private:
  friend class Runtime;
  explicit Kernel(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

// The built-in families' calls (rt.transpose(...), rt.gemm(...), ...) come from
// FamilyCalls: a base per family built, each declared in the family's own header.
class Runtime : public FamilyCalls {
 public:
  struct Options {
    std::string database;    // empty: Database::default_path() (see README, "Where results live")
    bool read_only = false;  // e.g. a database shipped with an application
  };

  Runtime();
  explicit Runtime(Options options);
  ~Runtime();
  Runtime(const Runtime&) = delete;
  Runtime& operator=(const Runtime&) = delete;

  // A user's kernel from a file, or from its source text (any text holding
  // "// @kernel"). `entry` must be the description's @entry; `template_args` names the
  // type parameter's type when it has one ("float", "double", "int", or a dtype such as
  // "f32"; default: the first its @type line lists). Throws ktune::Error on a file that
  // cannot be read or a description that does not parse (with the line).
  Kernel kernel(const std::string& path_or_source, const std::string& entry,
                const std::vector<std::string>& template_args = {});

  // Looks up again, at their next call, the problems this runtime serves from anything
  // but an exact record (nearest, same_arch, fallback), e.g. after tuning them in this
  // process. A runtime also notices records other processes write (checked at most
  // twice a second, on a call), so this is only needed to see them at once.
  void refresh();

  // Enqueues the tuner's L2 flush (a read of twice the L2 size) on `stream`, so an
  // application can time ktune's kernels cold exactly as `ktune tune` did.
  void flush_l2(Stream stream = nullptr);

  struct Impl;  // the library's own (ktune/runtime/runtime_impl.hpp, not installed)

 private:
  friend class Kernel;
  friend struct ImplAccess;  // the families' calls reach the Impl through it
  std::unique_ptr<Impl> impl_;
};

// The library's version, e.g. "0.1.0" (the installed package's version).
const char* version() noexcept;

}  // namespace ktune
