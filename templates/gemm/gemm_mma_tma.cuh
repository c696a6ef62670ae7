// The tma engine (sm_90a): wgmma fed by warp specialization. A producer warpgroup issues
// the TMA copies of whole tiles into the ring, the consumer warpgroups multiply them;
// each stage has a `full` and an `empty` mbarrier instead of block-wide barriers.
// persistent = 1 walks tiles and overlaps each tile's epilogue with the next one's
// copies; persistent = 2 (ping-pong) gives the two consumer warpgroups every other tile
// each, so one's epilogue overlaps the other's multiply; cluster = 2 multicasts B's
// tiles to a pair of blocks. Included by gemm_mma.cuh.

// persistent's epilogue: the accumulators to the tile of C at (tm0, tn0) while the
// producer fills the ring with the next tile's k-tiles, so each warp goes through its
// own piece of shared memory beside the ring, 32 columns of its 16 rows at a time
// (rows of 40 floats: the float2 writes and the 16-byte reads are conflict-free), and
// C is written by 8 lanes a row, 4 elements each, in one access; the old values of
// the next 32 columns are read while these are written.
template <class Block>
__device__ __forceinline__ void ktune_mma_store_staged(const Block& b, const typename Block::Acc& acc, int tm0,
                                                       int tn0) {
  using Out = typename Block::Out;
  constexpr int ld_w = 40, chunks = Block::bn / 32;
  const int lane = b.lane;
  float* const W = reinterpret_cast<float*>(b.smem + (b.staging - b.smem0)) + b.warp * 16 * ld_w;
  const bool vectors = b.ldc % 4 == 0 && reinterpret_cast<unsigned long long>(b.C) % (4 * sizeof(Out)) == 0;
  // This lane's element of C in pass `pass` over the columns of `chunk` of slab i,
  // and whether 4 from there are one aligned vector inside C.
  const auto at = [&](int i, int chunk, int pass, int& gm, int& gn) {
    gm = tm0 + b.row0 + i * Block::i_step + pass * 4 + lane / 8, gn = tn0 + chunk * 32 + lane % 8 * 4;
    return gm < b.m && vectors && gn + 4 <= b.n;
  };
  ktune_mma_run<Out, 4> old[2][4];
  const auto read_old = [&](int i, int chunk, ktune_mma_run<Out, 4>(&o)[4]) {
    if (b.beta == 0.f) return;
#pragma unroll
    for (int pass = 0; pass < 4; ++pass) {
      int gm, gn;
      if (at(i, chunk, pass, gm, gn)) o[pass].load(b.C + gm * b.ldc + gn);
    }
  };
#pragma unroll
  for (int i = 0; i < Block::mi_count; ++i)
#pragma unroll
    for (int chunk = 0; chunk < chunks; ++chunk) {
      if (chunk == 0) read_old(i, 0, old[0]);
      if (chunk + 1 < chunks) read_old(i, chunk + 1, old[(chunk + 1) % 2]);
      __syncwarp();  // the last chunk's reads are done
#pragma unroll
      for (int jj = 0; jj < 4; ++jj)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int j = chunk * 4 + jj;
          *reinterpret_cast<ktune_vec<float, 2>*>(&W[(lane / 4 + 8 * h) * ld_w + jj * 8 + lane % 4 * 2]) =
              ktune_vec<float, 2>{{acc[i][j][2 * h], acc[i][j][2 * h + 1]}};
        }
      __syncwarp();
#pragma unroll
      for (int pass = 0; pass < 4; ++pass) {
        int gm, gn;
        const bool vector = at(i, chunk, pass, gm, gn);
        if (gm >= b.m || gn >= b.n) continue;
        const ktune_vec<float, 4> x =
            *reinterpret_cast<const ktune_vec<float, 4>*>(&W[(pass * 4 + lane / 8) * ld_w + lane % 8 * 4]);
        if (vector) {
          old[chunk % 2][pass].store(b.C + gm * b.ldc + gn, x.v, b.alpha, b.beta);
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (gn + e < b.n) b.store(gm, gn + e, x.v[e]);
        }
      }
    }
}

// A persistent consumer's end of unit u (gemm_mma_streamk): a partial tile to block
// me's slot of the workspace, or the tile to C at (tm0, tn0), a final unit's after
// adding the other chunks' partials. thread, bar: the unit's thread and named barrier.
template <int threads, class Block>
__device__ __forceinline__ void ktune_mma_finish_unit(const Block& b, typename Block::Acc& acc, const ktune_mma_unit& u,
                                                      int me, int thread, int bar, int tm0, int tn0) {
  constexpr int slot_floats = Block::bm * Block::bn;
  if (u.role == unit_partial)
    return ktune_mma_put_partial<typename Block::Acc, threads>(acc, b.work + (long long)me * slot_floats,
                                                               b.flags + u.tail, thread, bar);
  if (u.role == unit_final)
    ktune_mma_add_partials<typename Block::Acc, threads>(acc, b.work, b.flags + u.tail, u.first, u.step, u.last,
                                                         thread, bar, slot_floats);
  ktune_mma_store_staged(b, acc, tm0, tn0);
}

// Returns true when this thread is done: a producer, or a consumer of a persistent
// block (which stored its tiles itself); the others go on to the shared epilogue.
template <class Block>
__device__ __forceinline__ bool ktune_mma_multiply_tma(Block& b, typename Block::Acc& acc, const ktune_tensor_map& tma_a,
                                                       const ktune_tensor_map& tma_b) {
  constexpr int stages = Block::stages, cluster = Block::cluster, bm = Block::bm, bn = Block::bn;
  constexpr bool persistent = Block::persistent != 0, pingpong = Block::persistent == 2;
  // The warps that read a stage: every consumer warp, or (ping-pong) one warpgroup's.
  constexpr int readers = pingpong ? 4 : Block::consumers / 32;
  using TileA = typename Block::TileA;
  using TileB = typename Block::TileB;
  // full(s), empty(s): the mbarriers of stage s.
  const auto full = [&](int s) { return b.bars + 8u * s; };
  const auto empty = [&](int s) { return b.bars + 8u * (stages + s); };
  // Ping-pong: warpgroup w may start multiplying its next tile (the other one's
  // multiply of the tile before is issued; one arrival per warp).
  const auto turn = [&](int w) { return b.bars + 16u * stages + 8u * w; };
  if (b.tid == 0) {
#pragma unroll
    for (int s = 0; s < stages; ++s)  // empty: one arrival per reading warp of each block of the cluster
      ktune_mbar_init(full(s), 1), ktune_mbar_init(empty(s), cluster * readers);
    if constexpr (pingpong) ktune_mbar_init(turn(0), 4), ktune_mbar_init(turn(1), 4);
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  }
  if constexpr (cluster > 1) ktune_cluster_arrive(), ktune_cluster_wait();  // the cluster's mbarriers are ready
  else __syncthreads();
  // The tiles of C this block computes: its own, or (persistent) the schedule's units
  // (gemm_mma_streamk: every gridDim.x-th tile whole, and with streamk a chunk of k of
  // a tile the last round leaves over). A cluster's blocks take cluster x 1
  // neighbouring tiles, which share B's, in the order of (cluster * bm) x bn tiles;
  // block `rank` the rank-th. g counts the k-tiles through the ring over all units:
  // stage g % stages, phase g / stages.
  const int rank = blockIdx.x % cluster;
  const int tiles_m = (b.m + cluster * bm - 1) / (cluster * bm), tiles_n = (b.n + bn - 1) / bn;
  const int me = blockIdx.x / cluster;
  const ktune_mma_schedule schedule(Block::streamk, (long long)tiles_m * tiles_n, gridDim.x / cluster, b.tiles);
  const int units = ktune_uniform(persistent ? schedule.count(me) : 1);  // (every thread)
  const auto unit = [&](int j) {
    return persistent ? schedule.unit(me, j) : ktune_mma_unit::whole((long long)blockIdx.y * gridDim.x / cluster + me, b.tiles);
  };
  const auto origin = [&](long long index, int& tm0, int& tn0) {
    ktune_gemm_tile_origin<cluster * bm, bn>(index, b.group, tiles_m, tiles_n, tm0, tn0);
    tm0 += rank * bm;
  };
  if constexpr (!persistent) origin(unit(0).tile, b.m0, b.n0);
  // Registers: the producers need few; 2 consumer warpgroups (384 threads, 168 a
  // thread at launch) take 232 each.
  constexpr bool rebalance = Block::warps_n == 2;
  if (b.tid < Block::producers) {
    if constexpr (rebalance) asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
    if (b.tid == 0) {
      int g = 0;
      for (int j = 0; j < units; ++j) {
        const ktune_mma_unit u = unit(j);
        int tm0, tn0;
        origin(u.tile, tm0, tn0);
        for (int t = u.kt0; t < u.kt1; ++t, ++g) {
          const int s = g % stages, k0 = b.k_begin + t * Block::bk;
          if (g >= stages) ktune_mbar_wait(empty(s), (g / stages + 1) % 2);  // k-tile g - stages consumed
          ktune_mbar_expect(full(s), Block::ring_bytes / stages);
          TileA::tma_load(b.a_stage(g), tma_a, tm0, k0, full(s));
          TileB::template tma_load<cluster>(b.b_stage(g), tma_b, tn0, k0, full(s), rank);
        }
      }
    }
    if constexpr (cluster > 1) ktune_cluster_arrive(), ktune_cluster_wait();
    return true;  // the consumers' epilogue needs none of this warpgroup
  }
  if constexpr (rebalance) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
  // Ping-pong: warpgroup wg takes the block's units wg, wg + 2, ..., their k-tiles
  // where the producer put them in the ring (past the other warpgroup's units). The
  // two take turns: one starts multiplying a unit only once the other has issued its
  // multiply of the unit before (so one multiplies while the other stores), which also
  // keeps every stage's `full` mbarrier within one phase of the k-tile a warpgroup waits
  // for (a parity wait cannot tell a phase from the one two before).
  // The warpgroup's index and the units' bounds known uniform (gemm_mma_streamk): the
  // main loop's ring positions and wgmma descriptors stay in uniform registers.
  const int wg = ktune_uniform(b.warp / 4), lane = b.lane;
  b.row0 = (pingpong ? 0 : wg * Block::group_rows) + b.warp % 4 * 16, b.col0 = 0;
  // This warp's wgmma reading stage s completed: the stage is free in this block, and
  // (cluster) for the producers that copy B's slices to every block.
  const auto release = [&](int s) {
    if constexpr (cluster == 1) {
      if (lane == 0) ktune_mbar_arrive(empty(s));
    } else if (lane < cluster) {
      ktune_mbar_arrive_cluster(empty(s), lane);  // lane r: block r's
    }
  };
  // Stream-K's partials: the unit's threads (a warpgroup in ping-pong, else every
  // consumer) and their named barrier (0 and 1 are the block's and the epilogue's).
  constexpr int unit_threads = pingpong ? 128 : Block::consumers;
  const int unit_thread = pingpong ? b.ctid % 128 : b.ctid, unit_bar = 2 + (pingpong ? wg : 0);
  for (int j = pingpong ? wg : 0; j < units; j += pingpong ? 2 : 1) {
    const ktune_mma_unit u = ktune_uniform(unit(j));
    int g = j * b.tiles;  // where the unit starts in the ring: the units before it are whole tiles
    const int mine = pingpong ? j / 2 : j;  // this warpgroup's units so far
    if constexpr (persistent) Block::clear(acc);
    // Unit `mine` of warpgroup 1 waits for warpgroup 0's unit `mine` (its arrival number
    // mine), unit `mine` of warpgroup 0 for warpgroup 1's unit mine - 1.
    if constexpr (pingpong)
      if (wg == 1 || mine > 0) ktune_mbar_wait(turn(wg), (mine - (wg == 0)) % 2);
    for (int t = u.kt0; t < u.kt1; ++t, ++g) {
      ktune_mbar_wait(full(g % stages), (g / stages) % 2);
      ktune_wgmma_tile<typename Block::In, bn, Block::bk, Block::group_rows, Block::ta, Block::tb>(
          acc, b.a_stage(g), b.b_stage(g), pingpong ? 0 : wg);
      asm volatile("wgmma.wait_group.sync.aligned 1;\n" ::: "memory");
      if (t > u.kt0) release((g - 1) % stages);  // this warp's wgmma of k-tile g - 1 completed
    }
    if constexpr (pingpong)
      if (lane == 0) ktune_mbar_arrive(turn(1 - wg));  // the other warpgroup's turn to multiply
    if constexpr (persistent) {
      Block::wait_for_wgmma(acc);
      if (u.kt1 > u.kt0) release((g - 1) % stages);
      int tm0, tn0;
      origin(u.tile, tm0, tn0);
      ktune_mma_finish_unit<unit_threads>(b, acc, u, me, unit_thread, unit_bar, tm0, tn0);
    }
  }
  // A block leaves only once no other block of its cluster can arrive on its mbarriers.
  if constexpr (cluster > 1) ktune_cluster_arrive();
  if constexpr (persistent) {
    if constexpr (cluster > 1) ktune_cluster_wait();
    return true;
  }
  return false;
}
