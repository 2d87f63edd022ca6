// VirtualAlloc commit lifetimes, page-exact (semantics.md §1, etw-heap.md
// §2.4, §3.5): a commit starts a block for every byte range it newly commits;
// a decommit or release ends what it covers and splits a range it only partly
// covers, so the part still committed lives on with its original commit time
// and stack. Works on event positions (the trace's time-ordered event list),
// because a later partial decommit changes how an earlier commit is cut up.
#pragma once

#include <cstdint>
#include <map>
#include <unordered_map>
#include <vector>

namespace heapql {

class VirtualCommits {
 public:
  static constexpr std::uint32_t kNotEnded = 0xFFFFFFFFu;

  struct Piece {
    std::uint32_t process = 0;
    std::uint64_t base = 0;
    std::uint64_t size = 0;
    std::uint32_t commit_event = 0;       // position of the commit that made it
    std::uint32_t end_event = kNotEnded;  // position of the decommit/release that ended it
  };

  // Events must come in position order.
  void commit(std::uint32_t process, std::uint64_t base, std::uint64_t size, std::uint32_t event);
  void reserve(std::uint32_t process, std::uint64_t base, std::uint64_t size);
  // Ends committed bytes in [base, base + size). A release with size 0 ends
  // the whole region reserved at `base` (or, unknown, the committed run that starts there).
  void decommit(std::uint32_t process, std::uint64_t base, std::uint64_t size, std::uint32_t event);

  // Bytes a commit found already committed (committing them again is legal
  // and changes nothing), and decommits of bytes not committed.
  std::uint64_t recommitted_bytes() const { return recommitted_bytes_; }
  std::uint64_t decommits_of_uncommitted() const { return decommits_of_uncommitted_; }

  // Every piece, ordered by (commit_event, base).
  std::vector<Piece> pieces() const;

 private:
  using LiveMap = std::map<std::uint64_t, std::uint32_t>;  // base -> piece index
  using RangeMap = std::map<std::uint64_t, std::uint64_t>;  // start -> end
  LiveMap& live(std::uint32_t process) { return live_[process]; }
  std::uint32_t add_piece(const Piece& piece);
  // Removes [base, end) from the process's committed ranges.
  void uncover(std::uint32_t process, std::uint64_t base, std::uint64_t end);

  std::vector<Piece> pieces_;
  std::unordered_map<std::uint32_t, LiveMap> live_;
  // Per process: the union of its live pieces as coalesced ranges. A commit
  // walks these instead of the pieces, so recommitting a range of many pieces
  // costs the ranges it merges (each merged once), not every piece each time.
  std::unordered_map<std::uint32_t, RangeMap> committed_;
  std::unordered_map<std::uint32_t, std::map<std::uint64_t, std::uint64_t>> reserved_;  // base -> size
  std::uint64_t recommitted_bytes_ = 0;
  std::uint64_t decommits_of_uncommitted_ = 0;
};

}  // namespace heapql
