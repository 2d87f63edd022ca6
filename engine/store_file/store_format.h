// The store file's layout (docs/store-format.md): a 64-byte header, sections at
// 64-byte aligned offsets, and a table of contents, all little-endian. Every
// section and the table of contents carry a checksum (checksum.h); the header
// carries its own. The header is written last, so a file whose writer died
// has no valid one.
//
// A section holds facts or an accelerator. The facts (the source, the tables,
// the block columns or the events) are what the trace said; the format version names their
// layout, and only a change of facts changes it. An accelerator (the bucket
// sums, the live checkpoints, the stack view) is part of an answer worked out
// at ingest: optional, with a revision of its own, so that adding or changing
// one refuses no store. A reader uses an accelerator only at a revision it
// knows, and a query without it replays the block columns.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <string_view>

namespace heapql::store_file {

static_assert(std::endian::native == std::endian::little, "the store maps its columns as they are on disk");

inline constexpr std::array<char, 8> kMagic = {'H', 'E', 'A', 'P', 'Q', 'L', 'D', 'B'};
inline constexpr std::uint32_t kFormatVersion = 8;
inline constexpr std::uint64_t kHeaderBytes = 64;
inline constexpr std::uint64_t kSectionAlignment = 64;
inline constexpr std::uint64_t kTocEntryBytes = 40;

// Header: magic[8], u32 version, u32 section count, u64 file bytes, u64 table
// of contents offset, u64 its checksum, u64 the checksum of the header's
// first 40 bytes, zeros to 64. A table of contents entry: u32 kind, u32
// revision (0 for facts), u64 checksum, u64 offset, u64 bytes, u64 items.
namespace header_at {
inline constexpr std::size_t kVersion = 8, kSectionCount = 12, kFileBytes = 16, kTocOffset = 24, kTocChecksum = 32,
                             kHeaderChecksum = 40;
}

enum class Section : std::uint32_t {
  // Facts: every store has each once.
  kSource = 1,        // what was read and how (source identity, SourceInfo, event count, end, peak)
  kStrings = 2,       // u64 length + bytes, each
  kFrames = 3,        // u32 module, u32 symbol, u64 address
  kStacks = 4,        // u32 frame, u32 parent
  kProcesses = 5,     // u64 pid, u32 name, u32 zero
  kHeaps = 6,         // u32 process, u32 name, u64 handle
  kBuckets = 7,       // u64 size, u32 stack, u32 heap, u32 thread, u8 kind, u8 is_realloc, u16 zero
  kBlockBucket = 8,   // per block, packed (packed_column.h)
  kBlockAllocSeq = 9, // per block, packed
  kFreeOrder = 10,    // per free, packed, rotated left a bit
  kTimeChanges = 11,  // TimeChange (16 bytes) per distinct time
  // Accelerators: optional; every kind past the facts is one.
  kBucketSums = 12,   // per bucket with blocks, in order of first allocation: a packed table of five columns
  kStackView = 13,    // the stack view (stack_view.h): a 64-byte head, then a packed table of its columns
  kLiveCheckpoints = 14,  // LiveCheckpoint (24 bytes) each, then their blocks' ids, a packed column
  // A fact: the trace's events (store_events.h), in place of the three
  // block columns when every free ends its bucket's youngest live block.
  kEvents = 15,
  // An accelerator of the events: the live blocks' count per bucket, every few chunks.
  kLiveCounts = 16,
};
inline constexpr std::uint32_t kSectionKinds = 16;  // the kinds this build has code for

inline constexpr bool is_fact(std::uint32_t kind) { return (kind >= 1 && kind <= 11) || kind == 15; }
// The blocks' facts are either the three block columns or the events.
inline constexpr bool is_block_column(std::uint32_t kind) { return kind >= 8 && kind <= 10; }

// An accelerator at one revision of its layout and meaning.
struct Accelerator {
  Section kind;
  std::uint32_t revision;
  friend bool operator==(const Accelerator&, const Accelerator&) = default;
};

// The accelerators this build writes and reads. Raise an accelerator's
// revision whenever what it holds, or what it means, changes: readers of the
// other revision then pass it over and replay instead.
inline constexpr std::array<Accelerator, 4> kAccelerators = {{
    {Section::kBucketSums, 2},
    {Section::kStackView, 2},
    {Section::kLiveCheckpoints, 2},
    {Section::kLiveCounts, 1},
}};

inline constexpr std::string_view section_name(Section s) {
  switch (s) {
    case Section::kSource: return "source";
    case Section::kStrings: return "strings";
    case Section::kFrames: return "frames";
    case Section::kStacks: return "stacks";
    case Section::kProcesses: return "processes";
    case Section::kHeaps: return "heaps";
    case Section::kBuckets: return "buckets";
    case Section::kBlockBucket: return "block buckets";
    case Section::kBlockAllocSeq: return "block allocation times";
    case Section::kFreeOrder: return "frees";
    case Section::kTimeChanges: return "time changes";
    case Section::kBucketSums: return "bucket sums";
    case Section::kStackView: return "stack view";
    case Section::kLiveCheckpoints: return "live checkpoints";
    case Section::kEvents: return "events";
    case Section::kLiveCounts: return "live counts";
  }
  return "unknown";
}

// The stack view's head: u64 cull fingerprint, u64 rows, u64 temporary
// blocks, u64 totals of so, soc, st, stc, src. Then its columns
// (stack_view.h) as a packed table.
inline constexpr std::uint64_t kStackViewHeadBytes = 64;

inline constexpr std::uint64_t kFrameBytes = 16, kStackBytes = 8, kProcessBytes = 16, kHeapBytes = 16,
                               kBucketBytes = 24;

}  // namespace heapql::store_file
