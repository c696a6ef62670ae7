// @kernel  transpose
// @entry   ktune_transpose
// @compatible d5824d49591895d3: 9b3f4f485de4e608, 2dbf0a8301ed02be, 0589caa8ee48b318, 4ae03222e98efb02, 2bc7de7035e7f986, 3cca67274f03e303, b7a8ef57159f25ce
// @type    T = element
// @tune    tile_m  = 8, 16, 32, 64, 128, 256, 192
// @tune    tile_n  = 8, 16, 32, 64, 128, 256
// @tune    block_x = 4, 8, 16, 32, 64
// @tune    block_y = 2, 4, 8, 16, 32
// @tune    vec     = 1, 2, 4, 8, 16
// @tune    layout  = direct, none, pad, xor, shift
// @tune    realign = 0, 1
// @tune    copy    = 0, 1
// @tune    wide    = 0, 1, 2, 3
// @tune    order   = src, dst
// @tune    words   = 0, 1
// @derive  design     = copy == 1 ? "copy" : wide == 2 ? "bytes" : wide == 3 ? "bytes_async" : layout == "direct" ? "direct" : "staged"
// @derive  threads    = block_x * block_y
// @derive  tall_dst   = tile_m >= 192 && (tile_n == 32 || tile_n == 64) && block_x == 32 && block_y <= 8 && (elem_bytes == 2 || elem_bytes == 4) && vec == 1 && wide == 0 && order == "dst"
// @derive  old256     = elem_bytes == 1 && vec >= 8 && (layout == "xor" || layout == "shift") && realign == 0 && copy == 0 && wide == 0 || tall_dst
// @derive  wider      = threads < 64 || (tile_m == 256 || tile_n == 256) && !old256 || tile_m * tile_n * elem_bytes > threads * max(256, vec * vec * elem_bytes)
// @derive  smem_bytes = layout == "direct" ? 0 : wide == 2 ? tile_n * 256 : wide == 3 ? max(tile_n * 256, (tile_m + 16) * (tile_n + 16)) : tile_m * (tile_n + (layout == "pad" ? vec : 0)) * elem_bytes
// @require (threads >= 64 || threads == 32 && tile_m * tile_n >= 2048) && threads <= max_threads_per_block
// @require (tile_m <= 128 || tile_m == 192) && tile_n <= 128 || old256 || (tile_m == 256 || tile_n == 256) && tile_m * tile_n <= 16384
// @require !wider || block_x == min(32, min(tile_m, tile_n) / vec) && layout == "xor" && realign == 0 && wide == 0 && copy == 0 && order == "src" && words == 0
// @require vec * elem_bytes <= 16
// @require vec == 1 || align % vec == 0 || realign == 1 || copy == 1
// @require realign == 0 || align < vec && vec * elem_bytes >= 8 && layout != "direct" && (elem_bytes > 1 || align > 1)
// @require realign == 0 || block_x * vec == tile_m && block_x <= 32
// @require tile_m % vec == 0 && tile_n % vec == 0
// @require vec * elem_bytes >= 4 || align * elem_bytes < 4 || layout == "direct" || tile_m == 32 && tile_n == 32 && block_x == 32 && block_y == 8 || vec == 1 && wide == 0 && rows * cols * elem_bytes <= 8388608
// @require copy == 0 || copy_align > 0 && copy_align % vec == 0 && layout == "direct" && realign == 0 && tile_n == 128 && block_x == 32 && tile_m * tile_n % (threads * vec) == 0
// @require copy == 1 || layout == "direct" || (tile_n / vec) % block_x == 0 && tile_m % block_y == 0
// @require copy == 1 || layout == "direct" || (tile_m / vec) % block_x == 0 && (tile_n / vec) % block_y == 0
// @require copy == 1 || layout != "direct" || (tile_n / vec) % block_x == 0 && (tile_m / vec) % block_y == 0
// @require layout != "shift" && layout != "xor" || tile_n / vec >= 2
// @require wide != 1 || vec == 1 && align * elem_bytes < 16 && realign == 0 && copy == 0 && (layout == "pad" || layout == "xor") && tile_n * elem_bytes % 16 == 0 && tile_m * tile_n * elem_bytes % (threads * 16) == 0 && tile_m * tile_n * elem_bytes <= threads * 64
// @require tile_m != 192 || wide == 3 || tall_dst
// @require wide < 2 || elem_bytes == 1 && align < 16 && (tile_m == 128 || tile_m == 192) && vec == 1 && layout == "xor" && realign == 0 && copy == 0 && block_x == 32 && tile_n % 16 == 0 && tile_n <= threads && threads <= 4 * tile_n && rows > tile_m
// @require wide != 3 || threads >= 256
// @require order == "src" || copy == 0 && layout != "direct" && rows > tile_m && cols > tile_n
// @require order == "src" || (tile_m == 128 || tile_m >= 192) && align * elem_bytes < 16 || tile_m >= 64 && tile_m <= 128 && layout == "pad" && align * elem_bytes >= 16 && cols >= 16 * rows
// @require words == 0 || elem_bytes == 1 && vec == 8 && align % 8 == 0 && (layout == "xor" || layout == "shift")
// @require tile_m * tile_n <= threads * vec * max(64, vec)
// @require tile_m * tile_n * elem_bytes <= threads * max(512, vec * vec * elem_bytes)
// @require smem_bytes <= max_smem_per_block
// @launch  block = (block_x, block_y, 1)
// @launch  grid  = (copy == 1 ? ceil_div(rows * cols, tile_m * tile_n) : ceil_div(rows, tile_m) * ceil_div(cols, tile_n), 1, 1)
// @launch  smem  = smem_bytes
// The untuned config: the classic 32x32 tile, 32x8 threads, padded shared memory; valid
// for any problem and alignment, within a small factor of the best.
// @default tile_m=32 tile_n=32 block_x=32 block_y=8 vec=1 layout=pad realign=0 copy=0 wide=0 order=src words=0
//
// A tunable added later lists the old behaviour first, so older search logs replay.
// The measurements behind each choice below are in bench/results/transpose.md.
// Accesses narrower than 4 bytes where pointers and pitches allow 4 (1- and 2-byte
// elements, aligned) leave a warp's request under 128 bytes; such configs never won and
// cost half the compile time of those spaces, so only the naive designs (direct) and the
// classic 32x32 tile with 32x8 threads keep them; and every vec 1 tile at problems of 8 MiB
// or less, where latency rather than bandwidth sets the time and a vec 1 tile won (issue
// 72's design 3).
// Why the bounds: blocks under 64 threads cap occupancy at half on sm_90 (32 blocks per
// SM); more than 64 accesses or 256 bytes in flight per thread (or one vec x vec block,
// when that is larger) spill or starve occupancy without adding memory parallelism.
// (Not 16 and 128: Triton's autotuned winners move 32x128 f32 tiles with 64 threads, and
// 128x32 ones at odd pitches with 128 threads, one element per access.)
// Beyond those bounds (`wider`: one warp, 256-element sides, 256-512 bytes a thread) the
// space holds the tiles and warp counts a Triton user's autotune space reaches (issue 72:
// tiles 16-256 a side of up to 16384 elements, 1-16 warps; one warp only for tiles of
// 2048 elements or more), each in one block shape (32 lanes along the tile, or its
// shorter side) with the XOR tile, so that an exhaustive search never loses for lack of a
// tile. Not reachable in this design: lanes along a side shorter than vec x 32 lanes
// when blocks have more threads than that side's rows times 32 (16 x 256 with 16 warps),
// and more than 512 bytes a thread (f32 128 x 128 on 2 warps, four f64 tiles).
// Tile sides of 256 are for 1-byte elements with 8- or 16-byte accesses and a swizzled
// tile only: 256-byte tile rows (as 64 f32 elements have) help aligned bytes, and the
// few configs they add keep the search short. (256-row tiles in dst order for 2- and
// 4-byte elements at odd pitches: see order below.)
// Shared memory is dynamic, so tiles may use more than 48 KB where the device allows. The
// space keeps every design of shared/TECHNIQUES.md: naive 8x8 (direct, vec 1, tile =
// block), register tiles (direct, vec 2/4), 32x32 smem with 32x8 threads, padding, XOR,
// shift, float4 + smem.
//
// dst (cols x rows, pitch ld_dst) = transpose of src (rows x cols, pitch ld_src).
// Transpose moves bits, so T is an unsigned integer of the element's size.
//
// Every variant moves vec x vec register blocks: a thread reads vec rows of vec
// consecutive elements (one vector access each), transposes them in registers and
// writes vec rows of vec elements of dst. `direct` does that straight from global
// memory (no shared memory, no barrier); the other layouts stage a tile_m x tile_n
// tile in shared memory so that both the global reads and the global writes are
// row-contiguous across a warp, and the vec x vec block is read from shared memory
// with vector accesses too. The layouts only differ in where element group
// (r, g) -- row r, vec-wide column group g -- lives in shared memory:
//   none : r * groups + g                      (column reads conflict)
//   pad  : r * (groups + 1) + g                (one extra vector per row)
//   xor  : r * groups + (g ^ (r / vec) % groups)   (CuTe-style swizzle, no space)
//   shift: r * groups + (g + r / vec) % groups     (rotation swizzle, no space)
// Swizzling on r / vec instead of r matters: the lanes of a warp that read a
// vec x vec block sit vec rows apart, so the swizzle must vary with the block row.
// The index functions are in transpose_tile.cuh; their host twin (transpose_model.cpp)
// counts bank conflicts.

// order = dst has blocks take tiles down src's columns, so the blocks in flight write
// whole dst rows one after another, as a copy does, and read src rows piecewise. At odd
// pitches every tile's dst rows start and end in partial sectors, and dst order won
// there for most element sizes (the tuner chooses). Only tiles of 128 dst elements a row
// (tile_m = 128, shared memory; and wide = 3's 192) have it: the other dst configs never
// won by more than noise, and the space grows by a fifth instead of doubling. Aligned
// shapes lost with it or did not change, except those whose src rows are 16 or more
// times longer than its columns (512x65536: a grid row of 1024 tiles, the blocks in
// flight take one or two of them and write 256 bytes of each 2 KB dst row; in dst order
// they write whole dst rows). There only `pad` tiles of 64-128 rows have it (the other
// layouts' dst configs were slower), which keeps that space small. A problem of one
// tile row or column has one order.
// At odd pitches, 2- and 4-byte elements also have tiles of 192 and 256 rows in dst order
// (tall_dst: 32 or 64 columns, 32 x 4 or 32 x 8 threads, vec 1, no wide; the order
// requirements add the rest: 24 configs): each tile's dst row pieces are 384-1024 bytes
// instead of 256-512, so fewer of their sectors are partial. 8-byte elements were slower
// with them and do not have them.

// The designs, a file each (fragments included here, in this order), named by `design`
// above: copy (transpose_copy), direct (transpose_direct), staged (transpose_staged: the
// other layouts, with realign, wide = 1 and words = 1), bytes (transpose_bytes) and
// bytes_async (transpose_bytes_async); transpose_tile has what they share. The entries
// below pick one. design is derived from copy, wide and layout, the tunables that chose
// the designs before it was named, so stored configs keep their keys.
// @include transpose_tile
// @include transpose_copy
// @include transpose_direct
// @include transpose_staged
// @include transpose_bytes
// @include transpose_bytes_async

// Three kernels of one name, told apart by wide and words: wide = 3 asks for 1536 threads
// an SM in its launch bounds, words = 1 for as many blocks as its shared memory lets an SM
// hold, and a bound of (threads, 1) is not the same as none (wide = 2 took 69 registers
// with it, 48 without).
template <bool c, typename R = void> struct KtuneIf {};
template <typename R> struct KtuneIf<true, R> { using type = R; };

// Blocks of `smem` bytes and `threads` threads an SM holds by shared memory (228 KB, 1 KB
// of it reserved a block; 164 KB on sm_80/87, 100 KB on sm_86/89, others as sm_90), at 64
// registers a thread or more (a vec x vec byte block in and out is 32 of them). Configs
// that need more spill, and the tuner rejects them (10 of the 70 at aligned u8).
template <int smem, int threads>
constexpr int ktune_resident_blocks() {
#if defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 860 || __CUDA_ARCH__ == 890)
  constexpr int sm_smem = 100 * 1024;
#elif defined(__CUDA_ARCH__) && (__CUDA_ARCH__ == 800 || __CUDA_ARCH__ == 870)
  constexpr int sm_smem = 164 * 1024;
#else
  constexpr int sm_smem = 228 * 1024;
#endif
  constexpr int by_smem = sm_smem / (smem + 1024), by_registers = 65536 / (threads * 64);
  return by_smem < by_registers ? (by_smem > 0 ? by_smem : 1) : by_registers;
}

template <typename T, int tile_m, int tile_n, int block_x, int block_y, int vec, int layout, int realign, int copy,
          int wide, int order, int words>
__global__ typename KtuneIf<wide == 3>::type __launch_bounds__(block_x * block_y, 1536 / (block_x * block_y))
ktune_transpose(T* __restrict__ dst, const T* __restrict__ src, int rows, int cols,
                long long ld_dst, long long ld_src) {
  ktune_transpose_bytes_async<tile_m, tile_n, block_x * block_y, order>(dst, src, rows, cols, ld_dst, ld_src);
}

template <typename T, int tile_m, int tile_n, int block_x, int block_y, int vec, int layout, int realign, int copy,
          int wide, int order, int words>
__global__ typename KtuneIf<words == 1>::type __launch_bounds__(
    block_x * block_y, ktune_resident_blocks<tile_m * tile_n * static_cast<int>(sizeof(T)), block_x * block_y>())
ktune_transpose(T* __restrict__ dst, const T* __restrict__ src, int rows, int cols,
                long long ld_dst, long long ld_src) {
  ktune_transpose_staged<T, tile_m, tile_n, block_x, block_y, vec, layout, 0, 0, order, 1>(dst, src, rows, cols,
                                                                                          ld_dst, ld_src);
}

template <typename T, int tile_m, int tile_n, int block_x, int block_y, int vec, int layout, int realign, int copy,
          int wide, int order, int words>
__global__ typename KtuneIf<wide != 3 && words == 0>::type __launch_bounds__(block_x * block_y)
ktune_transpose(T* __restrict__ dst, const T* __restrict__ src, int rows, int cols,
                long long ld_dst, long long ld_src) {
  if constexpr (copy)
    ktune_copy<T, tile_m * tile_n, block_x * block_y, vec>(dst, src, rows * cols);
  else if constexpr (wide == 2)  // (1-byte elements only)
    ktune_transpose_bytes<tile_n, block_x * block_y, order>(dst, src, rows, cols, ld_dst, ld_src);
  else if constexpr (layout == layout_direct)
    ktune_transpose_direct<T, tile_m, tile_n, block_x, block_y, vec, order>(dst, src, rows, cols, ld_dst, ld_src);
  else
    ktune_transpose_staged<T, tile_m, tile_n, block_x, block_y, vec, layout, realign, wide, order, 0>(
        dst, src, rows, cols, ld_dst, ld_src);
}
