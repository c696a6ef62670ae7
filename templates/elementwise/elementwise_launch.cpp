#include <elementwise/elementwise_launch.hpp>

#include <ktune/runtime/runtime_impl.hpp>

#include <ktune/error.hpp>


namespace ktune {

void launch_elementwise(CUfunction f, const Instance& inst, const ElementwiseArgs& a, CUstream stream) {
  ElementwiseKernelArgs k{};
  for (std::size_t i = 0; i < a.inputs.size(); ++i) k.in[i] = a.inputs[i];
  for (std::size_t i = 0; i < a.outputs.size(); ++i) k.out[i] = a.outputs[i];
  for (std::size_t i = 0; i < a.scalars.size(); ++i) k.scalar[i] = a.scalars[i];
  k.n = a.n;
  ElementwiseParams::launch(f, LaunchShape::of(inst), stream, inst.name_expression, k);
}

struct Elementwise::State {
  Runtime::Impl* runtime;
  ElementwiseOp op;
  struct Key {
    CUcontext ctx;
    std::int64_t n, align;
    bool operator==(const Key& o) const { return ctx == o.ctx && n == o.n && align == o.align; }
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const {
      return std::hash<const void*>()(k.ctx) * 1000003u ^ std::hash<std::int64_t>()(k.n) * 31u ^
             std::hash<std::int64_t>()(k.align);
    }
  };
  mutable PreparedMap<Key, KeyHash> prepared;
};

Elementwise ElementwiseCalls::elementwise(const std::string& expression, DType dtype, DType out_dtype,
                                 std::vector<std::string> scalars) {
  auto state = std::make_shared<Elementwise::State>();
  state->runtime = &runtime_impl(*this);
  state->op = make_elementwise_op(expression, dtype, out_dtype, scalars);
  return Elementwise(std::move(state));
}

const LaunchInfo& Elementwise::operator()(std::initializer_list<void*> outputs, std::initializer_list<const void*> inputs,
                                          std::int64_t n, Stream stream, std::initializer_list<double> scalars) const {
  return call(outputs.begin(), outputs.size(), inputs.begin(), inputs.size(), n, stream, scalars.begin(), scalars.size());
}

const LaunchInfo& Elementwise::call(void* const* outputs, std::size_t output_count, const void* const* inputs,
                                    std::size_t input_count, std::int64_t n, Stream stream, const double* scalars,
                                    std::size_t scalar_count) const {
  const State& st = *state_;
  ElementwiseArgs args;
  args.n = n;
  const auto too_many = [&](const char* what) {
    throw InvalidArgument("elementwise '" + st.op.expr.normalized() + "': too many " + what);
  };
  if (input_count > 6) too_many("input pointers");
  if (output_count > 2) too_many("output pointers");
  if (scalar_count > 6) too_many("scalars");
  for (std::size_t i = 0; i < input_count; ++i) args.inputs.push_back(reinterpret_cast<std::uintptr_t>(inputs[i]));
  for (std::size_t i = 0; i < output_count; ++i) args.outputs.push_back(reinterpret_cast<std::uintptr_t>(outputs[i]));
  for (std::size_t i = 0; i < scalar_count; ++i) args.scalars.push_back(scalars[i]);
  validate_elementwise(st.op, args);  // throws before anything launches
  const CUcontext ctx = st.runtime->current_context();
  const State::Key key{ctx, n, elementwise_alignment(st.op, args)};
  const Prepared& p =
      st.prepared.get(key, [&] { return st.runtime->prepare(ctx, elementwise_tuning_problem(st.op, n, key.align)); },
                      st.runtime->generation());
  launch_elementwise(p.function, p.instance, args, reinterpret_cast<CUstream>(stream));
  return p.info;
}

const std::vector<std::string>& Elementwise::inputs() const { return state_->op.expr.inputs(); }
const std::vector<std::string>& Elementwise::outputs() const { return state_->op.expr.outputs(); }
const std::vector<std::string>& Elementwise::scalars() const { return state_->op.expr.scalars(); }
std::string Elementwise::normalized() const { return state_->op.expr.normalized(); }
std::string Elementwise::gradient_expression() const { return state_->op.expr.gradient().text; }

}  // namespace ktune
