#include "measure/user_kernel_harness.hpp"
#include <ktune/runtime/launch.hpp>

#include <ktune/error.hpp>
#include <ktune/generator/dtype.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <ktune/tuner/verifier.hpp>

#include <cmath>
#include <cstring>

namespace ktune {

namespace {

constexpr std::size_t k_guard = 256;
constexpr unsigned char k_guard_byte = 0xA5, k_poison_byte = 0xFF;

bool is_float(DType d) { return d == DType::f32 || d == DType::f64 || d == DType::f16 || d == DType::bf16; }

// Random values of a dtype: floats are nonzero multiples of 1/8 in [-4, 4] (exact in
// every float type), integers 1 .. 127; or uniform in the declared [low, high].
double draw(DType d, const KernelArg& a, std::uint64_t& state) {
  const std::uint64_t z = splitmix64(state);
  if (a.low < a.high) {
    const double u = static_cast<double>(z >> 11) * 0x1.0p-53;
    const double v = a.low + u * (a.high - a.low);
    return is_float(d) ? v : std::floor(v + 0.5);
  }
  if (is_float(d)) return static_cast<double>(1 + z % 32) / 8 * ((z >> 32) & 1 ? -1 : 1);
  return static_cast<double>(1 + z % 127);
}

}  // namespace

struct UserKernelHarness::Buffer {
  const KernelArg* arg = nullptr;
  DType dtype = DType::f32;
  std::size_t count = 0, bytes = 0;
  DeviceBuffer device;
  std::size_t offset = 0;  // of the argument's address in `device` (the alignment class)
  CUdeviceptr at() const { return device.get() + offset; }
  DeviceBuffer pristine;                // inputs as made (in, inout), restored from on the device
  DeviceBuffer want;                    // the reference's outputs (out, inout), on the device
  OutputCheck::Bounds bounds;           // the tolerance for this output (its norms included)
  bool output() const { return arg->role == KernelArg::Role::out || arg->role == KernelArg::Role::inout; }
  bool input() const { return arg->role == KernelArg::Role::in || arg->role == KernelArg::Role::inout; }
};

UserKernelHarness::UserKernelHarness(const DeviceInfo& device, std::shared_ptr<const UserKernel> kernel,
                                     UserProblem problem, const TimingProtocol& protocol,
                                     std::shared_ptr<const CaptureBundle> captured)
    : DeviceHarness(device), kernel_(std::move(kernel)), user_problem_(std::move(problem)), captured_(std::move(captured)) {
  tuning_ = user_tuning_problem(*kernel_, user_problem_);
  tuning_.owner = kernel_;
  std::vector<double> values = arg_values(*kernel_, user_problem_);
  if (captured_) {  // the scalars the application passed
    const auto& scalars = captured_->header.at("scalars");
    for (std::size_t i = 0; i < kernel_->args.size(); ++i)
      if (!kernel_->args[i].pointer() && scalars.contains(kernel_->args[i].name))
        values[i] = scalars.at(kernel_->args[i].name).get<double>();
  }
  const auto& d = driver::api();
  std::uint64_t seed = fresh_seed();
  buffers_.reserve(kernel_->args.size());
  for (std::size_t i = 0; i < kernel_->args.size(); ++i) {
    const KernelArg& a = kernel_->args[i];
    const DType dtype = arg_dtype(*kernel_, a, user_problem_);
    std::uint64_t slot = 0;
    if (!a.pointer()) {  // the scalar's bits in its type, at the start of an 8-byte slot
      if (is_float(dtype) && dtype != DType::f32 && dtype != DType::f64)
        throw Error(describe() + ": scalar " + a.name + " must be f32, f64 or an integer type");
      unsigned char bits[8] = {};
      if (dtype == DType::f32) {
        const float f = static_cast<float>(values[i]);
        std::memcpy(bits, &f, 4);
      } else {
        double_to_element(dtype, values[i], bits);
      }
      std::memcpy(&slot, bits, 8);
      slots_.push_back(slot);
      continue;
    }
    Buffer b;
    b.arg = &a;
    b.dtype = dtype;
    b.count = static_cast<std::size_t>(values[i]);
    b.bytes = b.count * static_cast<std::size_t>(size_of(dtype));
    // At exactly the problem's alignment class: cuMemAlloc's 256-byte-aligned address
    // plus align * elem_bytes bytes when that is under 16.
    const std::size_t misalign = static_cast<std::size_t>(align_class(user_problem_) * size_of(tuning_.problem.dtype));
    b.offset = misalign < 16 ? misalign : 0;
    b.device = DeviceBuffer(b.bytes + k_guard + b.offset);
    if (captured_ && (b.input() || a.zeroed)) {  // what the application's launch started from
      b.pristine = DeviceBuffer(b.bytes);
      driver::check(d.cuMemcpyHtoD(b.pristine.get(), captured_bytes(b, "input").data(), b.bytes), "cuMemcpyHtoD");
    } else if (b.input()) {
      std::vector<unsigned char> host(b.bytes);
      for (std::size_t e = 0; e < b.count; ++e)
        double_to_element(dtype, draw(dtype, a, seed), &host[e * static_cast<std::size_t>(size_of(dtype))]);
      b.pristine = DeviceBuffer(b.bytes);
      driver::check(d.cuMemcpyHtoD(b.pristine.get(), host.data(), b.bytes), "cuMemcpyHtoD");
    }
    bytes_moved_ += static_cast<double>(b.bytes) * (a.role == KernelArg::Role::inout ? 2 : 1);
    slots_.push_back(b.at());
    buffers_.push_back(std::move(b));
  }
  for (auto& s : slots_) params_.push_back(&s);
  // Pageable uploads may still be in flight, and `stream_` does not wait for them.
  driver::check(d.cuCtxSynchronize(), "cuCtxSynchronize");
  check_ = std::make_unique<OutputCheck>(device, stream_);
  compute_reference(device);
  set_bounds();
  work_ = work_of(*kernel_, user_problem_);
  if (work_.bytes > 0) bytes_moved_ = work_.bytes;
  if (work_.flops > 0) {
    fma_ = std::make_unique<FmaCeiling>(device, stream_, user_problem_.type);
  } else {
    const std::size_t half = ceiling_copy_bytes(bytes_moved_);
    ceiling_src_ = DeviceBuffer(half + 16);  // (never empty)
    ceiling_dst_ = DeviceBuffer(half + 16);
  }
  start_timer(device, protocol);
}

nlohmann::json UserKernelHarness::log_fields() const {
  nlohmann::json vars = nlohmann::json::object();
  for (std::size_t i = 0; i < kernel_->variables.size(); ++i) vars[kernel_->variables[i]] = user_problem_.values[i];
  return {{"kernel_file", kernel_->origin}, {"kernel_source", kernel_->spec.source()}, {"problem", vars}};
}

// Inputs as made, outputs poisoned (or zeroed), guards armed: every check starts here.
// Device-side copies and memsets on the harness's stream (restoring 256 MB takes a
// fraction of a millisecond).
void UserKernelHarness::prepare_run() {
  const auto& d = driver::api();
  for (auto& b : buffers_) {
    if (b.pristine.get())
      driver::check(d.cuMemcpyDtoDAsync(b.at(), b.pristine.get(), b.bytes, stream_), "cuMemcpyDtoDAsync");
    else
      driver::check(d.cuMemsetD8Async(b.at(), b.arg->zeroed ? 0 : k_poison_byte, b.bytes, stream_),
                    "cuMemsetD8Async");
    driver::check(d.cuMemsetD8Async(b.at() + b.bytes, k_guard_byte, k_guard, stream_), "cuMemsetD8Async");
  }
  driver::check(d.cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

void UserKernelHarness::launch_grid(CUfunction f, const std::array<std::uint32_t, 3>& grid,
                                    const std::array<std::uint32_t, 3>& block, std::uint32_t smem,
                                    const std::string& what) {
  // The arguments are packed from the kernel's `// @arg` lines (params_), not a fixed list.
  launch_packed(f, LaunchShape{{grid[0], grid[1], grid[2]}, {block[0], block[1], block[2]}, smem, 1}, stream_,
                params_.data(), what);
}

const std::vector<unsigned char>& UserKernelHarness::captured_bytes(const Buffer& b, const char* phase) const {
  const CaptureBuffer* found = captured_->find(b.arg->name, phase);
  const std::string what = describe() + ": the captured bundle's " + phase + " of " + b.arg->name;
  if (!found) throw CaptureError(what + " is missing");
  if (found->bytes.size() != b.bytes)
    throw CaptureError(what + " holds " + std::to_string(found->bytes.size()) + " bytes; the kernel declares " +
                       std::to_string(b.bytes));
  return found->bytes;
}

void UserKernelHarness::compute_reference(const DeviceInfo& device) {
  if (captured_) {  // the outputs of the application's own launch
    for (auto& b : buffers_) {
      if (!b.output()) continue;
      b.want = DeviceBuffer(b.bytes);
      driver::check(driver::api().cuMemcpyHtoD(b.want.get(), captured_bytes(b, "expected").data(), b.bytes),
                    "cuMemcpyHtoD");
    }
    return;
  }
  const UserKernel& k = *kernel_;
  std::string name;
  std::array<std::uint32_t, 3> grid{}, block{};
  std::uint32_t smem = 0;
  if (!k.reference.empty()) {
    name = k.reference + (tuning_.type_argument.empty() ? "" : "<" + tuning_.type_argument + ">");
    const Scope scope = problem_scope(k, user_problem_);
    for (std::size_t i = 0; i < 3; ++i) {
      const std::int64_t b = k.reference_block[i].eval_int(scope), g = k.reference_grid[i].eval_int(scope);
      if (b < 1 || b > 1024 || g < 1 || g > (i == 0 ? 2147483647 : 65535))
        throw Error(describe() + ": the reference's launch geometry is out of range");
      block[i] = static_cast<std::uint32_t>(b), grid[i] = static_cast<std::uint32_t>(g);
    }
  } else {
    const Instance inst = instantiate(k.spec, *k.trusted, device.limits, tuning_.problem, tuning_.type_argument);
    name = inst.name_expression, grid = inst.grid, block = inst.block, smem = inst.smem_bytes;
  }
  const CompileOutput out = compile_cubin(tuning_.source, {name}, device.arch, k.origin + " reference");
  Module module(out.cubin, name);
  const CUfunction f = module.function(out.lowered_names.front());
  driver::check(driver::api().cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, static_cast<int>(smem)),
                "cuFuncSetAttribute", name);
  prepare_run();
  launch_grid(f, grid, block, smem, name + " (reference)");
  driver::check(driver::api().cuStreamSynchronize(stream_), "cuStreamSynchronize", name + " (the reference)");
  for (auto& b : buffers_) {
    if (!b.output()) continue;
    unsigned char guard[k_guard];
    driver::check(driver::api().cuMemcpyDtoH(guard, b.at() + b.bytes, k_guard), "cuMemcpyDtoH");
    for (std::size_t g = 0; g < k_guard; ++g)
      if (guard[g] != k_guard_byte)
        throw Error(describe() + ": the reference " + name + " writes past the end of " + b.arg->name);
    b.want = DeviceBuffer(b.bytes);
    driver::check(driver::api().cuMemcpyDtoDAsync(b.want.get(), b.at(), b.bytes, stream_), "cuMemcpyDtoDAsync");
  }
  driver::check(driver::api().cuStreamSynchronize(stream_), "cuStreamSynchronize");
}

// The tolerance for this problem, and per output its terms scaled by the reference's
// norms (rms, max), which the device computes once.
void UserKernelHarness::set_bounds() {
  const ToleranceBounds t = tolerance_bounds(*kernel_, user_problem_);
  for (auto& b : buffers_) {
    if (!b.output()) continue;
    b.bounds = {t.exact, t.abs, t.rel, t.ulp};
    if (t.rms == 0 && t.max == 0) continue;
    const OutputCheck::Norms n = check_->norms(b.dtype, b.want.get(), b.count);
    b.bounds.abs += t.rms * n.rms + t.max * n.max_abs;
  }
}

std::optional<std::string> UserKernelHarness::verify(CUfunction f, const Instance& inst) {
  prepare_run();
  launch_grid(f, inst.grid, inst.block, inst.smem_bytes, inst.name_expression);
  driver::check(driver::api().cuStreamSynchronize(stream_), "cuStreamSynchronize", inst.name_expression);
  for (const auto& b : buffers_) {
    if (!b.output()) continue;
    const OutputCheck::Result r =
        check_->check(b.dtype, b.at(), b.want.get(), b.count, b.bounds, k_guard, k_guard_byte);
    if (r.guard) return "writes out of bounds: byte " + std::to_string(*r.guard) + " past the end of " + b.arg->name;
    if (r.wrong == 0) continue;
    std::string why = std::to_string(r.wrong) + " of " + std::to_string(b.count) + " elements of " + b.arg->name + " wrong";
    for (std::size_t i = 0; i < r.first.size(); ++i)
      why += (i ? "; [" : ", first [") + std::to_string(r.first[i].index) + "]: " + std::to_string(r.first[i].got) +
             " instead of " + std::to_string(r.first[i].want);
    return why;
  }
  return std::nullopt;
}

void UserKernelHarness::launch(CUfunction f, const Instance& inst) {
  launch_grid(f, inst.grid, inst.block, inst.smem_bytes, inst.name_expression);
}

TimingStats UserKernelHarness::time_ceiling() {
  if (fma_) return timer().measure([&] { fma_->launch(work_.flops); });
  const std::size_t half = ceiling_copy_bytes(bytes_moved_);
  return timer().measure([&] {
    driver::check(driver::api().cuMemcpyDtoDAsync(ceiling_dst_.get(), ceiling_src_.get(), half, stream_),
                  "cuMemcpyDtoDAsync");
  });
}

namespace {

// The problem's keys, with its sizes, tolerance, work and headers checked before a GPU is taken.
TuningProblem checked_tuning_problem(const std::shared_ptr<const UserKernel>& kernel, const UserProblem& problem) {
  arg_values(*kernel, problem);
  tolerance_bounds(*kernel, problem);
  work_of(*kernel, problem);
  TuningProblem tuning = user_tuning_problem(*kernel, problem);
  if (needs_toolkit_headers(tuning.source)) cuda_include_dir();
  tuning.owner = kernel;
  return tuning;
}

}  // namespace

TuneTarget user_kernel_target(std::shared_ptr<const UserKernel> kernel, const std::vector<std::string>& assignments) {
  const UserProblem problem = bind_user_problem(*kernel, assignments);
  return {checked_tuning_problem(kernel, problem), [kernel, problem](const DeviceInfo& dev, const TimingProtocol& t) {
            return std::make_unique<UserKernelHarness>(dev, kernel, problem, t);
          }};
}

TuneTarget captured_kernel_target(std::shared_ptr<const UserKernel> kernel, UserProblem problem,
                                  std::filesystem::path bundle) {
  return {checked_tuning_problem(kernel, problem), [kernel, problem, bundle](const DeviceInfo& dev, const TimingProtocol& t) {
            auto data = std::make_shared<const CaptureBundle>(read_capture(bundle));
            return std::make_unique<UserKernelHarness>(dev, kernel, problem, t, std::move(data));
          }};
}

}  // namespace ktune
