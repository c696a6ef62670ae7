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
// Self-contained: it and the five vocabulary headers below are what `cmake --install`
// puts in include/ktune/; nothing from the library's internal layers.
#include <ktune/dtype.hpp>
#include <ktune/error.hpp>
#include <ktune/gemm_math.hpp>
#include <ktune/match_level.hpp>
#include <ktune/reduce_op.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

struct CUstream_st;

namespace ktune {

using Stream = CUstream_st*;  // the type behind both cudaStream_t and CUstream

struct LaunchInfo {
  MatchLevel match = MatchLevel::fallback;  // exact / nearest tuned problem / safe default
  std::string config;                       // e.g. "tile_m=64 tile_n=64 ... layout=pad"
  std::string tuned_shape;                  // the stored problem used (empty at fallback)
};

// A handle to one elementwise expression: the stored winner for (device, dtypes, n)
// is looked up (exact, nearest n, same sm, safe default) at the first call per n and
// alignment, and launched directly after that. Thread-safe; cheap to copy.
class Elementwise {
 public:
  // Pointers in the expression's order of first appearance (inputs(), outputs()),
  // scalar values in the order of scalars(). An output may be one of the inputs (in
  // place); any other overlap, a null or element-misaligned pointer, n < 1 or wrong
  // counts throw ktune::Error and nothing is launched. Pointers aligned to less than 16
  // bytes get a config valid for them (narrower vectors).
  const LaunchInfo& operator()(std::initializer_list<void*> outputs, std::initializer_list<const void*> inputs,
                               std::int64_t n, Stream stream = nullptr, std::initializer_list<double> scalars = {}) const;
  const std::vector<std::string>& inputs() const;
  const std::vector<std::string>& outputs() const;
  const std::vector<std::string>& scalars() const;
  // The key the tuner stores winners under, e.g. "o0=((i0*i1)+i2)".
  std::string normalized() const;

  struct State;

 private:
  friend class Runtime;
  explicit Elementwise(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

// One argument of a user's kernel launch: a device pointer, or a scalar whose C++ type
// must be the declared one (f32: float, f64: double, i32: int, i64: std::int64_t; i8,
// u8 and i16 scalars take an int).
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
  LaunchArg(const void* p) : kind(Kind::pointer), pointer(p) {}
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
  // mismatch or a null pointer throws ktune::Error and nothing is launched.
  template <class... Args>
  const LaunchInfo& launch(Stream stream, ProblemValues problem, const Args&... args) const {
    const LaunchArg list[] = {LaunchArg(args)...};
    return launch_args(stream, problem, list, sizeof...(Args));
  }
  const LaunchInfo& launch_args(Stream stream, ProblemValues problem, const LaunchArg* args, std::size_t count) const;

  const std::string& name() const;                          // the `// @kernel` name
  const std::vector<std::string>& problem_variables() const;  // in declaration order

  struct State;

 private:
  friend class Runtime;
  explicit Kernel(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

class Runtime {
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

  // dst (cols x rows, pitch ld_dst) = transpose of src (rows x cols, pitch ld_src),
  // pitches in elements. Throws ktune::Error on invalid arguments (nothing launched).
  // A stored config that needs wider alignment than these pointers/pitches have is
  // never launched: the nearest valid tuned config, or the safe default, is.
  // The returned reference stays valid as long as the Runtime.
  const LaunchInfo& transpose(void* dst, const void* src, std::int64_t rows, std::int64_t cols, std::int64_t ld_dst,
                       std::int64_t ld_src, DType dtype, Stream stream = nullptr);

  // *out = op over in[0..n): sum, max, min or mean. The result is float for f32, f16
  // and bf16 inputs (their accumulator) and double for f64. Deterministic: the same
  // config on the same input gives the same bits (no atomics on values). Throws
  // ktune::Error on bad arguments (nothing launched). Calls on one stream share a
  // small workspace; calls on different streams get their own.
  const LaunchInfo& reduce(void* out, const void* in, std::int64_t n, ReduceOp op, DType dtype, Stream stream = nullptr);
  // out[r] = op over row r of in (rows x cols, pitch ld elements), results typed as
  // for reduce(); what softmax and layernorm reduce.
  const LaunchInfo& reduce_rows(void* out, const void* in, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                ReduceOp op, DType dtype, Stream stream = nullptr);
  // out[c] = op over column c of in (rows x cols, pitch ld elements), results typed as
  // for reduce().
  const LaunchInfo& reduce_cols(void* out, const void* in, std::int64_t rows, std::int64_t cols, std::int64_t ld,
                                ReduceOp op, DType dtype, Stream stream = nullptr);

  // C (m x n, pitch ldc) = alpha * op(A) * op(B) + beta * C, all row-major, f32, f64,
  // f16 or bf16 (f16 and bf16 accumulate in f32). layout "nn": A is m x k (pitch lda),
  // B is k x n (ldb); a "t" stores that operand transposed (A: k x m, B: n x k), as in
  // "nt", "tn", "tt". beta = 0 never reads C. Pointers or pitches that do not allow
  // 16-byte loads get a config with narrower loads or one that first copies A and B
  // into aligned buffers; split-K and such copies use a workspace per stream, grown on
  // demand. math: GemmMath::tf32 multiplies f32 on tensor cores as TF32 (inputs keep
  // 10 mantissa bits; an opt-in), simt keeps halves on SIMT FMAs (gemm_math.hpp).
  // out_dtype: C's type, dtype unless given; DType::f32 for f16 and bf16 inputs keeps
  // the f32 accumulators unrounded (tensor cores). Throws ktune::Error on bad
  // arguments (nothing launched).
  const LaunchInfo& gemm(void* c, const void* a, const void* b, std::int64_t m, std::int64_t n, std::int64_t k,
                         std::int64_t lda, std::int64_t ldb, std::int64_t ldc, double alpha, double beta, DType dtype,
                         Stream stream = nullptr, std::string_view layout = "nn", GemmMath math = GemmMath::automatic,
                         std::optional<DType> out_dtype = std::nullopt);

  // An elementwise operation compiled from an expression (see Elementwise below), e.g.
  //   auto fma = rt.elementwise("out = a * b + c", DType::f16);
  //   fma({out}, {a, b, c}, n, stream);
  // Throws ktune::Error on an expression that does not parse or unsupported dtypes
  // (f32, f16, bf16, f64). The handle must not outlive the Runtime.
  Elementwise elementwise(const std::string& expression, DType dtype, DType out_dtype, std::vector<std::string> scalars = {});
  Elementwise elementwise(const std::string& expression, DType dtype) { return elementwise(expression, dtype, dtype); }

  // A user's kernel from a file, or from its source text (any text holding
  // "// @kernel"). `entry` must be the description's @entry; `template_args` names the
  // type parameter's type when it has one ("float", "double", "int", or a dtype such as
  // "f32"; default: the first its @type line lists). Throws ktune::Error on a file that
  // cannot be read or a description that does not parse (with the line).
  Kernel kernel(const std::string& path_or_source, const std::string& entry,
                const std::vector<std::string>& template_args = {});

  // Enqueues the tuner's L2 flush (a read of twice the L2 size) on `stream`, so an
  // application can time ktune's kernels cold exactly as `ktune tune` did.
  void flush_l2(Stream stream = nullptr);

  struct Impl;  // the library's own (runtime/src/runtime_impl.hpp)

 private:
  friend class Elementwise;
  friend class Kernel;
  std::unique_ptr<Impl> impl_;
};

// The library's version, e.g. "0.1.0" (the installed package's version).
const char* version() noexcept;

// The process-wide runtime (default database), created at first use.
Runtime& default_runtime();

inline const LaunchInfo& transpose(void* dst, const void* src, std::int64_t rows, std::int64_t cols, std::int64_t ld_dst,
                            std::int64_t ld_src, DType dtype, Stream stream = nullptr) {
  return default_runtime().transpose(dst, src, rows, cols, ld_dst, ld_src, dtype, stream);
}

}  // namespace ktune
