// @kernel  scan
// @entry   ktune_scan
// @compatible 03e494ef51fd8e96: 099dfd9c05a1e050
// @type    Op = operation
// @tune    block    = 128, 256, 512
// @tune    items    = 4, 8, 12, 16, 24
// @tune    vec      = 1, 2, 4
// @tune    exchange = direct, smem
// @tune    layout   = none, pad, xor
// @tune    algo     = shuffle, kogge, brent
// @tune    window   = 1, 8, 32
// @tune    order    = ticket, block
// @derive  tile = block * items
// @require items % vec == 0
// @require vec * elem_bytes <= 16
// @require align % vec == 0
// @require exchange == "smem" || layout == "none"
// @require exchange == "direct" || tile * max(elem_bytes, 4) <= 32768
// @require tile <= max(2 * n, 4096)
// @launch  block = (block, 1, 1)
// @launch  grid  = (ceil_div(n, tile), 1, 1)
// @default block=256 items=8 vec=1 exchange=direct layout=none algo=shuffle window=32 order=ticket
// @include common
// @include scan_ops
//
// y[i] = x[0] op ... op x[i] (inclusive) or x[0] op ... op x[i-1] (exclusive), in one pass
// with decoupled look-back (Merrill and Garland): tiles of block * items elements take
// their index in scheduling order (an atomic ticket), so every tile's predecessors are
// running or done. Each thread scans its `items` consecutive elements sequentially
// (loaded directly, vec-wide, or through a shared-memory exchange in `layout` from
// coalesced loads), the block scans the threads' totals (`algo`), and warp 0 finds the
// tile's prefix: `window` lanes read the flags of as many predecessors at once, each
// holding an aggregate (flag 1) or an inclusive prefix (flag 2), and combine back to the
// nearest inclusive one (ktune_scan_publish/wait: a 4-byte value and its flag are one
// 64-bit word). `order`: tiles in ticket order (an atomic, then a barrier, before the
// loads can start), or in block index order (the loads start at once; this relies on
// blocks being dispatched in index order, as CUB's scans do). The workspace (ticket and status words) is zeroed before each launch.
// Order of float additions: sequential within a thread, then the block scan's tree,
// then the look-back's combination of tile aggregates (which depends on timing, so the
// last bits of float sums may vary between runs; integer results never do).

template <class Op, int block, int items, int vec, int exchange, int layout, int algo, int window, int order>
__global__ void __launch_bounds__(block)
    ktune_scan(const typename Op::in_t* x, typename Op::out_t* y, long long n, int exclusive,
               typename Op::acc_t* aggregates, typename Op::acc_t* prefixes, unsigned long long* status,
               unsigned* ticket) {
  using Acc = typename Op::acc_t;
  constexpr int tile = block * items;
  constexpr int slots = exchange == exchange_smem ? ktune_scan_slots<layout>(tile) : 1;
  __shared__ Acc exch[slots];
  __shared__ Acc scratch[2 * block > 64 ? 2 * block : 64];
  __shared__ long long tile_index;
  __shared__ Acc tile_prefix;
  const int t = threadIdx.x;
  if (order == order_ticket) {
    if (t == 0) tile_index = atomicAdd(ticket, 1u);
    __syncthreads();
  }
  const long long index = order == order_ticket ? tile_index : static_cast<long long>(blockIdx.x);
  const long long base = index * tile;

  Acc v[items];
  ktune_scan_load<Op, block, items, vec, exchange, layout>(x + base, n - base, v, exch);

  // The thread's total, the block's exclusive scan of the totals.
  Acc total;
  const Acc before = ktune_block_exclusive_scan<Op, block, algo>(ktune_scan_total<Op, items>(v), scratch, total);

  // The tile's prefix: publish the aggregate, look back, publish the inclusive prefix.
  if (t < 32) {
    if (index == 0) {
      if (t == 0) {
        ktune_scan_publish(status, aggregates, prefixes, 0, 2, total);
        tile_prefix = Op::identity();
      }
    } else {
      if (t == 0) ktune_scan_publish(status, aggregates, prefixes, index, 1, total);
      Acc running = Op::identity();
      long long p = index - 1;
      for (;;) {
        const long long q = p - t;
        unsigned f = 0;
        Acc value = Op::identity();
        if (t < window && q >= 0) f = ktune_scan_wait(status, aggregates, prefixes, q, value);
        const unsigned inclusive = __ballot_sync(0xffffffffu, f == 2);
        const int stop = inclusive ? __ffs(inclusive) - 1 : 31;
        if (t > stop) value = Op::identity();
        // Lane l holds tile p - l: combine the window from its earliest tile on.
#pragma unroll
        for (int o = 1; o < 32; o <<= 1) {
          const Acc u = __shfl_down_sync(0xffffffffu, value, o);
          if (t + o < 32) value = Op::combine(u, value);
        }
        value = __shfl_sync(0xffffffffu, value, 0);
        running = Op::combine(value, running);
        if (inclusive) break;
        p -= window;
      }
      if (t == 0) {
        ktune_scan_publish(status, aggregates, prefixes, index, 2, Op::combine(running, total));
        tile_prefix = running;
      }
    }
  }
  __syncthreads();

  // Each element's result, from the tile's and the thread's prefixes.
  ktune_scan_thread<Op, items>(v, Op::combine(tile_prefix, before), exclusive);
  ktune_scan_store<Op, block, items, vec, exchange, layout>(y + base, n - base, v, exch);
}
