// The cutoff potential map computed directly (README.md here): each grid point sums
// every atom, O(points x atoms); the cutoff only zeroes far terms. Tuned e.g. with
//   ktune tune --kernel examples/binning/direct.cu --problem nx=112,ny=112,atoms=10000,cutoff=8
//
// @kernel  cutoff_direct
// @entry   cutoff_direct
// @problem nx, ny, atoms, cutoff
// @arg     out potential : f32[nx * ny]
// @arg     in  atoms : f32[atoms * 4] in [0, 64]
// @arg     scalar nx : i32 = nx
// @arg     scalar ny : i32 = ny
// @arg     scalar atoms : i32 = atoms
// @arg     scalar cutoff : i32 = cutoff
// @tune    block = 64, 128, 256, 512
// @tune    items = 1, 2, 4, 8
// @require block <= max_threads_per_block
// @require align % 4 == 0
// @launch  block = (block, 1, 1)
// @launch  grid  = (ceil_div(nx * ny, block * items), 1, 1)
// @verify  config = block=128 items=1
// @verify  tolerance = rel 1e-6 + max 1e-6
// @default block=128 items=2
//
// Atoms are (x, y, z, charge); points at integer (x, y, 0). A thread takes `items`
// points a block apart; every atom is one broadcast load for the block.

__device__ __forceinline__ float cutoff_term(float q, float r2, float c2) {
  const float s = 1.f - __fdividef(r2, c2);  // (no IEEE division: its slow path takes a stack frame)
  return r2 < c2 && r2 > 0.f ? q * rsqrtf(r2) * s * s : 0.f;
}

template <int block, int items>
__global__ void __launch_bounds__(block) cutoff_direct(float* potential, const float* atoms, int nx, int ny, int count,
                                                       int cutoff) {
  const long long first = static_cast<long long>(blockIdx.x) * block * items + threadIdx.x;
  const long long points = static_cast<long long>(nx) * ny;
  const float c2 = static_cast<float>(cutoff) * cutoff;
  float px[items], py[items], sum[items];
#pragma unroll
  for (int k = 0; k < items; ++k) {
    const long long p = first + static_cast<long long>(k) * block;
    px[k] = static_cast<float>(p % nx), py[k] = static_cast<float>(p / nx), sum[k] = 0.f;
  }
  const float4* a4 = reinterpret_cast<const float4*>(atoms);
  for (int i = 0; i < count; ++i) {
    const float4 a = __ldg(a4 + i);
#pragma unroll
    for (int k = 0; k < items; ++k) {
      const float dx = px[k] - a.x, dy = py[k] - a.y;
      sum[k] += cutoff_term(a.w, dx * dx + (dy * dy + a.z * a.z), c2);
    }
  }
#pragma unroll
  for (int k = 0; k < items; ++k)
    if (first + static_cast<long long>(k) * block < points) potential[first + static_cast<long long>(k) * block] = sum[k];
}
