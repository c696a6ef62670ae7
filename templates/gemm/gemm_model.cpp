// The GEMM kernels' static models: their shared-memory requests replayed on the host.
#include <gemm/gemm_model.hpp>

#include <ktune/error.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace ktune {
namespace {

// The replays below depend on a few integers, and a model ranks thousands of configs
// with a handful of distinct ones (replaying each config's was half the time an untuned
// GEMM call spent ranking its space): each is replayed once per process. A replay that
// throws is not kept.
template <class Result, class Key, class Replay>
Result replayed_once(const Key& key, const Replay& replay) {
  static std::mutex mutex;
  static std::map<Key, Result> seen;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (const auto it = seen.find(key); it != seen.end()) return it->second;
  }
  const Result result = replay();
  std::lock_guard<std::mutex> lock(mutex);
  seen.emplace(key, result);
  return result;
}

}  // namespace

std::int64_t gemm_smem_offset(SmemLayout layout, int rows, std::int64_t k, std::int64_t r) {
  switch (layout) {
    case SmemLayout::pad: return k * (rows + 4) + r;
    case SmemLayout::xor_swizzle: return k * rows + ((((r >> 2) ^ (k & 7)) << 2) | (r & 3));
    case SmemLayout::shift: return k * rows + ((((r >> 2) + k) & (rows / 4 - 1)) << 2) + (r & 3);
    case SmemLayout::none: break;
  }
  return k * rows + r;
}

double GemmBankConflicts::weighted(const GemmTile& t) const {
  const double stores = static_cast<double>(t.bm + t.bn) / (t.bm / t.tm * (t.bn / t.tn));  // per thread per k
  const double reads = t.tm + t.tn;
  return (stores * (store_a + store_b) / 2 + reads * (read_a * t.tm + read_b * t.tn) / (t.tm + t.tn)) / (stores + reads);
}

namespace {

GemmBankConflicts replay_gemm_bank_conflicts(SmemLayout layout, const GemmTile& t) {
  const int threads = t.bm / t.tm * (t.bn / t.tn);
  if (t.warp_n <= 0 || 32 % t.warp_n != 0 || (t.bn / t.tn) % t.warp_n != 0 || (t.bm / t.tm) % (32 / t.warp_n) != 0)
    throw Error("gemm_bank_conflicts: warp_n " + std::to_string(t.warp_n) + " does not tile a " +
                std::to_string(t.bm / t.tm) + " x " + std::to_string(t.bn / t.tn) + " grid of thread tiles");
  const int acc = t.acc_bytes;
  struct Tally {
    long cost = 0, ideal = 0;
    void add(const std::vector<std::optional<std::int64_t>>& lanes, int bytes) {
      cost += wavefronts(lanes, bytes);
      ideal += ideal_wavefronts(bytes);
    }
    double ratio() const { return ideal ? static_cast<double>(cost) / static_cast<double>(ideal) : 1.0; }
  };
  // Vector width of a run of `count` consecutive elements (the kernel's chunking).
  const auto width = [&](int count) { return std::min({count, 4, 16 / acc}); };
  const auto stores = [&](int rows, bool k_contig) {
    Tally tally;
    const int loads = rows * t.bk / (threads * t.vec), g = std::min(t.vec, 4);
    for (int warp = 0; warp * 32 < threads; ++warp)
      for (int i = 0; i < loads; ++i)
        for (int e = 0; e < t.vec; e += k_contig ? 1 : g) {
          std::vector<std::optional<std::int64_t>> lanes(32);
          for (int lane = 0; lane < 32 && warp * 32 + lane < threads; ++lane) {
            const int c = warp * 32 + lane + i * threads;
            const int r = k_contig ? c / (t.bk / t.vec) : (c % (rows / t.vec)) * t.vec;
            const int kk = k_contig ? (c % (t.bk / t.vec)) * t.vec : c / (rows / t.vec);
            lanes[static_cast<std::size_t>(lane)] =
                (k_contig ? gemm_smem_offset(layout, rows, kk + e, r) : gemm_smem_offset(layout, rows, kk, r + e)) * acc;
          }
          tally.add(lanes, k_contig ? acc : g * acc);
        }
    return tally.ratio();
  };
  // Each lane reads `count` elements of row kk from first(lane) on, in vectors of width(count).
  const auto reads = [&](int rows, int count, const auto& first) {
    Tally tally;
    const int g = width(count);
    for (int warp = 0; warp * 32 < threads; ++warp)
      for (int kk = 0; kk < t.bk; ++kk)
        for (int q = 0; q < count; q += g) {
          std::vector<std::optional<std::int64_t>> lanes(32);
          for (int lane = 0; lane < 32 && warp * 32 + lane < threads; ++lane)
            lanes[static_cast<std::size_t>(lane)] = gemm_smem_offset(layout, rows, kk, first(warp * 32 + lane) + q) * acc;
          tally.add(lanes, g * acc);
        }
    return tally.ratio();
  };
  GemmBankConflicts out;
  out.store_a = stores(t.bm, t.a_k_contig);
  out.store_b = stores(t.bn, t.b_k_contig);
  // The kernel's thread-tile coordinates: warps row-major over the block tile, lanes
  // row-major inside a warp's warp_m x warp_n thread tiles.
  const int warps_x = t.bn / t.tn / t.warp_n, warp_m = 32 / t.warp_n;
  const auto tx = [&](int tid) { return tid / 32 % warps_x * t.warp_n + tid % 32 % t.warp_n; };
  const auto ty = [&](int tid) { return tid / 32 / warps_x * warp_m + tid % 32 / t.warp_n; };
  out.read_a = reads(t.bm, t.tm, [&](int tid) { return ty(tid) * t.tm; });
  if (t.split) {
    const double lo = reads(t.bn, t.tn / 2, [&](int tid) { return tx(tid) * (t.tn / 2); });
    const double hi = reads(t.bn, t.tn / 2, [&](int tid) { return t.bn / 2 + tx(tid) * (t.tn / 2); });
    out.read_b = (lo + hi) / 2;
  } else {
    out.read_b = reads(t.bn, t.tn, [&](int tid) { return tx(tid) * t.tn; });
  }
  return out;
}

}  // namespace

GemmBankConflicts gemm_bank_conflicts(SmemLayout layout, const GemmTile& t) {
  const auto key = std::make_tuple(static_cast<int>(layout), t.bm, t.bn, t.bk, t.tm, t.tn, t.vec, t.acc_bytes, t.split,
                                   t.a_k_contig, t.b_k_contig, t.warp_n);
  return replayed_once<GemmBankConflicts>(key, [&] { return replay_gemm_bank_conflicts(layout, t); });
}

std::int64_t mma_smem_offset(SmemLayout layout, int rows, int cols, std::int64_t row, std::int64_t chunk) {
  const std::int64_t chunks = cols / 8;
  switch (layout) {
    case SmemLayout::pad: return row * (cols + 8) + chunk * 8;
    case SmemLayout::xor_swizzle:
      if (chunks >= 8) return chunk / 8 * rows * 64 + row * 64 + ((chunk % 8) ^ (row % 8)) * 8;
      return row * cols + (chunk ^ (row / 2 % 4)) * 8;
    case SmemLayout::shift:
      throw Error("the tensor-core GEMM has no shift layout");
    case SmemLayout::none: break;
  }
  return row * cols + chunk * 8;
}

namespace {

MmaBankConflicts replay_mma_bank_conflicts(SmemLayout layout, int cols, int rows) {
  // 2-byte elements; a request of 16-byte accesses is served 8 lanes a phase.
  const auto address = [&](std::int64_t row, std::int64_t chunk) {
    return mma_smem_offset(layout, rows, cols, row, chunk) * 2;
  };
  const int chunks = cols / 8;
  MmaBankConflicts c{0, 0};
  int copies = 0, reads = 0;
  // cp.async: a warp's 32 consecutive chunks of the tile, row-major.
  for (int first = 0; first < rows * chunks; first += 32, ++copies) {
    std::vector<std::optional<std::int64_t>> lanes(32);
    for (int l = 0; l < 32 && first + l < rows * chunks; ++l)
      lanes[static_cast<std::size_t>(l)] = address((first + l) / chunks, (first + l) % chunks);
    c.copy += static_cast<double>(wavefronts(lanes, 16)) / ideal_wavefronts(16);
  }
  // ldmatrix x4: four 8-row matrices at one chunk column each, from every 8-row band.
  for (int row0 = 0; row0 + 16 <= rows; row0 += 16)
    for (int chunk = 0; chunk + 2 <= chunks; chunk += 2, ++reads) {
      std::vector<std::optional<std::int64_t>> lanes(32);
      for (int l = 0; l < 32; ++l)
        lanes[static_cast<std::size_t>(l)] = address(row0 + (l / 8) % 2 * 8 + l % 8, chunk + l / 16);
      c.ldmatrix += static_cast<double>(wavefronts(lanes, 16)) / ideal_wavefronts(16);
    }
  c.copy = copies ? c.copy / copies : 1;
  c.ldmatrix = reads ? c.ldmatrix / reads : 1;
  return c;
}

}  // namespace

MmaBankConflicts mma_bank_conflicts(SmemLayout layout, int cols, int rows) {
  const auto key = std::make_tuple(static_cast<int>(layout), cols, rows);
  return replayed_once<MmaBankConflicts>(key, [&] { return replay_mma_bank_conflicts(layout, cols, rows); });
}

}  // namespace ktune
