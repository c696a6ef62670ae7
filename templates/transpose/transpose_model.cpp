// The transpose kernel's static model: its shared-memory requests replayed on the host.
#include <transpose/transpose_model.hpp>

#include <algorithm>
#include <vector>

namespace ktune {

BankConflicts transpose_bank_conflicts(SmemLayout layout, int tile_m, int tile_n, int block_x, int block_y,
                                       int vec, int elem_bytes) {
  const int threads = block_x * block_y;
  const int access = vec * elem_bytes;
  const int groups = tile_n / vec;
  const auto address = [&](std::int64_t r, std::int64_t g) {
    return smem_group_index(layout, r, g, tile_n, vec) * access;
  };
  // Every lane of a warp runs the same loop iteration; an iteration is one request.
  long store_cost = 0, store_ideal = 0, load_cost = 0, load_ideal = 0;
  std::vector<std::optional<std::int64_t>> lanes(32);
  for (int warp = 0; warp * 32 < threads; ++warp) {
    for (int i = 0; i * block_y < tile_m; ++i)
      for (int j = 0; j * block_x < groups; ++j) {
        std::fill(lanes.begin(), lanes.end(), std::nullopt);
        for (int lane = 0; lane < 32 && warp * 32 + lane < threads; ++lane) {
          const int tx = (warp * 32 + lane) % block_x, ty = (warp * 32 + lane) / block_x;
          const int r = ty + i * block_y, g = tx + j * block_x;
          if (r < tile_m && g < groups) lanes[static_cast<std::size_t>(lane)] = address(r, g);
        }
        store_cost += wavefronts(lanes, access);
        store_ideal += ideal_wavefronts(access);
      }
    for (int i = 0; i * block_y < groups; ++i)
      for (int j = 0; j * block_x < tile_m / vec; ++j)
        for (int k = 0; k < vec; ++k) {
          std::fill(lanes.begin(), lanes.end(), std::nullopt);
          for (int lane = 0; lane < 32 && warp * 32 + lane < threads; ++lane) {
            const int tx = (warp * 32 + lane) % block_x, ty = (warp * 32 + lane) / block_x;
            const int cg = ty + i * block_y, rg = tx + j * block_x;
            if (cg < groups && rg < tile_m / vec) lanes[static_cast<std::size_t>(lane)] = address(rg * vec + k, cg);
          }
          load_cost += wavefronts(lanes, access);
          load_ideal += ideal_wavefronts(access);
        }
  }
  return {static_cast<double>(store_cost) / static_cast<double>(store_ideal),
          static_cast<double>(load_cost) / static_cast<double>(load_ideal)};
}

}  // namespace ktune
