// Greedy hash-chain encoder for MS-XCA plain LZ77 (format facts in the header).
#include "tests/support/xpress_compressor.h"

#include <algorithm>
#include <limits>

namespace heapql::test {
namespace {

constexpr std::size_t kMaxOffset = 8192;  // 13 bits of (offset - 1)
constexpr std::uint32_t kMinMatch = 3;
constexpr int kHashBits = 15;
constexpr std::size_t kNoPosition = std::numeric_limits<std::size_t>::max();

std::uint32_t hash3(const std::uint8_t* p) {
  const std::uint32_t v = p[0] | (std::uint32_t{p[1]} << 8) | (std::uint32_t{p[2]} << 16);
  return (v * 2654435761u) >> (32 - kHashBits);
}

// Writes symbols and keeps the flag word and the shared half-byte in step.
class Encoder {
 public:
  Encoder(std::vector<std::uint8_t>& out, XpressStreamStats& stats) : out_(out), stats_(stats) { reserve_flags(); }

  void literal(std::uint8_t byte) {
    out_.push_back(byte);
    ++stats_.literals;
    push_flag(false);
  }

  void match(std::size_t offset, std::uint32_t length) {
    const std::uint32_t extra = length - kMinMatch;
    const auto offset_bits = static_cast<std::uint32_t>((offset - 1) << 3);
    if (extra < 7) {
      put16(offset_bits | extra);
      ++stats_.short_matches;
    } else {
      put16(offset_bits | 7);
      const std::uint32_t rest = extra - 7;
      put_half_byte(std::min<std::uint32_t>(rest, 15));
      if (rest < 15) {
        ++stats_.nibble_matches;
      } else if (rest - 15 < 255) {
        out_.push_back(static_cast<std::uint8_t>(rest - 15));
        ++stats_.byte_matches;
      } else {
        // The long forms carry the whole length - 3, not the remainder.
        out_.push_back(255);
        if (extra <= 0xFFFF) {
          put16(extra);
          ++stats_.word_matches;
        } else {
          put16(0);
          put32(extra);
          ++stats_.dword_matches;
        }
      }
    }
    push_flag(true);
  }

  // Unused flag bits read as matches; with no input left a decoder stops there.
  void finish() {
    const std::uint32_t word =
        flag_count_ == 0 ? 0xFFFFFFFFu : (flags_ << (32 - flag_count_)) | ((1u << (32 - flag_count_)) - 1);
    store32(flag_position_, word);
  }

 private:
  void reserve_flags() {
    flag_position_ = out_.size();
    out_.resize(out_.size() + 4);
  }
  void push_flag(bool is_match) {
    flags_ = (flags_ << 1) | (is_match ? 1u : 0u);
    if (++flag_count_ == 32) {
      store32(flag_position_, flags_);
      flags_ = 0;
      flag_count_ = 0;
      reserve_flags();
    }
  }
  // The first extended match puts its nibble in a new byte's low half; the
  // next one fills that byte's high half instead of adding a byte.
  void put_half_byte(std::uint32_t nibble) {
    if (half_byte_position_ == kNoPosition) {
      half_byte_position_ = out_.size();
      out_.push_back(static_cast<std::uint8_t>(nibble));
    } else {
      out_[half_byte_position_] |= static_cast<std::uint8_t>(nibble << 4);
      half_byte_position_ = kNoPosition;
    }
  }
  void put16(std::uint32_t v) {
    out_.push_back(static_cast<std::uint8_t>(v));
    out_.push_back(static_cast<std::uint8_t>(v >> 8));
  }
  void put32(std::uint32_t v) {
    put16(v & 0xFFFF);
    put16(v >> 16);
  }
  void store32(std::size_t at, std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out_[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
  }

  std::vector<std::uint8_t>& out_;
  XpressStreamStats& stats_;
  std::size_t flag_position_ = 0;
  std::uint32_t flags_ = 0;
  int flag_count_ = 0;
  std::size_t half_byte_position_ = kNoPosition;
};

}  // namespace

std::vector<std::uint8_t> xpress_compress(std::span<const std::uint8_t> input, const XpressCompressOptions& options,
                                          XpressStreamStats& stats) {
  stats = {};
  std::vector<std::uint8_t> out;
  out.reserve(input.size() + input.size() / 8 + 8);
  Encoder encoder(out, stats);

  const std::size_t n = input.size();
  std::vector<std::size_t> head(std::size_t{1} << kHashBits, kNoPosition);
  std::vector<std::size_t> previous(n, kNoPosition);  // chain link per position
  auto insert = [&](std::size_t pos) {
    if (pos + kMinMatch > n) return;
    const std::uint32_t h = hash3(&input[pos]);
    previous[pos] = head[h];
    head[h] = pos;
  };

  const std::uint32_t max_match = std::max(options.max_match, kMinMatch);
  std::size_t pos = 0;
  while (pos < n) {
    std::size_t best_length = 0;
    std::size_t best_offset = 0;
    if (options.max_chain > 0 && pos + kMinMatch <= n) {
      const std::size_t limit = std::min<std::size_t>(n - pos, max_match);
      std::size_t candidate = head[hash3(&input[pos])];
      for (int tries = 0; candidate != kNoPosition && pos - candidate <= kMaxOffset && tries < options.max_chain;
           ++tries, candidate = previous[candidate]) {
        std::size_t length = 0;
        while (length < limit && input[candidate + length] == input[pos + length]) ++length;
        if (length > best_length) {
          best_length = length;
          best_offset = pos - candidate;
          if (length == limit) break;
        }
      }
    }
    if (best_length >= kMinMatch) {
      encoder.match(best_offset, static_cast<std::uint32_t>(best_length));
      for (std::size_t i = 0; i < best_length; ++i) insert(pos + i);
      pos += best_length;
    } else {
      encoder.literal(input[pos]);
      insert(pos);
      ++pos;
    }
  }
  encoder.finish();
  return out;
}

std::vector<std::uint8_t> xpress_compress(std::span<const std::uint8_t> input, const XpressCompressOptions& options) {
  XpressStreamStats stats;
  return xpress_compress(input, options, stats);
}

}  // namespace heapql::test
