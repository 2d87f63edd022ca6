// What a store's block facts would weigh written as the trace's own events,
// and what a windowed replay from them would cost (docs/store-format.md,
// "The block facts as events: measured, not built"). Not run by ctest; run
// build/bench/heapql_lifo_events_probe STORE [--window-ms A B] by hand.
//
// On a store whose blocks are paired by bucket (block_identity bucket-lifo,
// heaptrack's interpreted files), a free names no block: it frees the
// youngest live block of its bucket. So the facts can be the trace's events
// themselves (a bit each: allocation or free; a bucket each), which zstd codes
// about as well as it codes the trace, where the packed block columns code a
// block's id. The probe checks that claim on the store (how many frees are
// not their bucket's youngest block, how many temporary bits are not "the next
// event"), packs the events in zstd chunks, lists the blocks alive (by bucket,
// youngest on top) at a spacing, and replays a window from the checkpoint
// before it as a LIFO stack per bucket: its AIFO and AOFI blocks and bytes,
// to set beside `heapql query STORE --window ... --impacting AIFO,AOFI`.
#include <zstd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/query/aggregator.h"
#include "engine/report/reports.h"
#include "engine/store_file/store_reader.h"
#include "engine/util/prefetch_hint.h"

namespace {

using heapql::StoreColumns;

struct Options {
  std::string store;
  std::int64_t window_from_ms = -1;
  std::int64_t window_to_ms = -1;
  std::uint32_t chunk_events = 1u << 18;
  std::uint32_t checkpoint_events = 1u << 21;
  int level = 3;
  bool interleaved = false;
  int rounds = 3;  // the window replayed this many times, each timed  // one u32 an event (bucket * 2 + allocation bit) in place of the three streams
};

void put_varint(std::vector<std::uint8_t>& out, std::uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<std::uint8_t>(v | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<std::uint8_t>(v));
}

std::uint64_t get_varint(const std::uint8_t*& p) {
  std::uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    const std::uint8_t b = *p++;
    v |= std::uint64_t{b & 0x7fu} << shift;
    if (b < 0x80) return v;
  }
}

std::vector<std::uint8_t> zstd_pack(const std::vector<std::uint8_t>& raw, int level) {
  std::vector<std::uint8_t> out(ZSTD_compressBound(raw.size()));
  const std::size_t n = ZSTD_compress(out.data(), out.size(), raw.data(), raw.size(), level);
  if (ZSTD_isError(n)) throw heapql::Error(std::string("zstd: ") + ZSTD_getErrorName(n));
  out.resize(n);
  return out;
}

// One chunk of events, as stored: the kinds' bits, then the allocations'
// buckets, then the frees' buckets (u32 each, little-endian), zstd-coded.
struct EventChunk {
  std::uint64_t first_seq = 0;
  std::uint32_t events = 0;
  std::uint32_t allocs = 0;
  std::vector<std::uint8_t> packed;
};

// The blocks alive before `seq`: per bucket with any, its bucket (a delta),
// their count and their allocations' sequence numbers (deltas, oldest first).
struct Checkpoint {
  std::uint64_t seq = 0;
  std::uint64_t live = 0;
  std::vector<std::uint8_t> packed;
  std::vector<std::uint8_t> counts;  // the live blocks' count per bucket alone (bucket delta, count), zstd-coded
};

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

// A bucket's replay state: its youngest live block (a node) and the
// window's counts, together so that one fetch serves an event.
struct BucketState {
  std::uint32_t top = UINT32_MAX;
  std::uint32_t aifo = 0;
  std::uint32_t aofi = 0;
  std::uint32_t unused = 0;
};
struct Node {
  std::uint32_t alloc_seq;
  std::uint32_t below;
};

class LifoReplay {
 public:
  explicit LifoReplay(std::size_t buckets) : state_(buckets) {}

  void push(std::uint32_t bucket, std::uint32_t seq) {
    std::uint32_t n;
    if (!spare_.empty()) {
      n = spare_.back();
      spare_.pop_back();
    } else {
      n = static_cast<std::uint32_t>(nodes_.size());
      nodes_.push_back({});
    }
    nodes_[n] = {seq, state_[bucket].top};
    state_[bucket].top = n;
  }
  // The bucket's youngest block's allocation, taken off.
  std::uint32_t pop(std::uint32_t bucket) {
    const std::uint32_t n = state_[bucket].top;
    if (n == UINT32_MAX) throw heapql::Error("a free of a bucket with no live block");
    state_[bucket].top = nodes_[n].below;
    spare_.push_back(n);
    return nodes_[n].alloc_seq;
  }
  void prefetch(std::uint32_t bucket) const { heapql::prefetch_hint(&state_[bucket]); }
  BucketState& state(std::uint32_t bucket) { return state_[bucket]; }
  std::size_t buckets() const { return state_.size(); }

 private:
  std::vector<BucketState> state_;
  std::vector<Node> nodes_;
  std::vector<std::uint32_t> spare_;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--window-ms" && i + 2 < argc) {
      o.window_from_ms = std::atoll(argv[++i]);
      o.window_to_ms = std::atoll(argv[++i]);
    } else if (a == "--chunk-events" && i + 1 < argc) {
      o.chunk_events = static_cast<std::uint32_t>(std::atoll(argv[++i]));
    } else if (a == "--checkpoint-events" && i + 1 < argc) {
      o.checkpoint_events = static_cast<std::uint32_t>(std::atoll(argv[++i]));
    } else if (a == "--rounds" && i + 1 < argc) {
      o.rounds = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--interleaved") {
      o.interleaved = true;
    } else if (a == "--level" && i + 1 < argc) {
      o.level = std::atoi(argv[++i]);
    } else if (o.store.empty() && !a.starts_with("--")) {
      o.store = a;
    } else {
      throw heapql::Error("usage: heapql_lifo_events_probe STORE [--window-ms A B] [--chunk-events N] "
                          "[--checkpoint-events N] [--level L] [--interleaved] [--rounds N]");
    }
  }
  if (o.store.empty()) throw heapql::Error("no store named");
  if (o.chunk_events == 0 || o.checkpoint_events % o.chunk_events != 0) {
    throw heapql::Error("--checkpoint-events must be a multiple of --chunk-events");
  }
  return o;
}

// The first event at or after `ns` (the clock changes only where listed).
std::uint64_t first_event_at(const StoreColumns& c, std::int64_t ns) {
  for (const auto& change : c.time_changes) {
    if (change.ns >= ns) return change.first_seq;
  }
  return c.event_count;
}

std::vector<std::uint8_t> unpack(const std::vector<std::uint8_t>& packed) {
  std::vector<std::uint8_t> raw(ZSTD_getFrameContentSize(packed.data(), packed.size()));
  const std::size_t n = ZSTD_decompress(raw.data(), raw.size(), packed.data(), packed.size());
  if (ZSTD_isError(n) || n != raw.size()) throw heapql::Error("zstd decode failed");
  return raw;
}

// A chunk's words (bucket << 1, | 1 for a free), as on_bucket_run takes them.
void decode_words(const EventChunk& chunk, ZSTD_DCtx* dctx, std::vector<std::uint32_t>& words) {
  words.resize(chunk.events);
  const std::size_t n =
      ZSTD_decompressDCtx(dctx, words.data(), words.size() * 4, chunk.packed.data(), chunk.packed.size());
  if (ZSTD_isError(n) || n != words.size() * 4) throw heapql::Error("zstd decode failed");
}

// The window's query (--impacting AIFO,AOFI --by impacting,stack --top 10)
// answered twice: by the engine from the store's block columns
// (Aggregator::answer_from), and by the same aggregator fed the events as
// bucket runs, its skipped events as live counts from the checkpoint before
// them. Both timed, their JSON compared.
void query_from_events(const Options& o, const heapql::TraceStore& store, const std::vector<EventChunk>& chunks,
                       const std::vector<Checkpoint>& checkpoints) {
  const StoreColumns& c = store.columns();
  heapql::Query query;
  query.window.begin_ns = o.window_from_ms * 1000000;
  query.window.end_ns = o.window_to_ms * 1000000;
  query.impacting = {heapql::Impacting::kAifo, heapql::Impacting::kAofi};
  query.by = {heapql::GroupBy::kImpacting, heapql::GroupBy::kStack};
  query.top = 10;
  ZSTD_DCtx* dctx = ZSTD_createDCtx();
  std::vector<std::uint32_t> words;
  std::size_t decoded = SIZE_MAX;  // which chunk `words` holds
  const auto words_of = [&](std::size_t k) {
    if (decoded != k) decode_words(chunks[k], dctx, words);
    decoded = k;
  };
  for (int round = 0; round < o.rounds; ++round) {
    const auto t_columns = Clock::now();
    heapql::Aggregator reference(store.tables(), query);
    reference.answer_from(store);
    const std::string reference_json = heapql::result_json(reference.result(store.source()), store.source());
    const double columns_ms = ms_since(t_columns);

    decoded = SIZE_MAX;  // each round decodes what it reads
    const auto t_events = Clock::now();
    heapql::Aggregator aggregator(store.tables(), query);
    const std::uint64_t skipped = first_event_at(c, aggregator.skippable_before_ns());
    const std::uint64_t cut = first_event_at(c, *query.window.end_ns);
    std::size_t ci = 0;
    while (ci + 1 < checkpoints.size() && checkpoints[ci + 1].seq <= skipped) ++ci;
    std::vector<std::uint32_t> live(store.tables().bucket_count(), 0);
    {
      const std::vector<std::uint8_t> list = unpack(checkpoints[ci].counts);
      const std::uint8_t* p = list.data();
      std::uint32_t b = 0;
      while (p < list.data() + list.size()) {
        b += static_cast<std::uint32_t>(get_varint(p));
        live[b] = static_cast<std::uint32_t>(get_varint(p));
      }
    }
    std::uint32_t last_alloc = heapql::EventConsumer::kNoAllocation;
    std::size_t k = checkpoints[ci].seq / o.chunk_events;
    for (; k < chunks.size() && chunks[k].first_seq < skipped; ++k) {
      words_of(k);
      const std::uint64_t stop = std::min<std::uint64_t>(skipped - chunks[k].first_seq, words.size());
      for (std::uint64_t e = 0; e < stop; ++e) {
        const std::uint32_t w = words[e];
        if (w & 1) {
          --live[w >> 1];
          last_alloc = heapql::EventConsumer::kNoAllocation;
        } else {
          ++live[w >> 1];
          last_alloc = w >> 1;
        }
      }
      if (stop < words.size()) break;  // the window starts in this chunk
    }
    // The blocks alive at the window's start, fed as allocations before it:
    // on_skipped_events counts its blocks as the block events' replay does
    // (each free then says when its block was allocated), which bucket runs
    // do not say. An engine reading this form would add a bucket-run skip
    // (a loop over the buckets, as skip_events); this one-by-one feed is
    // timed apart.
    const auto t_skip_feed = Clock::now();
    {
      std::vector<std::uint32_t> allocs;
      std::uint32_t none = heapql::EventConsumer::kNoAllocation;
      for (std::uint32_t b = 0; b < live.size(); ++b) allocs.insert(allocs.end(), live[b], b << 1);
      if (aggregator.on_bucket_run(allocs, 0, none) != allocs.size()) throw heapql::Error("the skip was refused");
    }
    const double skip_feed_ms = ms_since(t_skip_feed);
    // The window's events in runs of one time.
    std::size_t next_change = 0;
    std::int64_t now = 0;
    while (next_change < c.time_changes.size() && c.time_changes[next_change].first_seq <= skipped) {
      now = c.time_changes[next_change++].ns;
    }
    for (; k < chunks.size() && chunks[k].first_seq < cut; ++k) {
      const EventChunk& chunk = chunks[k];
      words_of(k);
      std::uint64_t seq = std::max(skipped, chunk.first_seq);
      const std::uint64_t end = std::min<std::uint64_t>(cut, chunk.first_seq + chunk.events);
      while (seq < end) {
        while (next_change < c.time_changes.size() && c.time_changes[next_change].first_seq <= seq) {
          now = c.time_changes[next_change++].ns;
        }
        const std::uint64_t run_end =
            next_change < c.time_changes.size() ? std::min<std::uint64_t>(end, c.time_changes[next_change].first_seq)
                                                : end;
        const std::span<const std::uint32_t> run(words.data() + (seq - chunk.first_seq), run_end - seq);
        if (aggregator.on_bucket_run(run, now, last_alloc) != run.size()) {
          throw heapql::Error("a free of a bucket with no live block");
        }
        seq = run_end;
      }
    }
    // A temporary free just past the cut, of the block allocated just before it.
    if (cut < c.event_count && last_alloc != heapql::EventConsumer::kNoAllocation) {
      const EventChunk& chunk = chunks[cut / o.chunk_events];
      words_of(cut / o.chunk_events);
      const std::uint32_t w = words[cut - chunk.first_seq];
      if ((w & 1) && (w >> 1) == last_alloc) aggregator.on_bucket_free(heapql::BucketId(w >> 1), *query.window.end_ns, true);
    }
    aggregator.on_finish(c.end_ns);
    const std::string events_json = heapql::result_json(aggregator.result(store.source()), store.source());
    const double events_ms = ms_since(t_events);
    std::printf("query: from the block columns %.1f ms, from the events %.1f ms (%.1f of it feeding the live blocks at "
                "its start one by one; checkpoint at %llu): %s\n",
                columns_ms, events_ms, skip_feed_ms, static_cast<unsigned long long>(checkpoints[ci].seq),
                events_json == reference_json ? "the same JSON" : "JSON DIFFERS");
    if (events_json != reference_json && round == 0) {
      std::printf("columns: %.600s\nevents:  %.600s\n", reference_json.c_str(), events_json.c_str());
    }
  }
  ZSTD_freeDCtx(dctx);
}

int run(const Options& o) {
  auto opened = heapql::store_file::read_store_file(o.store);
  const heapql::TraceStore& store = *opened.store;
  const StoreColumns& c = store.columns();
  const auto& tables = store.tables();
  const std::size_t blocks = c.block_count();
  const std::size_t frees = c.free_order.size();
  const std::uint64_t events = c.event_count;
  std::printf("store %s: %zu blocks, %zu frees, %llu events, %zu buckets; block columns %zu bytes\n", o.store.c_str(),
              blocks, frees, static_cast<unsigned long long>(events), tables.bucket_count(), c.bytes());

  // Pass 1: the events, checked against LIFO pairing, packed in chunks,
  // with the blocks alive listed at each checkpoint.
  std::vector<EventChunk> chunks;
  std::vector<Checkpoint> checkpoints;
  std::vector<std::uint64_t> rank_histogram(24);  // by bit width: 0, 1, 2-3, 4-7, ...
  std::vector<std::uint8_t> ranks;                 // each free's rank among its bucket's live blocks, youngest 0
  std::vector<std::uint8_t> distances;             // a free not of the youngest: allocations of its bucket since
  std::vector<std::uint32_t> allocations_of(tables.bucket_count());
  std::vector<std::uint8_t> exception_lifetimes, exception_gaps;
  std::uint64_t last_exception = 0;
  std::vector<std::uint32_t> allocation_number(blocks);  // each block's among its bucket's allocations
  std::uint64_t not_youngest = 0, temporary_not_next = 0, next_not_temporary = 0;
  std::vector<std::uint8_t> raw;
  std::vector<std::uint32_t> alloc_buckets, free_buckets;
  std::vector<std::uint8_t> kinds;
  std::vector<std::uint32_t> live_ids;  // the youngest-on-top check needs ids: a stack of ids per bucket
  std::vector<std::vector<std::uint32_t>> ids_by_bucket(tables.bucket_count());
  std::size_t next_alloc = 0, next_free = 0;
  std::uint64_t live = 0;
  const auto t_pack = Clock::now();
  for (std::uint64_t chunk_start = 0; chunk_start < events; chunk_start += o.chunk_events) {
    if (chunk_start % o.checkpoint_events == 0) {
      // Blocks alive, by bucket: the ids' stacks hold them oldest first.
      Checkpoint cp;
      cp.seq = chunk_start;
      cp.live = live;
      std::vector<std::uint8_t> list, counts;
      std::uint32_t last_bucket = 0;
      for (std::uint32_t b = 0; b < ids_by_bucket.size(); ++b) {
        const auto& ids = ids_by_bucket[b];
        if (ids.empty()) continue;
        put_varint(list, b - last_bucket);
        put_varint(counts, b - last_bucket);
        last_bucket = b;
        put_varint(list, ids.size());
        put_varint(counts, ids.size());
        std::uint32_t last_seq = 0;
        for (std::uint32_t id : ids) {
          const std::uint32_t seq = c.alloc_seq[id];
          put_varint(list, seq - last_seq);
          last_seq = seq;
        }
      }
      cp.packed = zstd_pack(list, o.level);
      cp.counts = zstd_pack(counts, o.level);
      checkpoints.push_back(std::move(cp));
    }
    const std::uint64_t chunk_end = std::min<std::uint64_t>(events, chunk_start + o.chunk_events);
    kinds.assign((chunk_end - chunk_start + 7) / 8, 0);
    alloc_buckets.clear();
    free_buckets.clear();
    for (std::uint64_t seq = chunk_start; seq < chunk_end; ++seq) {
      if (next_alloc < blocks && c.alloc_seq[next_alloc] == seq) {
        const std::uint32_t b = c.bucket[next_alloc];
        kinds[(seq - chunk_start) / 8] |= static_cast<std::uint8_t>(1u << ((seq - chunk_start) % 8));
        alloc_buckets.push_back(b);
        ids_by_bucket[b].push_back(static_cast<std::uint32_t>(next_alloc));
        allocation_number[next_alloc] = allocations_of[b]++;
        ++next_alloc;
        ++live;
      } else {
        if (next_free >= frees) throw heapql::Error("an event that is neither an allocation nor a free");
        const std::uint32_t value = c.free_order[next_free++];
        const std::uint32_t id = value & StoreColumns::kBlockMask;
        const std::uint32_t b = c.bucket[id];
        auto& ids = ids_by_bucket[b];
        const auto where = std::find(ids.rbegin(), ids.rend(), id);
        if (where == ids.rend()) throw heapql::Error("a free of a block not alive");
        const auto rank = static_cast<std::uint64_t>(where - ids.rbegin());
        if (rank != 0) ++not_youngest;
        ++rank_histogram[std::min<std::size_t>(std::bit_width(rank), rank_histogram.size() - 1)];
        put_varint(ranks, rank);
        // Its distance in its bucket's allocations (those freed since counted too): O(1) to resolve.
        const std::uint32_t distance = allocations_of[b] - 1 - allocation_number[id];
        if (rank != 0) {
          put_varint(distances, distance);
          // Or told by when it was allocated (events back from its free) and where the free is.
          put_varint(exception_lifetimes, seq - c.alloc_seq[id]);
          put_varint(exception_gaps, next_free - 1 - last_exception);
          last_exception = next_free - 1;
        }
        ids.erase(std::next(where).base());
        const bool temporary = (value & StoreColumns::kTemporaryBit) != 0;
        const bool next = c.alloc_seq[id] + 1 == seq;
        if (temporary && !next) ++temporary_not_next;
        if (next && !temporary) ++next_not_temporary;
        free_buckets.push_back(b);
        --live;
      }
    }
    const auto append = [&raw](const std::vector<std::uint32_t>& v) {
      const std::size_t at = raw.size();
      raw.resize(at + v.size() * 4);
      std::memcpy(raw.data() + at, v.data(), v.size() * 4);
    };
    if (o.interleaved) {
      std::vector<std::uint32_t> merged(chunk_end - chunk_start);
      std::size_t ai = 0, fi = 0;
      for (std::size_t e = 0; e < merged.size(); ++e) {
        merged[e] = (kinds[e / 8] >> (e % 8)) & 1 ? alloc_buckets[ai++] * 2 : free_buckets[fi++] * 2 + 1;
      }
      raw.clear();
      append(merged);
    } else {
      raw.assign(kinds.begin(), kinds.end());
      append(alloc_buckets);
      append(free_buckets);
    }
    chunks.push_back({chunk_start, static_cast<std::uint32_t>(chunk_end - chunk_start),
                      static_cast<std::uint32_t>(alloc_buckets.size()), zstd_pack(raw, o.level)});
  }
  const double pack_ms = ms_since(t_pack);
  std::size_t chunk_bytes = 0, checkpoint_bytes = 0;
  for (const auto& ch : chunks) chunk_bytes += ch.packed.size() + 16;  // + a directory entry
  std::size_t checkpoint_count_bytes = 0;
  for (const auto& cp : checkpoints) {
    checkpoint_bytes += cp.packed.size() + 24;
    checkpoint_count_bytes += cp.counts.size() + 24;
  }
  std::printf("pairing: %llu frees not their bucket's youngest block; temporary bits: %llu not the next event, "
              "%llu next events not temporary\n",
              static_cast<unsigned long long>(not_youngest), static_cast<unsigned long long>(temporary_not_next),
              static_cast<unsigned long long>(next_not_temporary));
  std::printf("ranks by bit width (0, 1, 2-3, 4-7, ...):");
  for (auto n : rank_histogram) std::printf(" %llu", static_cast<unsigned long long>(n));
  std::printf("\nranks as varints: %zu bytes, zstd-%d %zu bytes\n", ranks.size(), o.level, zstd_pack(ranks, o.level).size());
  std::printf("the frees not of the youngest, as their bucket's allocations since (varints): %zu bytes, zstd-%d %zu bytes\n",
              distances.size(), o.level, zstd_pack(distances, o.level).size());
  std::printf("the same told by their lifetimes in events: %zu bytes, zstd-%d %zu; their places (frees between): "
              "%zu bytes, zstd-%d %zu\n",
              exception_lifetimes.size(), o.level, zstd_pack(exception_lifetimes, o.level).size(), exception_gaps.size(),
              o.level, zstd_pack(exception_gaps, o.level).size());
  std::printf("events as zstd-%d chunks of %u: %zu chunks, %zu bytes (%.3f bytes a block; packed columns %.3f)\n",
              o.level, o.chunk_events, chunks.size(), chunk_bytes, double(chunk_bytes) / double(blocks),
              double(c.bucket.bytes() + c.alloc_seq.bytes() + c.free_order.bytes()) / double(blocks));
  std::printf("checkpoints as live counts per bucket alone: %zu bytes\n", checkpoint_count_bytes);
  std::printf("checkpoints every %u events: %zu, %zu bytes (largest lists %llu blocks); packed in %.0f ms\n",
              o.checkpoint_events, checkpoints.size(), checkpoint_bytes,
              static_cast<unsigned long long>(
                  std::max_element(checkpoints.begin(), checkpoints.end(),
                                   [](const Checkpoint& a, const Checkpoint& b) { return a.live < b.live; })
                      ->live),
              pack_ms);

  // Every chunk decoded, timed: what a whole replay would pay for zstd.
  {
    std::vector<std::uint8_t> out(std::size_t{o.chunk_events} / 8 + 1 + std::size_t{o.chunk_events} * 4);
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    const auto t = Clock::now();
    std::size_t total = 0;
    for (const auto& ch : chunks) {
      const std::size_t n = ZSTD_decompressDCtx(dctx, out.data(), out.size(), ch.packed.data(), ch.packed.size());
      if (ZSTD_isError(n)) throw heapql::Error("zstd decode failed");
      total += n;
    }
    std::printf("all chunks decoded: %.1f ms (%zu bytes out)\n", ms_since(t), total);
    ZSTD_freeDCtx(dctx);
  }

  if (o.window_from_ms < 0) return 0;
  if (not_youngest != 0) {
    // This replay pairs each free with its bucket's youngest block, which
    // would answer wrongly here.
    std::printf("window: not replayed: %llu frees are not their bucket's youngest block\n",
                static_cast<unsigned long long>(not_youngest));
    return 0;
  }

  // The window replayed from the last checkpoint at or before it.
  const std::uint64_t s0 = first_event_at(c, o.window_from_ms * 1000000);
  const std::uint64_t s1 = first_event_at(c, o.window_to_ms * 1000000);
  for (int round = 0; round < o.rounds; ++round) {
    LifoReplay replay(tables.bucket_count());
    const auto t_window = Clock::now();
    std::size_t ci = 0;
    while (ci + 1 < checkpoints.size() && checkpoints[ci + 1].seq <= s0) ++ci;
    {
      // The checkpoint's list, decoded into the stacks.
      const auto& cp = checkpoints[ci];
      std::vector<std::uint8_t> list(ZSTD_getFrameContentSize(cp.packed.data(), cp.packed.size()));
      ZSTD_decompress(list.data(), list.size(), cp.packed.data(), cp.packed.size());
      const std::uint8_t* p = list.data();
      const std::uint8_t* end = p + list.size();
      std::uint32_t b = 0;
      while (p < end) {
        b += static_cast<std::uint32_t>(get_varint(p));
        const std::uint64_t n = get_varint(p);
        std::uint32_t seq = 0;
        for (std::uint64_t k = 0; k < n; ++k) {
          seq += static_cast<std::uint32_t>(get_varint(p));
          replay.push(b, seq);
        }
      }
    }
    const double checkpoint_ms = ms_since(t_window);
    std::vector<std::uint8_t> out(std::size_t{o.chunk_events} / 8 + 1 + std::size_t{o.chunk_events} * 4);
    ZSTD_DCtx* dctx = ZSTD_createDCtx();
    std::vector<std::uint32_t> order;  // the chunk's buckets in event order, for prefetching ahead
    std::vector<std::uint8_t> kind;
    std::uint64_t replayed = 0;
    for (std::size_t k = checkpoints[ci].seq / o.chunk_events; k < chunks.size() && chunks[k].first_seq < s1; ++k) {
      const auto& ch = chunks[k];
      const std::size_t n = ZSTD_decompressDCtx(dctx, out.data(), out.size(), ch.packed.data(), ch.packed.size());
      if (ZSTD_isError(n)) throw heapql::Error("zstd decode failed");
      // Each event's bucket and kind (1: an allocation), in event order.
      order.resize(ch.events);
      kind.resize(ch.events);
      if (o.interleaved) {
        for (std::uint32_t e = 0; e < ch.events; ++e) {
          std::uint32_t v;
          std::memcpy(&v, out.data() + std::size_t{e} * 4, 4);
          order[e] = v >> 1;
          kind[e] = static_cast<std::uint8_t>(~v & 1);
        }
      } else {
        const std::uint8_t* bits = out.data();
        const std::uint8_t* alloc_at = out.data() + (ch.events + 7) / 8;
        const std::uint8_t* free_at = alloc_at + std::size_t{ch.allocs} * 4;
        for (std::uint32_t e = 0; e < ch.events; ++e) {
          kind[e] = (bits[e / 8] >> (e % 8)) & 1;
          std::memcpy(&order[e], kind[e] ? alloc_at : free_at, 4);
          (kind[e] ? alloc_at : free_at) += 4;
        }
      }
      const std::uint64_t stop = std::min<std::uint64_t>(s1 - ch.first_seq, ch.events);
      constexpr std::uint32_t kAhead = 8;
      for (std::uint32_t e = 0; e < stop; ++e) {
        if (e + kAhead < stop) replay.prefetch(order[e + kAhead]);
        const std::uint32_t b = order[e];
        const auto seq = static_cast<std::uint32_t>(ch.first_seq + e);
        if (kind[e]) {
          replay.push(b, seq);
          if (seq >= s0) ++replay.state(b).aifo;
        } else {
          const std::uint32_t born = replay.pop(b);
          if (seq >= s0) {
            if (born < s0) {
              ++replay.state(b).aofi;
            } else {
              --replay.state(b).aifo;  // allocated and freed inside: AIFI
            }
          }
        }
      }
      replayed += stop;
    }
    ZSTD_freeDCtx(dctx);
    std::uint64_t aifo_blocks = 0, aifo_bytes = 0, aofi_blocks = 0, aofi_bytes = 0;
    for (std::uint32_t b = 0; b < replay.buckets(); ++b) {
      const auto& s = replay.state(b);
      const std::uint64_t size = tables.bucket(heapql::BucketId(b)).size;
      aifo_blocks += s.aifo;
      aifo_bytes += s.aifo * size;
      aofi_blocks += s.aofi;
      aofi_bytes += s.aofi * size;
    }
    std::printf("window %lldms..%lldms = events %llu..%llu: from checkpoint at %llu (%.1f ms to list its blocks), "
                "%llu events replayed, %.1f ms in all\n",
                static_cast<long long>(o.window_from_ms), static_cast<long long>(o.window_to_ms),
                static_cast<unsigned long long>(s0), static_cast<unsigned long long>(s1),
                static_cast<unsigned long long>(checkpoints[ci].seq), checkpoint_ms,
                static_cast<unsigned long long>(replayed), ms_since(t_window));
    std::printf("AIFO %llu blocks %llu bytes; AOFI %llu blocks %llu bytes\n", static_cast<unsigned long long>(aifo_blocks),
                static_cast<unsigned long long>(aifo_bytes), static_cast<unsigned long long>(aofi_blocks),
                static_cast<unsigned long long>(aofi_bytes));
  }
  if (o.interleaved) {
    query_from_events(o, store, chunks, checkpoints);
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    return run(parse(argc, argv));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "heapql_lifo_events_probe: %s\n", e.what());
    return 1;
  }
}
