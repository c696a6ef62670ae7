// ktune_c_elementwise_* (ktune/elementwise_c.h): the runtime calls behind the C ABI.
#include <ktune/elementwise.hpp>
#include <ktune/elementwise_c.h>
#include <ktune/runtime/c_api_support.hpp>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

struct ktune_c_elementwise {
  ktune::Elementwise op;
  std::string inputs, outputs, scalars, gradient;
};

extern "C" {

ktune_c_elementwise* ktune_c_elementwise_new(ktune_c_runtime* rt, const char* expression, const char* dtype,
                                             const char* out_dtype, const char* scalars) {
  using namespace ktune::c_api;
  if (!rt || !expression) {
    invalid("ktune_c_elementwise_new: null runtime or expression");
    return nullptr;
  }
  std::unique_ptr<ktune_c_elementwise> out;
  if (guarded([&] {
        const ktune::DType in = dtype_of(dtype);
        std::vector<std::string> names;
        std::istringstream list(scalars ? scalars : "");
        for (std::string name; std::getline(list, name, ',');)
          if (!name.empty()) names.push_back(name);
        out = std::make_unique<ktune_c_elementwise>(ktune_c_elementwise{
            rt->rt->elementwise(expression, in, out_dtype && *out_dtype ? dtype_of(out_dtype) : in, names), {}, {}, {}, {}});
        out->inputs = joined(out->op.inputs()), out->outputs = joined(out->op.outputs());
        out->scalars = joined(out->op.scalars());
      }) != 0)
    return nullptr;
  return out.release();
}

void ktune_c_elementwise_free(ktune_c_elementwise* e) { delete e; }
const char* ktune_c_elementwise_inputs(ktune_c_elementwise* e) { return e ? e->inputs.c_str() : ""; }
const char* ktune_c_elementwise_outputs(ktune_c_elementwise* e) { return e ? e->outputs.c_str() : ""; }
const char* ktune_c_elementwise_scalars(ktune_c_elementwise* e) { return e ? e->scalars.c_str() : ""; }

const char* ktune_c_elementwise_gradient(ktune_c_elementwise* e) {
  using namespace ktune::c_api;
  if (!e) {
    invalid("ktune_c_elementwise_gradient: null handle");
    return nullptr;
  }
  if (guarded([&] { e->gradient = e->op.gradient_expression(); }) != 0) return nullptr;
  return e->gradient.c_str();
}

int ktune_c_elementwise_call(ktune_c_elementwise* e, const uintptr_t* outputs, int output_count, const uintptr_t* inputs,
                             int input_count, int64_t n, const double* scalars, int scalar_count, uintptr_t stream) {
  using namespace ktune::c_api;
  if (!e || output_count < 0 || input_count < 0 || scalar_count < 0 || (output_count && !outputs) ||
      (input_count && !inputs) || (scalar_count && !scalars))
    return invalid("ktune_c_elementwise_call: null handle or arrays");
  return guarded([&] {
    std::vector<void*> outs;
    std::vector<const void*> ins;
    for (int i = 0; i < output_count; ++i) outs.push_back(reinterpret_cast<void*>(outputs[i]));
    for (int i = 0; i < input_count; ++i) ins.push_back(reinterpret_cast<const void*>(inputs[i]));
    keep(e->op.call(outs.data(), outs.size(), ins.data(), ins.size(), n, stream_of(stream), scalars,
                    static_cast<std::size_t>(scalar_count)));
  });
}

}  // extern "C"
