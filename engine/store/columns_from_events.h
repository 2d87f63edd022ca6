// The three block columns made from a store's events (store_events.h), for
// the readers that need each block (a query with lifetime filters, serve's
// window index, a row's detail): each free paired with its bucket's
// youngest live block, as the events were written, the ids in allocation
// order, the temporary bit where a free follows its own allocation. A pass
// over every event, with memory per live block while it runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "engine/store/store_columns.h"
#include "engine/store/store_events.h"

namespace heapql {

// The packed words the columns view.
struct PackedBlockColumns {
  std::vector<std::uint64_t> bucket, alloc_seq, free_order;
};

// Fills `out` from `columns.events` and points `columns`' bucket,
// alloc_seq and free_order at it. Throws Error when the events contradict
// themselves (a free of a bucket with no live block, damage).
void columns_from_events(std::size_t buckets, PackedBlockColumns& out, StoreColumns& columns);

}  // namespace heapql
