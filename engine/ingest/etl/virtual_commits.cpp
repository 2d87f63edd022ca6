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
  if (size == 0) return;
  const std::uint64_t end = range_end(base, size);
  LiveMap& pieces = live(process);
  // Walk the live pieces overlapping [base, end) in address order; the gaps
  // between them are what this commit newly commits.
  auto it = pieces.upper_bound(base);
  if (it != pieces.begin()) {
    auto before = std::prev(it);
    const Piece& p = pieces_[before->second];
    if (range_end(p.base, p.size) > base) it = before;
  }
  std::vector<Piece> gaps;
  std::uint64_t cursor = base;
  for (; it != pieces.end() && it->first < end; ++it) {
    const Piece& p = pieces_[it->second];
    const std::uint64_t p_end = range_end(p.base, p.size);
    if (p.base > cursor) gaps.push_back(Piece{process, cursor, p.base - cursor, event, kNotEnded});
    recommitted_bytes_ += std::min(p_end, end) - std::max(p.base, cursor);
    cursor = std::max(cursor, p_end);
  }
  if (cursor < end) gaps.push_back(Piece{process, cursor, end - cursor, event, kNotEnded});
  for (const Piece& gap : gaps) add_piece(gap);
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
