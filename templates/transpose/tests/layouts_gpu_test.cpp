// One config of each layout, small enough to run under compute-sanitizer (memcheck,
// racecheck): scripts/gpu-check.sh runs this program under both tools.
#include "gpu_test_support.hpp"

#include <transpose/transpose_family.hpp>
#include <ktune/runtime/device.hpp>
#include <ktune/runtime/nvrtc_compiler.hpp>
#include <transpose/transpose_launch.hpp>

#include <cstring>
#include <string>
#include <vector>

namespace ktune {
namespace {

void run_one(const DeviceInfo& dev, const nlohmann::json& config, DType dtype, std::int64_t rows, std::int64_t cols) {
  const KernelSpec& spec = KernelSpec::builtin("transpose");
  const std::int64_t elem = size_of(dtype);
  const std::size_t bytes = static_cast<std::size_t>(rows * cols * elem);
  DeviceBuffer src(bytes), dst(bytes);
  const TransposeArgs args{dtype, rows, cols, rows, cols, dst.get(), src.get()};
  const Instance inst = instantiate(spec, config_from_json(spec, config), dev.limits, transpose_problem(args));
  const CompileOutput out = compile_cubin(spec.source(), {inst.name_expression}, dev.arch, "transpose");
  Module module(out.cubin, inst.name_expression);
  std::vector<unsigned char> host(bytes), result(bytes), expect(bytes);
  for (std::size_t i = 0; i < bytes; ++i) host[i] = static_cast<unsigned char>((i * 2654435761u) >> 13 | 1);
  const auto& d = driver::api();
  driver::check(d.cuMemcpyHtoD(src.get(), host.data(), bytes), "HtoD");
  driver::check(d.cuMemsetD8(dst.get(), 0xA5, bytes), "memset");
  const CUfunction f = module.function(out.lowered_names.front());
  prepare_function(f, inst);
  launch_transpose(f, inst, args, nullptr);
  driver::check(d.cuCtxSynchronize(), "sync", inst.name_expression);
  driver::check(d.cuMemcpyDtoH(result.data(), dst.get(), bytes), "DtoH");
  transpose_reference(host.data(), expect.data(), args);
  EXPECT_EQ(std::memcmp(result.data(), expect.data(), bytes), 0) << inst.name_expression;
}

// A tiled config (copy = 0).
nlohmann::json tiled(int tile_m, int tile_n, int block_x, int block_y, int vec, const char* layout, int realign = 0,
                     int wide = 0, const char* order = "src", int words = 0) {
  return {{"tile_m", tile_m}, {"tile_n", tile_n}, {"block_x", block_x}, {"block_y", block_y}, {"vec", vec},
          {"layout", layout}, {"realign", realign}, {"copy", 0},          {"wide", wide},       {"order", order},
          {"words", words}};
}

struct Case {
  nlohmann::json config;
  DType dtype;
  std::int64_t rows, cols;
};

// One config of each layout and variant, at shapes with partial tiles.
std::vector<Case> layout_cases() {
  std::vector<Case> cases;
  const auto add = [&](const nlohmann::json& config, DType dtype, std::int64_t rows, std::int64_t cols) {
    cases.push_back({config, dtype, rows, cols});
  };
  for (const char* layout : {"direct", "none", "pad", "xor", "shift"}) {
    // Vector path with partial edge tiles, and the scalar path on an odd shape.
    add(tiled(64, 64, 16, 16, 4, layout), DType::f32, 1008, 1040);
    add(tiled(32, 32, 32, 8, 1, layout), DType::f32, 333, 517);
    add(tiled(64, 64, 8, 8, 8, layout), DType::f16, 136, 264);
    // 16-byte accesses at odd pitches (1021 columns: rows start anywhere in a chunk).
    // 1- and 2-byte elements realigned with funnel shifts (u8 at 8-byte pitches).
    if (std::string(layout) != "direct") {
      add(tiled(64, 64, 16, 16, 4, layout, 1), DType::f32, 333, 1021);
      add(tiled(128, 128, 8, 8, 16, layout, 1), DType::u8, 520, 1032);  // (align 8)
      add(tiled(64, 64, 8, 8, 8, layout, 1), DType::f16, 1021, 333);
      add(tiled(32, 64, 16, 8, 2, layout, 1), DType::f64, 333, 1021);
    }
    // 16-byte chunk reads at odd pitches, scalar otherwise: each element size.
    if (std::string(layout) == "pad" || std::string(layout) == "xor") {
      add(tiled(128, 32, 32, 4, 1, layout, 0, 1), DType::u8, 517, 1021);
      add(tiled(64, 64, 32, 4, 1, layout, 0, 1), DType::f16, 1021, 333);
      add(tiled(128, 32, 32, 8, 1, layout, 0, 1), DType::f32, 333, 1021);
      add(tiled(32, 32, 32, 4, 1, layout, 0, 1), DType::f64, 1021, 333);
    }
    // Whole 16-byte dst chunks (u8, xor only): first, middle and last tile rows, both
    // orders, partial tile columns.
    if (std::string(layout) == "xor") {
      add(tiled(128, 64, 32, 8, 1, layout, 0, 2, "dst"), DType::u8, 517, 1021);
      add(tiled(128, 32, 32, 2, 1, layout, 0, 2, "src"), DType::u8, 1021, 517);
      add(tiled(128, 128, 32, 16, 1, layout, 0, 2, "dst"), DType::u8, 1021, 333);
      // The same tiles with their rows copied into shared memory first (cp.async).
      add(tiled(128, 64, 32, 8, 1, layout, 0, 3, "src"), DType::u8, 517, 1021);
      add(tiled(128, 128, 32, 8, 1, layout, 0, 3, "dst"), DType::u8, 1021, 517);
      add(tiled(128, 128, 32, 16, 1, layout, 0, 3, "src"), DType::u8, 130, 4099);
      // 192-row tiles (wide = 3 only): 4 and 3 tile rows, the last partial.
      add(tiled(192, 64, 32, 8, 1, layout, 0, 3, "src"), DType::u8, 709, 1021);
      add(tiled(192, 64, 32, 8, 1, layout, 0, 3, "dst"), DType::u8, 1021, 517);
      add(tiled(192, 128, 32, 16, 1, layout, 0, 3, "src"), DType::u8, 577, 333);
    }
    // 256-byte tile rows for 1-byte elements (vec 8 and 16, xor and shift), partial
    // tiles both ways (u8 at 16-byte pitches).
    if (std::string(layout) == "xor" || std::string(layout) == "shift") {
      add(tiled(256, 256, 16, 16, 16, layout), DType::u8, 1008, 1040);
      add(tiled(256, 128, 16, 8, 8, layout), DType::u8, 1040, 528);
      add(tiled(64, 256, 8, 8, 8, layout), DType::u8, 272, 1008);
      // The same with the byte blocks transposed as words and more blocks an SM (words = 1,
      // vec 8), also at 8-byte pitches and in dst order.
      add(tiled(256, 128, 16, 8, 8, layout, 0, 0, "src", 1), DType::u8, 1040, 528);
      add(tiled(64, 256, 8, 8, 8, layout, 0, 0, "src", 1), DType::u8, 272, 1008);
      add(tiled(256, 256, 32, 8, 8, layout, 0, 0, "src", 1), DType::u8, 1000, 1000);
      add(tiled(128, 128, 16, 8, 8, layout, 0, 0, "dst", 1), DType::u8, 1000, 1000);
    }
    // Tiles in dst order at odd pitches, partial tiles both ways: each element size.
    if (std::string(layout) != "direct") {
      add(tiled(128, 32, 32, 4, 1, layout, 0, 0, "dst"), DType::u8, 517, 1021);
      add(tiled(128, 64, 32, 8, 1, layout, 0, 0, "dst"), DType::f16, 1021, 333);
      add(tiled(128, 32, 32, 8, 1, layout, 0, 0, "dst"), DType::f32, 333, 1021);
      add(tiled(128, 32, 32, 4, 1, layout, 0, 0, "dst"), DType::f64, 1021, 333);
      // 192- and 256-row tiles for 2- and 4-byte elements: 6 and 3 tile rows, the last partial.
      add(tiled(192, 32, 32, 4, 1, layout, 0, 0, "dst"), DType::f16, 1021, 333);
      add(tiled(256, 64, 32, 8, 1, layout, 0, 0, "dst"), DType::f32, 709, 1021);
    }
    // And at aligned shapes whose src rows are 16 or more times longer than its columns
    // (pad tiles of 64-128 rows only), with vectors: partial tiles both ways.
    if (std::string(layout) == "pad") {
      add(tiled(64, 64, 16, 8, 4, layout, 0, 0, "dst"), DType::f32, 68, 1100);
      add(tiled(64, 64, 16, 8, 2, layout, 0, 0, "dst"), DType::f64, 68, 1100);
      add(tiled(128, 128, 16, 8, 8, layout, 0, 0, "dst"), DType::u8, 144, 2320);
    }
  }
  return cases;
}

// Without a GPU too: each case's config is in the space at its problem (256-byte aligned
// pointers, as cuMemAlloc's), so the GPU run tests configs the tuner can choose. (A
// narrowed space once left cases behind that only the GPU run rejected.)
TEST(Layouts, EveryCaseIsInTheSpace) {
  const KernelSpec& spec = KernelSpec::builtin("transpose");
  for (const Case& c : layout_cases()) {
    const TransposeArgs args{c.dtype, c.rows, c.cols, c.rows, c.cols, 1ull << 40, 1ull << 32};
    EXPECT_NO_THROW(instantiate(spec, config_from_json(spec, c.config), DeviceLimits{}, transpose_problem(args)))
        << c.config.dump() << " at " << c.rows << "x" << c.cols;
  }
}

TEST(LayoutsGpu, OneConfigOfEachLayout) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  for (const Case& c : layout_cases()) {
    SCOPED_TRACE(c.config.dump());
    run_one(dev, c.config, c.dtype, c.rows, c.cols);
  }
}

// The degenerate shapes as a copy: n x 1 and 1 x n, n odd, with a partial last block.
TEST(LayoutsGpu, DegenerateShapesCopy) {
  KTUNE_REQUIRE_GPU();
  const DeviceInfo dev = query_device_ordinal(0);
  PrimaryContext ctx(dev.device);
  const nlohmann::json copy = {{"tile_m", 32}, {"tile_n", 128}, {"block_x", 32}, {"block_y", 4},
                               {"vec", 4},     {"layout", "direct"}, {"realign", 0}, {"copy", 1}, {"wide", 0},
                               {"order", "src"}, {"words", 0}};
  run_one(dev, copy, DType::f32, 100003, 1);
  run_one(dev, copy, DType::f32, 1, 100003);
  nlohmann::json bytes = copy;
  bytes["vec"] = 16;
  run_one(dev, bytes, DType::u8, 1, 70001);
}

}  // namespace
}  // namespace ktune
