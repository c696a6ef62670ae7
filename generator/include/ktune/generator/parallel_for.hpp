#pragma once
#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace ktune {

// Runs work(begin, end) over [0, n) in one chunk per hardware thread (one chunk below
// `grain` items: a thread costs more than small work). For host-side test data and
// references, which at 1 GB take seconds on one core.
template <class Work>
void parallel_for(std::int64_t n, Work&& work, std::int64_t grain = 1 << 20) {
  const std::int64_t threads = n < grain ? 1 : std::max(1u, std::thread::hardware_concurrency());
  if (threads == 1) return work(std::int64_t{0}, n);
  std::vector<std::thread> pool;
  for (std::int64_t t = 0; t < threads; ++t) pool.emplace_back(work, n * t / threads, n * (t + 1) / threads);
  for (auto& th : pool) th.join();
}

}  // namespace ktune
