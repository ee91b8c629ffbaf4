// tile_reduce.cuh - reductions over cooperative-groups tiles and blocks.
#pragma once

#include <cooperative_groups.h>

namespace coop {

namespace cg = cooperative_groups;

// Sum over the threads of a statically sized tile; every thread of the
// tile gets the total in lane 0 (other lanes: partial sums).
template <unsigned int TileSize, typename T>
__device__ T tile_sum(const cg::thread_block_tile<TileSize>& tile, T value)
{
#pragma unroll
    for (unsigned int offset = TileSize / 2; offset > 0; offset /= 2) {
        value += tile.shfl_down(value, offset);
    }
    return value;
}

// Sum over a whole block of BlockSize threads: tiles of 32 reduce with
// shuffles, tile leaders meet in shared memory, the first tile finishes.
// Thread 0 of the block returns the total.
template <int BlockSize, typename T>
__device__ T block_sum(const cg::thread_block& block, T value)
{
    static_assert(BlockSize % 32 == 0 && BlockSize / 32 <= 32, "block of 1..32 tiles of 32");
    __shared__ T tile_totals[BlockSize / 32];
    const cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    value = tile_sum(tile, value);
    if (tile.thread_rank() == 0) {
        tile_totals[block.thread_rank() / 32] = value;
    }
    block.sync();
    if (block.thread_rank() < 32) {
        value = block.thread_rank() < BlockSize / 32 ? tile_totals[block.thread_rank()] : T(0);
        value = tile_sum(tile, value);
    }
    block.sync();  // tile_totals may be reused by the caller's next call
    return value;
}

}  // namespace coop
