// A user kernel's checked launch (ktune::Array) without a GPU: a wrong dtype, too few
// elements for the declared extent at this problem, and a wrong scalar are refused on
// the host, naming the argument, before the driver is reached (there is none here).
#include <ktune/error.hpp>
#include <ktune/ktune.hpp>
#include <ktune/runtime/driver.hpp>

#include "test_support.hpp"

#include <unistd.h>

namespace ktune {
namespace {

namespace fs = std::filesystem;

const std::string k_scale = std::string(KTUNE_TEST_DATA_DIR) + "/user_kernels/scale.cu";  // y, x : T[n]; n

class KernelArgsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune-kernel-args-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  Runtime::Options options() const { return {(dir_ / "tuning.db").string(), false}; }

  // The message a launch is refused with ("" when it got past the checks, to the driver).
  // A launch that passes would run on a GPU with these made-up addresses: where there is
  // one, only refusals are tried (passes_checked() says where a pass is tried).
  static bool passes_checked() { return !driver::available(); }
  static std::string refusal(const Kernel& k, std::int64_t n, const LaunchArg& y, const LaunchArg& x, LaunchArg scalar) {
    const LaunchArg args[] = {y, x, scalar};
    try {
      k.launch_args(nullptr, {{"n", n}}, args, 3);
    } catch (const InvalidArgument& e) {
      return e.what();
    } catch (const Error&) {
      return "";  // past the checks: no driver here
    }
    return "launched";
  }

  fs::path dir_;
};

TEST_F(KernelArgsTest, ArraysAreCheckedAgainstTheDescription) {
  Runtime rt(options());
  const Kernel k = rt.kernel(k_scale, "scale", {"i32"});
  const void* p = reinterpret_cast<const void*>(0x10000);
  const std::int64_t n = 1001;
  // Right: i32 arrays of n elements (or more).
  if (passes_checked()) {
    EXPECT_EQ(refusal(k, n, Array{p, n, DType::i32}, Array{p, n + 7, DType::i32}, n), "");
  }
  // f32 arrays to an i32 kernel.
  const std::string dtype = refusal(k, n, Array{p, n, DType::f32}, Array{p, n, DType::i32}, n);
  EXPECT_NE(dtype.find("argument y is declared T (i32), got a f32 array"), std::string::npos) << dtype;
  // Half the elements the description declares.
  const std::string few = refusal(k, n, Array{p, n, DType::i32}, Array{p, n / 2, DType::i32}, n);
  EXPECT_NE(few.find("argument x holds 500 elements, but its declared size n is 1001"), std::string::npos) << few;
  // Raw pointers stay unchecked (documented): they get past the checks.
  if (passes_checked()) {
    EXPECT_EQ(refusal(k, n, p, p, n), "");
  }
  // A scalar of the wrong kind, and an int where a pointer belongs.
  EXPECT_NE(refusal(k, n, p, p, 1.5).find("argument n is a 64-bit integer, got a double"), std::string::npos);
  EXPECT_NE(refusal(k, n, std::int64_t{3}, p, n).find("argument y is a pointer"), std::string::npos);
}

TEST_F(KernelArgsTest, TypedArrayHelperAndDeclaredDtypes) {
  Runtime rt(options());
  const Kernel k = rt.kernel(k_scale, "scale", {"f64"});
  EXPECT_EQ(k.argument_dtypes(), (std::vector<DType>{DType::f64, DType::f64, DType::i64}));
  const double* d = reinterpret_cast<const double*>(0x10000);
  const float* f = reinterpret_cast<const float*>(0x10000);
  if (passes_checked()) {
    EXPECT_EQ(refusal(k, 64, array(d, 64), array(d, 64), std::int64_t{64}), "");
  }
  EXPECT_NE(refusal(k, 64, array(d, 64), array(f, 64), std::int64_t{64}).find("got a f32 array"), std::string::npos);
}

}  // namespace
}  // namespace ktune
