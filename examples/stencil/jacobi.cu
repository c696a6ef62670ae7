// A 5-point Jacobi step, tuned by ktune as a user's kernel (README, "Your own kernels"):
//   ktune tune --kernel examples/stencil/jacobi.cu --problem nx=8192,ny=8192
//
// @kernel  jacobi
// @entry   jacobi_step
// @type    T = f32, f64
// @problem nx, ny
// @arg     out next : T[nx * ny]
// @arg     in  grid : T[nx * ny]
// @arg     scalar nx : i32 = nx
// @arg     scalar ny : i32 = ny
// @tune    block_x = 32, 64, 128, 256
// @tune    block_y = 1, 2, 4, 8
// @tune    vx      = 1, 2, 4
// @tune    items   = 1, 2, 4, 8
// @tune    halo    = 0, 1
// @derive  tile_w  = block_x * vx
// @derive  tile_h  = block_y * items
// @require block_x * block_y >= 64 && block_x * block_y <= max_threads_per_block
// @require halo == 0 || (tile_w + 2) * (tile_h + 2) * elem_bytes <= max_smem_per_block
// @launch  block = (block_x, block_y, 1)
// @launch  grid  = (ceil_div(nx, tile_w), ceil_div(ny, tile_h), 1)
// @launch  smem  = halo == 1 ? (tile_w + 2) * (tile_h + 2) * elem_bytes : 0
// @verify  reference = jacobi_reference
// @verify  block = (256, 1, 1)
// @verify  grid  = (ceil_div(nx * ny, 256), 1, 1)
// @verify  tolerance = exact
//
// next = the average of the four neighbours inside, the grid itself on the border.
// Each thread computes vx points along x (block_x apart: a warp's loads stay
// coalesced) in `items` rows (block_y apart). halo = 1 stages the block's tile and its
// one-point halo in shared memory first; halo = 0 reads neighbours from global memory
// (L1 and L2 catch the reuse). Both evaluate the same expression as the reference, in
// the same order, so results match bit for bit.

template <typename T>
__device__ __forceinline__ T jacobi_average(T west, T east, T north, T south) {
  return T(0.25) * ((west + east) + (north + south));
}

template <typename T>
__global__ void jacobi_reference(T* next, const T* grid, int nx, int ny) {
  const long long i = blockIdx.x * static_cast<long long>(blockDim.x) + threadIdx.x;
  if (i >= static_cast<long long>(nx) * ny) return;
  const int x = static_cast<int>(i % nx), y = static_cast<int>(i / nx);
  if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
    next[i] = grid[i];
    return;
  }
  next[i] = jacobi_average(grid[i - 1], grid[i + 1], grid[i - nx], grid[i + nx]);
}

template <typename T, int block_x, int block_y, int vx, int items, int halo>
__global__ void __launch_bounds__(block_x * block_y) jacobi_step(T* __restrict__ next, const T* __restrict__ grid,
                                                                  int nx, int ny) {
  constexpr int tile_w = block_x * vx, tile_h = block_y * items;
  const int x0 = blockIdx.x * tile_w, y0 = blockIdx.y * tile_h;
  extern __shared__ unsigned char smem_bytes[];
  T* tile = reinterpret_cast<T*>(smem_bytes);
  constexpr int pitch = tile_w + 2;
  if (halo) {
    const int threads = block_x * block_y, tid = threadIdx.y * block_x + threadIdx.x;
    for (int k = tid; k < (tile_h + 2) * pitch; k += threads) {
      const int gx = x0 - 1 + k % pitch, gy = y0 - 1 + k / pitch;
      tile[k] = gx >= 0 && gy >= 0 && gx < nx && gy < ny ? grid[static_cast<long long>(gy) * nx + gx] : T(0);
    }
    __syncthreads();
  }
#pragma unroll
  for (int r = 0; r < items; ++r) {
    const int ly = threadIdx.y + r * block_y, y = y0 + ly;
#pragma unroll
    for (int c = 0; c < vx; ++c) {
      const int lx = threadIdx.x + c * block_x, x = x0 + lx;
      if (x >= nx || y >= ny) continue;
      const long long i = static_cast<long long>(y) * nx + x;
      if (x == 0 || y == 0 || x == nx - 1 || y == ny - 1) {
        next[i] = halo ? tile[(ly + 1) * pitch + lx + 1] : grid[i];
      } else if (halo) {
        const T* t = tile + (ly + 1) * pitch + lx + 1;
        next[i] = jacobi_average(t[-1], t[1], t[-pitch], t[pitch]);
      } else {
        next[i] = jacobi_average(grid[i - 1], grid[i + 1], grid[i - nx], grid[i + nx]);
      }
    }
  }
}
