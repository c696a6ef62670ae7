#pragma once
#include <ktune/runtime/device.hpp>

#include <cstdint>
#include <vector>

namespace ktune {

// The next value of a splitmix64 stream (test data: fast, and good enough).
inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Fresh random bytes with no zero byte anywhere (zeros hide unwritten outputs); the
// same bytes for the same seed and size, threaded.
void fill_random(unsigned char* bytes, std::size_t n, std::uint64_t seed);
void fill_random(std::vector<unsigned char>& bytes, std::uint64_t seed);
inline std::size_t round16(std::size_t n) { return (n + 15) / 16 * 16; }

// Checks a kernel's output on the device against an uploaded reference: poison the
// output before the run, compare every byte after it (exact match).
class Verifier {
 public:
  // dst and ref are allocated with round16(bytes); only the first `bytes` of dst are
  // poisoned, the tail must equal ref's.
  Verifier(const DeviceInfo& dev, CUstream stream, CUdeviceptr dst, CUdeviceptr ref, std::size_t bytes);
  static constexpr unsigned char poison_byte = 0xA5;
  void poison() const;  // fills dst's first `bytes` with poison_byte
  // Number of 16-byte chunks that differ from the reference (synchronizes the stream).
  unsigned long long mismatches();

 private:
  CUstream stream_;
  CUdeviceptr dst_, ref_;
  std::size_t bytes_;
  DeviceBuffer counter_;
  std::unique_ptr<Module> module_;
  CUfunction compare_ = nullptr;
  int sm_count_;
};

}  // namespace ktune
