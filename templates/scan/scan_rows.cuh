// @kernel  scan_rows
// @entry   ktune_scan_rows
// @compatible c77105886c6aa5d9: 0959e158dcfa174b
// @type    Op = operation
// @tune    block    = 64, 128, 256, 512
// @tune    items    = 2, 4, 8, 16
// @tune    vec      = 1, 2, 4
// @tune    exchange = direct, smem
// @tune    layout   = none, pad, xor
// @tune    algo     = shuffle, kogge, brent
// @derive  tile = block * items
// @require items % vec == 0
// @require vec * elem_bytes <= 16
// @require align % vec == 0
// @require exchange == "smem" || layout == "none"
// @require exchange == "direct" || tile * max(elem_bytes, 4) <= 32768
// @require tile <= max(2 * cols, 1024)
// @launch  block = (block, 1, 1)
// @launch  grid  = (rows, 1, 1)
// @default block=128 items=4 vec=1 exchange=direct layout=none algo=shuffle
// @include common
// @include scan_ops
//
// Each row of a rows x cols matrix (pitches ld_x, ld_y) scanned on its own, as
// torch.cumsum(x, dim=-1): one block a row, over the row's tiles of block * items
// elements in order, carrying the prefix from tile to tile (no look-back: the block owns
// the row). Loads, the thread's sequential scan and the block scan are the whole-array
// scan's (scan.cuh); so is the order of float additions, without the chain of tiles'
// aggregates.

template <class Op, int block, int items, int vec, int exchange, int layout, int algo>
__global__ void __launch_bounds__(block)
    ktune_scan_rows(const typename Op::in_t* x, typename Op::out_t* y, int cols, long long ld_x, long long ld_y,
                    int exclusive) {
  using Acc = typename Op::acc_t;
  constexpr int tile = block * items;
  constexpr int slots = exchange == exchange_smem ? ktune_scan_slots<layout>(tile) : 1;
  __shared__ Acc exch[slots];
  __shared__ Acc scratch[2 * block > 64 ? 2 * block : 64];
  const long long row = blockIdx.x;
  const typename Op::in_t* in = x + row * ld_x;
  typename Op::out_t* out = y + row * ld_y;
  Acc carry = Op::identity();
  for (int base = 0; base < cols; base += tile) {
    Acc v[items];
    ktune_scan_load<Op, block, items, vec, exchange, layout>(in + base, cols - base, v, exch);
    Acc total;
    const Acc before = ktune_block_exclusive_scan<Op, block, algo>(ktune_scan_total<Op, items>(v), scratch, total);
    ktune_scan_thread<Op, items>(v, Op::combine(carry, before), exclusive);
    ktune_scan_store<Op, block, items, vec, exchange, layout>(out + base, cols - base, v, exch);
    carry = Op::combine(carry, total);
    __syncthreads();  // exch and scratch are reused by the next tile
  }
}
