// The capture bundle file: what is written reads back bit for bit, nothing is ever
// overwritten, and every way a file can be unusable is caught with the path and the
// reason before any data is trusted.
#include <ktune/cache/capture_bundle.hpp>

#include "test_support.hpp"

#include <unistd.h>

#include <cstring>
#include <fstream>
#include <iterator>

namespace ktune {
namespace {

namespace fs = std::filesystem;

class CaptureBundleTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ktune-capture-test-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override {
    fs::permissions(dir_, fs::perms::owner_all);
    fs::remove_all(dir_);
  }

  static CaptureBundle sample() {
    CaptureBundle b;
    b.header = {{"kind", "kernel"}, {"family", "jacobi"}, {"shape", {33, 17}}};
    CaptureBuffer in{"grid", "input", {}}, out{"next", "expected", {}};
    for (int i = 0; i < 100000; ++i) in.bytes.push_back(static_cast<unsigned char>(i * 7919 % 251));
    out.bytes.assign(4000, 0x3F);
    b.buffers = {in, out};
    return b;
  }
  std::string bytes_of(const fs::path& p) const {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
  }
  void put(const fs::path& p, const std::string& bytes) const { std::ofstream(p, std::ios::binary) << bytes; }

  fs::path dir_;
};

TEST_F(CaptureBundleTest, RoundTripsHeaderAndEveryByte) {
  const fs::path file = dir_ / "a.ktcap";
  ASSERT_TRUE(write_capture(file, sample()));
  const CaptureBundle back = read_capture(file);
  EXPECT_EQ(back.header.at("family"), "jacobi");
  EXPECT_EQ(back.header.at("buffers").size(), 2u);
  EXPECT_EQ(back.header.at("content_hash").get<std::string>().size(), 16u);
  ASSERT_EQ(back.buffers.size(), 2u);
  EXPECT_EQ(back.find("grid", "input")->bytes, sample().buffers[0].bytes);
  EXPECT_EQ(back.find("next", "expected")->bytes, sample().buffers[1].bytes);
  EXPECT_EQ(back.find("next", "input"), nullptr);
  // Compressed: the constant output takes a few bytes.
  EXPECT_LT(fs::file_size(file), 100000u + 4000u);
  // The header alone: no data read.
  EXPECT_TRUE(read_capture(file, false).buffers.empty());
  // No temporary file is left beside it.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir_), fs::directory_iterator{}), 1);
}

TEST_F(CaptureBundleTest, NeverOverwritesABundle) {
  const fs::path file = dir_ / "a.ktcap";
  ASSERT_TRUE(write_capture(file, sample()));
  const std::string before = bytes_of(file);
  CaptureBundle other = sample();
  other.header["family"] = "other";
  EXPECT_FALSE(write_capture(file, other));
  EXPECT_EQ(bytes_of(file), before);
}

TEST_F(CaptureBundleTest, TruncatedAnywhereIsCaughtBeforeDecompressing) {
  const fs::path file = dir_ / "a.ktcap";
  ASSERT_TRUE(write_capture(file, sample()));
  const std::string whole = bytes_of(file);
  for (std::size_t keep : {std::size_t{0}, std::size_t{10}, std::size_t{40}, whole.size() / 2, whole.size() - 1}) {
    put(dir_ / "cut.ktcap", whole.substr(0, keep));
    expect_error([&] { read_capture(dir_ / "cut.ktcap", false); }, "cut.ktcap: ");
    const std::string e = error_of([&] { read_capture(dir_ / "cut.ktcap"); });
    EXPECT_TRUE(e.find("truncated") != std::string::npos || e.find("not a ktune capture") != std::string::npos ||
                e.find("corrupted") != std::string::npos)
        << keep << ": " << e;
  }
  put(dir_ / "long.ktcap", whole + "x");
  expect_error([&] { read_capture(dir_ / "long.ktcap"); }, "1 bytes past its end");
}

TEST_F(CaptureBundleTest, CorruptedDataForeignFilesAndOtherVersionsAreRefused) {
  const fs::path file = dir_ / "a.ktcap";
  ASSERT_TRUE(write_capture(file, sample()));
  std::string bytes = bytes_of(file);
  // Inside the first buffer's compressed data. (A few bits of a deflate stream, such as
  // the padding after its last block, change nothing when flipped: the hash decides.)
  std::uint32_t header_bytes = 0;
  std::memcpy(&header_bytes, &bytes[12], 4);
  const auto stored = read_capture(file, false).header.at("buffers")[0].at("stored").get<std::size_t>();
  bytes[16 + header_bytes + stored / 2] ^= 0x5A;
  put(dir_ / "flip.ktcap", bytes);
  const std::string e = error_of([&] { read_capture(dir_ / "flip.ktcap"); });
  EXPECT_NE(e.find("flip.ktcap: corrupted: buffer "), std::string::npos) << "[" << e << "]";
  EXPECT_NO_THROW(read_capture(dir_ / "flip.ktcap", false));  // the sizes still add up

  put(dir_ / "foreign.ktcap", "this is a text file, not a bundle at all");
  expect_error([&] { read_capture(dir_ / "foreign.ktcap"); }, "not a ktune capture bundle");
  bytes = bytes_of(file);
  bytes[8] = 7;  // format version 7
  put(dir_ / "v7.ktcap", bytes);
  expect_error([&] { read_capture(dir_ / "v7.ktcap"); }, "capture format version 7; this ktune reads version 1");
  bytes = bytes_of(file);
  bytes[16] = '!';  // the header's JSON
  put(dir_ / "header.ktcap", bytes);
  expect_error([&] { read_capture(dir_ / "header.ktcap"); }, "its header is not a capture description");
  expect_error([&] { read_capture(dir_ / "missing.ktcap"); }, "missing.ktcap: cannot read");
}

TEST_F(CaptureBundleTest, AFolderThatCannotBeWrittenIsAnErrorWithItsReason) {
  expect_error([&] { write_capture(dir_ / "gone" / "a.ktcap", sample()); }, "No such file or directory");
  if (::geteuid() == 0) GTEST_SKIP() << "root writes into read-only folders";
  fs::permissions(dir_, fs::perms::owner_read | fs::perms::owner_exec);
  expect_error([&] { write_capture(dir_ / "a.ktcap", sample()); }, "Permission denied");
}

TEST_F(CaptureBundleTest, FolderListingAndFileNames) {
  ASSERT_TRUE(write_capture(dir_ / "b.ktcap", sample()));
  ASSERT_TRUE(write_capture(dir_ / "a.ktcap", sample()));
  put(dir_ / "notes.txt", "not a bundle");
  const auto files = capture_files(dir_);
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].filename(), "a.ktcap");
  EXPECT_EQ(capture_files(dir_ / "a.ktcap").size(), 1u);
  expect_error([&] { capture_files(dir_ / "nowhere"); }, "no such file or folder");
  const std::string name = capture_file_name("elementwise", "o0=(i0*i1)/x", "f16>f32", {1000003}, 4);
  EXPECT_EQ(name.find('/'), std::string::npos);
  EXPECT_EQ(name.find('>'), std::string::npos);
  EXPECT_EQ(name.substr(name.size() - 25), "-f16_f32-1000003-a4.ktcap");
  EXPECT_NE(capture_file_name("gemm", "nn", "f32", {4, 4, 4}, 4), capture_file_name("gemm", "nt", "f32", {4, 4, 4}, 4));
  // A pitched call of the same shape (another alignment class) is another problem.
  EXPECT_NE(capture_file_name("transpose", "", "u8", {8192, 2048}, 16),
            capture_file_name("transpose", "", "u8", {8192, 2048}, 1));
}

}  // namespace
}  // namespace ktune
