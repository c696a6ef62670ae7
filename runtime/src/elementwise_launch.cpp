#include <ktune/runtime/elementwise_launch.hpp>


namespace ktune {
namespace {

// Must match `struct ktune_ew_args` in templates/elementwise.cuh.
struct KernelArgs {
  std::uint64_t in[6];
  std::uint64_t out[2];
  double scalar[6];
  long long n;
};
static_assert(sizeof(KernelArgs) == 120, "ktune_ew_args layout");

}  // namespace

void launch_elementwise(CUfunction f, const Instance& inst, const ElementwiseArgs& a, CUstream stream) {
  KernelArgs k{};
  for (std::size_t i = 0; i < a.inputs.size(); ++i) k.in[i] = a.inputs[i];
  for (std::size_t i = 0; i < a.outputs.size(); ++i) k.out[i] = a.outputs[i];
  for (std::size_t i = 0; i < a.scalars.size(); ++i) k.scalar[i] = a.scalars[i];
  k.n = a.n;
  void* params[] = {&k};
  driver::check(driver::api().cuLaunchKernel(f, inst.grid[0], inst.grid[1], inst.grid[2], inst.block[0], inst.block[1],
                                             inst.block[2], inst.smem_bytes, stream, params, nullptr),
                "cuLaunchKernel", inst.name_expression);
}

}  // namespace ktune
