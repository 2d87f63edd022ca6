#include "engine/store/columns_from_events.h"

#include "engine/error.h"
#include "engine/store/live_block_stacks.h"
#include "engine/store/packed_column_writer.h"

namespace heapql {

void columns_from_events(std::size_t buckets, PackedBlockColumns& out, StoreColumns& columns) {
  const StoreEvents& events = columns.events;
  using Writer = PackedColumnWriter<std::vector<std::uint64_t>>;
  Writer bucket(out.bucket, 0), alloc_seq(out.alloc_seq, 0), free_order(out.free_order, StoreColumns::kFreeRotation);
  LiveBlockStacks live(buckets);
  constexpr std::uint32_t kNone = LiveBlockStacks::kNone;
  std::uint32_t next_id = 0;
  std::uint32_t just_allocated = kNone;  // the block the event before allocated
  FrameDecoder decoder;
  std::vector<std::uint32_t> words;
  for (std::size_t k = 0; k < events.chunk_count(); ++k) {
    events.decode(k, decoder, words, buckets);
    auto seq = static_cast<std::uint32_t>(events.first_event(k));
    for (const std::uint32_t w : words) {
      const std::uint32_t b = w >> 1;
      if ((w & 1) == 0) {
        live.push(b, next_id, seq);
        bucket.push_back(b);
        alloc_seq.push_back(seq);
        just_allocated = next_id++;
      } else {
        const std::uint32_t id = live.pop(b).id;
        free_order.push_back(id | (id == just_allocated ? StoreColumns::kTemporaryBit : 0u));
        just_allocated = kNone;
      }
      ++seq;
    }
  }
  columns.bucket = finished_column(bucket, out.bucket, 0);
  columns.alloc_seq = finished_column(alloc_seq, out.alloc_seq, 0);
  columns.free_order = finished_column(free_order, out.free_order, StoreColumns::kFreeRotation);
}

}  // namespace heapql
