// The cutoff electrostatic potential map by binning (README.md here), the gather: each
// grid point sums the atoms of the spatial bins near it, O(atoms) in all. Tuned by ktune
// as a user's kernel, e.g. for 10^6 atoms:
//   ktune tune --kernel examples/binning/cutoff_gather.cu --problem nx=1118,ny=1118,cutoff=8,cell=4,cap=13
//
// @kernel  cutoff_gather
// @entry   cutoff_gather
// @problem nx, ny, cutoff, cell, cap
// @arg     out potential : f32[nx * ny]
// @arg     in  bins : f32[ceil_div(nx, cell) * ceil_div(ny, cell) * ceil_div(2 * cutoff, cell) * cap * 4] in [0, 64]
// @arg     in  counts : i32[ceil_div(nx, cell) * ceil_div(ny, cell) * ceil_div(2 * cutoff, cell)] in [0, 16]
// @arg     scalar nx : i32 = nx
// @arg     scalar ny : i32 = ny
// @arg     scalar cutoff : i32 = cutoff
// @arg     scalar cell : i32 = cell
// @arg     scalar cap : i32 = cap
// @tune    block_x = 16, 32, 64, 128
// @tune    block_y = 1, 2, 4, 8
// @tune    items   = 1, 2, 4, 8
// @require block_x * block_y >= 32 && block_x * block_y <= max_threads_per_block
// @require align % 4 == 0
// @launch  block = (block_x, block_y, 1)
// @launch  grid  = (ceil_div(nx, block_x * items), ceil_div(ny, block_y), 1)
// @verify  reference = cutoff_gather_reference
// @verify  block = (128, 1, 1)
// @verify  grid  = (ceil_div(nx * ny, 128), 1, 1)
// @verify  tolerance = rel 1e-6 + max 1e-6
// @default block_x=32 block_y=4 items=2
//
// Grid points sit at integer (x, y, 0), x < nx, y < ny; atoms lie in the slab
// 0 <= x < nx, 0 <= y < ny, -cutoff <= z < cutoff (everything farther is beyond the
// cutoff). The app sorts them into cubic cells of side `cell` (bin_atoms.cu), each a
// fixed `cap` slots of (x, y, z, charge) of which the first `counts` (at most cap) are
// atoms; cells are numbered x fastest, then y, then z. A point sums every atom of the cells within R =
// ceil(cutoff / cell) cells of its own in x and y (all of z): where the atoms are binned
// right, that is every atom within the cutoff, and the others add nothing. Defined over
// cells rather than positions, the sum is the same for the tuner's random bins.
// A block takes a tile of block_x * items by block_y points, walks the cells near the
// tile in z, y, x order (each atom one broadcast load for the whole block) and each
// thread adds, for its `items` points block_x apart, the cells near each point: in the
// reference's order, so results agree to rounding.

// cutcp's smoothed Coulomb term: q / r (1 - r^2 / c^2)^2 inside the cutoff, 0 outside
// and at r = 0.
__device__ __forceinline__ float cutoff_term(float q, float r2, float c2) {
  const float s = 1.f - __fdividef(r2, c2);  // (no IEEE division: its slow path takes a stack frame)
  return r2 < c2 && r2 > 0.f ? q * rsqrtf(r2) * s * s : 0.f;
}

__device__ __forceinline__ int cell_count(int extent, int cell) { return (extent + cell - 1) / cell; }

__global__ void cutoff_gather_reference(float* potential, const float* bins, const int* counts, int nx, int ny,
                                        int cutoff, int cell, int cap) {
  const long long p = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (p >= static_cast<long long>(nx) * ny) return;
  const int px = static_cast<int>(p % nx), py = static_cast<int>(p / nx);
  const int cx = cell_count(nx, cell), cy = cell_count(ny, cell), cz = cell_count(2 * cutoff, cell);
  const int reach = cell_count(cutoff, cell);
  const float c2 = static_cast<float>(cutoff) * cutoff;
  const float4* atoms = reinterpret_cast<const float4*>(bins);
  float sum = 0.f;
  for (int z = 0; z < cz; ++z)
    for (int y = max(0, py / cell - reach); y <= min(cy - 1, py / cell + reach); ++y)
      for (int x = max(0, px / cell - reach); x <= min(cx - 1, px / cell + reach); ++x)
        for (int s = 0, c = (z * cy + y) * cx + x; s < min(counts[c], cap); ++s) {
          const float4 a = atoms[static_cast<long long>(c) * cap + s];
          const float dx = px - a.x, dy = py - a.y;
          sum += cutoff_term(a.w, dx * dx + (dy * dy + a.z * a.z), c2);
        }
  potential[p] = sum;
}

// (No __launch_bounds__: with it ptxas spilled at 40 registers for items >= 4.)
template <int block_x, int block_y, int items>
__global__ void cutoff_gather(float* potential, const float* bins, const int* counts, int nx, int ny, int cutoff, int cell,
                              int cap) {
  const int x0 = blockIdx.x * block_x * items, y0 = blockIdx.y * block_y;
  const int px = x0 + threadIdx.x, py = y0 + threadIdx.y;
  const int cx = cell_count(nx, cell), cy = cell_count(ny, cell), cz = cell_count(2 * cutoff, cell);
  const int reach = cell_count(cutoff, cell);
  const float c2 = static_cast<float>(cutoff) * cutoff;
  const float4* atoms = reinterpret_cast<const float4*>(bins);
  // The cells near the tile (uniform over the block), and near each of this thread's points.
  const int x_lo = max(0, x0 / cell - reach), x_hi = min(cx - 1, min(x0 + block_x * items, nx) / cell + reach);
  const int y_lo = max(0, y0 / cell - reach), y_hi = min(cy - 1, min(y0 + block_y, ny) / cell + reach);
  const int my_cy = py / cell;
  float sum[items];
#pragma unroll
  for (int k = 0; k < items; ++k) sum[k] = 0.f;
  for (int z = 0; z < cz; ++z)
    for (int y = y_lo; y <= y_hi; ++y) {
      const bool y_near = abs(y - my_cy) <= reach;
      for (int x = x_lo; x <= x_hi; ++x) {
        unsigned near = 0;  // bit k: the cell is near point k
#pragma unroll
        for (int k = 0; k < items; ++k) near |= (y_near && abs(x - (px + k * block_x) / cell) <= reach) ? 1u << k : 0u;
        if (near == 0) continue;
        const int c = (z * cy + y) * cx + x, n = min(__ldg(counts + c), cap);
        const float4* cell_atoms = atoms + static_cast<long long>(c) * cap;
        for (int s = 0; s < n; ++s) {
          const float4 a = __ldg(cell_atoms + s);
          const float dy = py - a.y, r2_yz = dy * dy + a.z * a.z;
#pragma unroll
          for (int k = 0; k < items; ++k) {
            const float dx = (px + k * block_x) - a.x;
            if (near >> k & 1u) sum[k] += cutoff_term(a.w, dx * dx + r2_yz, c2);
          }
        }
      }
    }
#pragma unroll
  for (int k = 0; k < items; ++k)
    if (px + k * block_x < nx && py < ny) potential[static_cast<long long>(py) * nx + px + k * block_x] = sum[k];
}
