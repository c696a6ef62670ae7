// @kernel  reduce
// @entry   ktune_reduce
// @compatible 8a74ef6268c53139: ba5ad75f80b2e0ee
// @type    Op = operation
// @tune    block  = 128, 256, 512, 1024
// @tune    vec    = 1, 2, 4, 8
// @tune    items  = 1, 2, 4
// @tune    tree   = shuffle, smem
// @tune    passes = 1, 2
// @tune    waves  = 1, 2, 4
// @derive  groups = max(1, ceil_div(n / vec, block * items))
// @require vec * elem_bytes <= 16
// @require align % vec == 0
// @require vec * items * elem_bytes <= 64
// @require block <= max_threads_per_block
// @launch  block = (block, 1, 1)
// @launch  grid  = (min(groups, waves * sm_count * (2048 / block)), 1, 1)
// @default block=256 vec=1 items=4 tree=shuffle passes=2 waves=1
// @include common
// @include reduce_ops
//
// *out = reduction of x[0..n) (sum, max, min or mean; Op = ktune_rop<In, op>). Each
// thread keeps `items` independent accumulators over a grid-stride loop of `vec`-wide
// loads, the block combines them (`tree`: warp shuffles then one warp over the warps'
// results, or a shared-memory halving tree) into partials[blockIdx.x]; then either the
// last block to finish (passes = 1, an atomic ticket) or a second launch of one block
// (passes = 2, phase 1) combines the partials in index order. Every combination order
// is fixed by the config, so results are bitwise reproducible; no value is atomic.
// grid = waves x (2048 / block) blocks per SM at most: partials fit sm_count * 64.

template <class Op, int block, int vec, int items, int tree, int passes, int waves>
__global__ void __launch_bounds__(block)
    ktune_reduce(const typename Op::in_t* x, long long n, typename Op::acc_t* partials, unsigned* ticket,
                 typename Op::out_t* out, int phase, int partial_count) {
  using In = typename Op::in_t;
  using Acc = typename Op::acc_t;
  using V = ktune_vec<In, vec>;
  __shared__ Acc scratch[block];
  __shared__ bool last;
  if (phase == 0) {
    Acc acc[items];
#pragma unroll
    for (int j = 0; j < items; ++j) acc[j] = Op::identity();
    const long long nv = n / vec;
    const long long step = static_cast<long long>(gridDim.x) * block * items;
    for (long long base = static_cast<long long>(blockIdx.x) * block * items; base < nv; base += step) {
      V r[items];
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const long long v = base + threadIdx.x + static_cast<long long>(j) * block;
        if (v < nv) r[j] = reinterpret_cast<const V*>(x)[v];
      }
#pragma unroll
      for (int j = 0; j < items; ++j) {
        const long long v = base + threadIdx.x + static_cast<long long>(j) * block;
        if (v < nv) {
#pragma unroll
          for (int e = 0; e < vec; ++e) acc[j] = Op::combine(acc[j], ktune_io<In, Acc>::load(r[j].v[e]));
        }
      }
    }
    const long long tail = nv * vec + threadIdx.x;
    if (vec > 1 && blockIdx.x == 0 && tail < n) acc[0] = Op::combine(acc[0], ktune_io<In, Acc>::load(x[tail]));
    Acc v = acc[0];
#pragma unroll
    for (int j = 1; j < items; ++j) v = Op::combine(v, acc[j]);
    v = ktune_block_reduce<Op, block, tree>(v, scratch);
    if (threadIdx.x == 0) partials[blockIdx.x] = v;
    if (passes == 2) return;
    // The last block to arrive combines every block's partial.
    __threadfence();
    if (threadIdx.x == 0) last = atomicAdd(ticket, 1u) == gridDim.x - 1;
    __syncthreads();
    if (!last) return;
    __threadfence();
    partial_count = gridDim.x;
  }
  Acc v = Op::identity();
  for (int i = threadIdx.x; i < partial_count; i += block)
    v = Op::combine(v, static_cast<volatile Acc*>(partials)[i]);
  v = ktune_block_reduce<Op, block, tree>(v, scratch);
  if (threadIdx.x == 0) {
    *out = ktune_io<typename Op::out_t, Acc>::store(Op::finalize(v, n));
    if (passes == 1) *ticket = 0;  // ready for the next launch on this workspace
  }
}
