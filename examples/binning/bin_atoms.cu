// Sorting atoms into spatial bins on the GPU (README.md here): each atom takes the next
// slot of its cell with an atomic; a cell that is full counts the atom in `overflow`
// (the app then bins again with more slots). Launched by binning_app through ktune; its
// slot order varies from run to run, so it is checked by the app (every atom in its
// cell, counts summing to the atoms), not tuned.
//
// @kernel  bin_atoms
// @entry   bin_atoms
// @problem nx, ny, atoms, cutoff, cell, cap
// @arg     out bins : f32[ceil_div(nx, cell) * ceil_div(ny, cell) * ceil_div(2 * cutoff, cell) * cap * 4] zeroed
// @arg     out counts : i32[ceil_div(nx, cell) * ceil_div(ny, cell) * ceil_div(2 * cutoff, cell)] zeroed
// @arg     out overflow : i32[1] zeroed
// @arg     in  atoms : f32[atoms * 4] in [0, 64]
// @arg     scalar nx : i32 = nx
// @arg     scalar ny : i32 = ny
// @arg     scalar atoms : i32 = atoms
// @arg     scalar cutoff : i32 = cutoff
// @arg     scalar cell : i32 = cell
// @arg     scalar cap : i32 = cap
// @tune    block = 128, 256, 512
// @require align % 4 == 0
// @launch  block = (block, 1, 1)
// @launch  grid  = (ceil_div(atoms, block), 1, 1)
// @verify  config = block=256
// @verify  tolerance = exact
// @default block=256

__device__ __forceinline__ int clamp_cell(float v, int cell, int cells) {
  const int c = static_cast<int>(floorf(v / cell));
  return c < 0 ? 0 : c >= cells ? cells - 1 : c;
}

template <int block>
__global__ void __launch_bounds__(block) bin_atoms(float* bins, int* counts, int* overflow, const float* atoms, int nx,
                                                   int ny, int count, int cutoff, int cell, int cap) {
  const int i = blockIdx.x * block + threadIdx.x;
  if (i >= count) return;
  const float4 a = reinterpret_cast<const float4*>(atoms)[i];
  const int cx = (nx + cell - 1) / cell, cy = (ny + cell - 1) / cell, cz = (2 * cutoff + cell - 1) / cell;
  const int c = (clamp_cell(a.z + cutoff, cell, cz) * cy + clamp_cell(a.y, cell, cy)) * cx + clamp_cell(a.x, cell, cx);
  const int slot = atomicAdd(counts + c, 1);
  if (slot < cap) reinterpret_cast<float4*>(bins)[static_cast<long long>(c) * cap + slot] = a;
  else atomicAdd(overflow, 1);
}
