// The cutoff potential map by scatter (README.md here): a thread per atom adds its term
// to every grid point within the cutoff with an atomic, O(atoms) but contended where
// atoms crowd. Tuned e.g. with
//   ktune tune --kernel examples/binning/scatter.cu --problem nx=354,ny=354,atoms=100000,cutoff=8
//
// @kernel  cutoff_scatter
// @entry   cutoff_scatter
// @problem nx, ny, atoms, cutoff
// @arg     out potential : f32[nx * ny] zeroed
// @arg     in  atoms : f32[atoms * 4] in [0, 64]
// @arg     scalar nx : i32 = nx
// @arg     scalar ny : i32 = ny
// @arg     scalar atoms : i32 = atoms
// @arg     scalar cutoff : i32 = cutoff
// @tune    block = 32, 64, 128, 256, 512
// @tune    rows  = 1, 2, 4
// @require block <= max_threads_per_block
// @require align % 4 == 0
// @launch  block = (block, rows, 1)
// @launch  grid  = (ceil_div(atoms, block), 1, 1)
// @verify  config = block=128 rows=1
// @verify  tolerance = rel 1e-5 + max 1e-5
// @default block=128 rows=1
//
// Atoms are (x, y, z, charge); points at integer (x, y, 0). The `rows` threads of an
// atom split the rows of its cutoff square between them. The order of the additions
// into a point varies from run to run (hence a tolerance against the trusted config).

__device__ __forceinline__ float cutoff_term(float q, float r2, float c2) {
  const float s = 1.f - __fdividef(r2, c2);  // (no IEEE division: its slow path takes a stack frame)
  return r2 < c2 && r2 > 0.f ? q * rsqrtf(r2) * s * s : 0.f;
}

template <int block, int rows>
__global__ void __launch_bounds__(block * rows) cutoff_scatter(float* potential, const float* atoms, int nx, int ny,
                                                               int count, int cutoff) {
  const int i = blockIdx.x * block + threadIdx.x;
  if (i >= count) return;
  const float4 a = __ldg(reinterpret_cast<const float4*>(atoms) + i);
  const float c2 = static_cast<float>(cutoff) * cutoff;
  if (!(a.z * a.z < c2)) return;  // (also NaN positions)
  const float reach = sqrtf(c2 - a.z * a.z);
  // The points of the square around the atom that lie on the grid (clamped as floats:
  // atoms far outside the grid touch nothing).
  const int x_lo = static_cast<int>(fmaxf(0.f, ceilf(a.x - reach))), x_hi = static_cast<int>(fminf(nx - 1.f, floorf(a.x + reach)));
  const int y_lo = static_cast<int>(fmaxf(0.f, ceilf(a.y - reach))), y_hi = static_cast<int>(fminf(ny - 1.f, floorf(a.y + reach)));
  for (int y = y_lo + static_cast<int>(threadIdx.y); y <= y_hi; y += rows)
    for (int x = x_lo; x <= x_hi; ++x) {
      const float dx = x - a.x, dy = y - a.y;
      const float t = cutoff_term(a.w, dx * dx + (dy * dy + a.z * a.z), c2);
      if (t != 0.f) atomicAdd(potential + static_cast<long long>(y) * nx + x, t);
    }
}
