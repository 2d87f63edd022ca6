#include "engine/ingest/etl/virtual_commits.h"

#include <algorithm>
#include <limits>

namespace heapql {

namespace {
// base + size without wrapping past the top of the address space.
std::uint64_t range_end(std::uint64_t base, std::uint64_t size) {
  return size > std::numeric_limits<std::uint64_t>::max() - base ? std::numeric_limits<std::uint64_t>::max()
                                                                 : base + size;
}
}  // namespace

std::uint32_t VirtualCommits::add_piece(const Piece& piece) {
  pieces_.push_back(piece);
  const auto index = static_cast<std::uint32_t>(pieces_.size() - 1);
  live(piece.process).emplace(piece.base, index);
  return index;
}

void VirtualCommits::reserve(std::uint32_t process, std::uint64_t base, std::uint64_t size) {
  if (size != 0) reserved_[process][base] = size;
}

void VirtualCommits::commit(std::uint32_t process, std::uint64_t base, std::uint64_t size, std::uint32_t event) {
  const std::uint64_t end = range_end(base, size);
  if (end <= base) return;  // size 0 (or a base at the very top): nothing to commit
  RangeMap& committed = committed_[process];
  // Walk the committed ranges overlapping or touching [base, end) in address
  // order: the gaps between them are what this commit newly commits, and they
  // all merge into one range.
  auto it = committed.upper_bound(base);
  if (it != committed.begin() && std::prev(it)->second >= base) it = std::prev(it);
  std::uint64_t cursor = base, merged_start = base, merged_end = end;
  std::vector<Piece> gaps;
  while (it != committed.end() && it->first <= end) {
    const auto [start, stop] = *it;
    if (start > cursor) gaps.push_back(Piece{process, cursor, start - cursor, event, kNotEnded});
    recommitted_bytes_ += std::min(stop, end) - std::max(start, cursor);
    cursor = std::max(cursor, stop);
    merged_start = std::min(merged_start, start);
    merged_end = std::max(merged_end, stop);
    it = committed.erase(it);
  }
  if (cursor < end) gaps.push_back(Piece{process, cursor, end - cursor, event, kNotEnded});
  committed.emplace(merged_start, merged_end);
  for (const Piece& gap : gaps) add_piece(gap);
}

void VirtualCommits::uncover(std::uint32_t process, std::uint64_t base, std::uint64_t end) {
  RangeMap& committed = committed_[process];
  auto it = committed.upper_bound(base);
  if (it != committed.begin() && std::prev(it)->second > base) it = std::prev(it);
  std::vector<std::pair<std::uint64_t, std::uint64_t>> kept;  // at most two: left and right of the cut
  while (it != committed.end() && it->first < end) {
    const auto [start, stop] = *it;
    it = committed.erase(it);
    if (start < base) kept.emplace_back(start, base);
    if (stop > end) kept.emplace_back(end, stop);
  }
  committed.insert(kept.begin(), kept.end());
}

void VirtualCommits::decommit(std::uint32_t process, std::uint64_t base, std::uint64_t size, std::uint32_t event) {
  LiveMap& pieces = live(process);
  std::uint64_t end;
  if (size != 0) {
    end = range_end(base, size);
  } else {
    auto& reserved = reserved_[process];
    if (auto r = reserved.find(base); r != reserved.end()) {
      end = range_end(base, r->second);
      reserved.erase(r);
    } else {
      // The committed run that starts at base.
      end = base;
      for (auto it = pieces.find(base); it != pieces.end() && it->first == end; ++it) {
        end = range_end(it->first, pieces_[it->second].size);
      }
    }
  }
  if (end <= base) {
    // Nothing to end. Without this, a size-0 release at an address inside a
    // piece (not at its start) would cut that piece in two around an empty
    // piece and end it: a zero-byte block and a split that never happened.
    ++decommits_of_uncommitted_;
    return;
  }
  auto it = pieces.upper_bound(base);
  if (it != pieces.begin()) {
    auto before = std::prev(it);
    if (range_end(before->first, pieces_[before->second].size) > base) it = before;
  }
  bool ended_any = false;
  std::vector<Piece> remainders;
  while (it != pieces.end() && it->first < end) {
    const std::uint32_t index = it->second;
    it = pieces.erase(it);
    Piece& p = pieces_[index];
    const std::uint64_t p_end = range_end(p.base, p.size);
    // The piece shrinks to the part this event ends; what lies outside lives on.
    if (p.base < base) remainders.push_back(Piece{process, p.base, base - p.base, p.commit_event, kNotEnded});
    if (p_end > end) remainders.push_back(Piece{process, end, p_end - end, p.commit_event, kNotEnded});
    const std::uint64_t cut_start = std::max(p.base, base);
    p.size = std::min(p_end, end) - cut_start;
    p.base = cut_start;
    p.end_event = event;
    ended_any = true;
  }
  for (const Piece& piece : remainders) add_piece(piece);
  if (ended_any) uncover(process, base, end);
  if (!ended_any) ++decommits_of_uncommitted_;
}

std::vector<VirtualCommits::Piece> VirtualCommits::pieces() const {
  std::vector<Piece> out = pieces_;
  std::sort(out.begin(), out.end(), [](const Piece& a, const Piece& b) {
    return a.commit_event != b.commit_event ? a.commit_event < b.commit_event : a.base < b.base;
  });
  return out;
}

}  // namespace heapql
