#pragma once
// Part of ktune's public API; include <ktune/ktune.hpp>, which includes this header.
#include <ktune/dtype.hpp>
#include <ktune/launch_info.hpp>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ktune {

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
  // The same with arrays and counts (bindings to other languages: ktune/elementwise_c.h).
  const LaunchInfo& call(void* const* outputs, std::size_t output_count, const void* const* inputs,
                         std::size_t input_count, std::int64_t n, Stream stream, const double* scalars,
                         std::size_t scalar_count) const;
  const std::vector<std::string>& inputs() const;
  const std::vector<std::string>& outputs() const;
  const std::vector<std::string>& scalars() const;
  // The key the tuner stores winners under, e.g. "o0=((i0*i1)+i2)".
  std::string normalized() const;
  // The backward as an expression of its own, differentiated symbolically: for each input
  // x some output depends on, `ktune_din_x = ...` of the inputs and `ktune_dout_o` (the
  // gradient of output o), e.g. "out = a * b" gives "ktune_din_a = (ktune_dout_out*b);
  // ktune_din_b = (ktune_dout_out*a)". Empty when no output depends on any input.
  std::string gradient_expression() const;

  struct State;

 private:
  friend class ElementwiseCalls;
  explicit Elementwise(std::shared_ptr<State> state) : state_(std::move(state)) {}
  std::shared_ptr<State> state_;
};

// The elementwise family's call.
// ktune::Runtime derives from this class (see <ktune/ktune.hpp>): call it as rt.elementwise(...).
class ElementwiseCalls {
 public:
  // An elementwise operation compiled from an expression (see Elementwise above), e.g.
  //   auto fma = rt.elementwise("out = a * b + c", DType::f16);
  //   fma({out}, {a, b, c}, n, stream);
  // Throws ktune::Error on an expression that does not parse or unsupported dtypes
  // (f32, f16, bf16, f64). The handle must not outlive the Runtime.
  Elementwise elementwise(const std::string& expression, DType dtype, DType out_dtype, std::vector<std::string> scalars = {});
  Elementwise elementwise(const std::string& expression, DType dtype) { return elementwise(expression, dtype, dtype); }

 protected:
  ElementwiseCalls() = default;
  ~ElementwiseCalls() = default;
};

}  // namespace ktune
