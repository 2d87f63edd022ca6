// MS-XCA "plain LZ77" decompression ([MS-XCA] §2.4), written from the spec's
// description. The stream is a run of 32-bit little-endian flag words, each
// followed by the items it describes, read from the flag word's most
// significant bit down: a 0 bit is one literal byte, a 1 bit a 16-bit match
// word (13-bit offset - 1, 3-bit length - 3) whose length can be extended by
// a shared half byte, then a byte, then 16 or 32 bits.
#include "engine/ingest/etl/xpress.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

namespace heapql {

namespace {

constexpr std::size_t kFlagBits = 32;
constexpr std::uint32_t kMinMatchLength = 3;
// The length field escapes: 7 in the 3 low bits, then 15 in a half byte, then
// 255 in a byte, each one adding to the length before the next escape.
constexpr std::uint32_t kLengthEscape3 = 7;
constexpr std::uint32_t kLengthEscape4 = 15;
constexpr std::uint32_t kLengthEscape8 = 255;

// Thrown inside this file only, turned into the returned message.
struct Corrupt {
  std::string message;
};

class XpressDecoder {
 public:
  XpressDecoder(std::span<const std::uint8_t> input, std::size_t expected_size, std::vector<std::uint8_t>& output)
      : input_(input), expected_size_(expected_size), output_(output) {
    // A hostile size must not allocate (nor clear) gigabytes up front: the
    // output doubles as the stream really produces bytes, up to the expected
    // size (an ETL buffer is 64 KiB to a few MiB).
    constexpr std::size_t kFirstSize = std::size_t{64} << 10;
    output_.resize(std::min(expected_size_, kFirstSize));
  }

  // The bytes written; the output is cut to them when the decoder is done.
  std::size_t written() const { return written_; }

  void run() {
    std::uint32_t flags = 0;
    std::size_t flags_left = 0;
    for (;;) {
      if (flags_left == 0) {
        // A stream that ends exactly when the output is complete is fine
        // even without a closing flag word.
        if (at_end() && written_ == expected_size_) return;
        flags = read_u32("a flag word");
        flags_left = kFlagBits;
      }
      --flags_left;
      const bool is_match = (flags >> flags_left) & 1U;
      if (!is_match) {
        if (at_end() && written_ == expected_size_) return;
        const std::size_t literal_at = position_;
        const std::uint8_t literal = read_u8("a literal byte");
        put(literal, literal_at);
        continue;
      }
      // The compressor pads the last flag word with 1 bits: a match flag
      // with no input left is the end of the stream.
      if (at_end()) return;
      copy_match();
    }
  }

 private:
  bool at_end() const { return position_ == input_.size(); }

  [[noreturn]] void fail(std::size_t at, const std::string& what) const {
    throw Corrupt{fmt::format("at input byte {}: {}", at, what)};
  }

  void need(std::size_t bytes, const char* what) const {
    if (input_.size() - position_ < bytes) {
      fail(position_, fmt::format("the input ends ({} bytes) where {} was expected", input_.size(), what));
    }
  }
  std::uint8_t read_u8(const char* what) {
    need(1, what);
    return input_[position_++];
  }
  std::uint16_t read_u16(const char* what) {
    need(2, what);
    auto value = static_cast<std::uint16_t>(input_[position_] | (input_[position_ + 1] << 8));
    position_ += 2;
    return value;
  }
  std::uint32_t read_u32(const char* what) {
    need(4, what);
    std::uint32_t value = 0;
    for (std::size_t i = 0; i < 4; ++i) value |= static_cast<std::uint32_t>(input_[position_ + i]) << (8 * i);
    position_ += 4;
    return value;
  }

  void put(std::uint8_t byte, std::size_t input_at) {
    if (written_ == expected_size_) {
      fail(input_at, fmt::format("the output would grow past the expected {} bytes", expected_size_));
    }
    make_room(1);
    output_[written_++] = byte;
  }

  // Room for `bytes` more (within the expected size, checked by the caller).
  void make_room(std::size_t bytes) {
    if (output_.size() - written_ >= bytes) [[likely]] return;
    output_.resize(std::min(expected_size_, std::max(written_ + bytes, output_.size() * 2)));
  }

  void copy_match() {
    const std::size_t match_at = position_;
    const std::uint16_t match_word = read_u16("a match");
    const std::size_t distance = (match_word >> 3) + 1U;
    const std::uint64_t length = read_length(match_word & 7U, match_at) + kMinMatchLength;
    if (distance > written_) {
      fail(match_at, fmt::format("match reaches back {} bytes before the output start (only {} bytes written)",
                                 distance, written_));
    }
    if (length > expected_size_ - written_) {
      fail(match_at, fmt::format("match of {} bytes would grow the output past the expected {} bytes", length,
                                 expected_size_));
    }
    make_room(static_cast<std::size_t>(length));
    std::uint8_t* const to = output_.data() + written_;
    const std::uint8_t* const from = to - distance;
    if (distance >= length) {
      std::memcpy(to, from, static_cast<std::size_t>(length));
    } else {
      // Byte by byte: the match overlaps the bytes it produces ("aaaa" as
      // one literal and a match at distance 1).
      for (std::size_t i = 0; i < length; ++i) to[i] = from[i];
    }
    written_ += static_cast<std::size_t>(length);
  }

  // The match length minus 3, with its extensions.
  std::uint64_t read_length(std::uint32_t length3, std::size_t match_at) {
    if (length3 < kLengthEscape3) return length3;
    // Two consecutive long matches share one byte for their 4-bit
    // extensions: the first takes its low half, the next its high half.
    std::uint32_t length4 = 0;
    if (!pending_half_byte_) {
      pending_half_byte_ = position_;
      length4 = read_u8("a match length half byte") & 0x0FU;
    } else {
      length4 = input_[*pending_half_byte_] >> 4;
      pending_half_byte_.reset();
    }
    if (length4 < kLengthEscape4) return std::uint64_t{length4} + kLengthEscape3;
    const std::uint32_t length8 = read_u8("a match length byte");
    if (length8 < kLengthEscape8) return std::uint64_t{length8} + kLengthEscape4 + kLengthEscape3;
    // Past the byte the length is stored whole (minus 3): 16 bits, or 32
    // bits after a 16-bit zero.
    std::uint64_t whole = read_u16("a 16-bit match length");
    if (whole == 0) whole = read_u32("a 32-bit match length");
    if (whole < kLengthEscape4 + kLengthEscape3) {
      fail(match_at, fmt::format("match length {} is shorter than its escapes allow", whole));
    }
    return whole;
  }

  std::span<const std::uint8_t> input_;
  std::size_t expected_size_;
  std::vector<std::uint8_t>& output_;
  std::size_t written_ = 0;  // bytes of output_ produced
  std::size_t position_ = 0;
  std::optional<std::size_t> pending_half_byte_;  // input position of a half-used length byte
};

}  // namespace

std::string xpress_decompress(std::span<const std::uint8_t> input, std::size_t expected_size,
                              std::vector<std::uint8_t>& output) {
  output.clear();
  XpressDecoder decoder(input, expected_size, output);
  std::string problem;
  try {
    decoder.run();
  } catch (const Corrupt& corrupt) {
    problem = corrupt.message;
  }
  output.resize(decoder.written());
  if (!problem.empty()) return problem;
  if (output.size() != expected_size) {
    return fmt::format("at input byte {}: the stream ends after {} bytes of output, expected {}", input.size(),
                       output.size(), expected_size);
  }
  return {};
}

}  // namespace heapql
