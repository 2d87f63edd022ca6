// Little-endian values to and from bytes, for the store file's small
// sections. The reader checks every length against what is left and throws
// Error naming the file, the section and the byte offset.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/error.h"

namespace heapql::store_file {

class ByteWriter {
 public:
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u16(std::uint16_t v) { raw(&v, 2); }
  void u32(std::uint32_t v) { raw(&v, 4); }
  void u64(std::uint64_t v) { raw(&v, 8); }
  void i64(std::int64_t v) { raw(&v, 8); }
  void f64(double v) { raw(&v, 8); }
  void text(std::string_view s) {
    u64(s.size());
    out_.append(s);
  }
  std::string& bytes() { return out_; }

 private:
  void raw(const void* p, std::size_t n) { out_.append(static_cast<const char*>(p), n); }
  std::string out_;
};

class ByteReader {
 public:
  // `base_offset`: where `bytes` start in the file, for messages.
  ByteReader(std::string_view bytes, std::string file, std::string_view section, std::uint64_t base_offset)
      : bytes_(bytes), file_(std::move(file)), section_(section), base_(base_offset) {}

  std::uint8_t u8() { return take<std::uint8_t>(); }
  std::uint16_t u16() { return take<std::uint16_t>(); }
  std::uint32_t u32() { return take<std::uint32_t>(); }
  std::uint64_t u64() { return take<std::uint64_t>(); }
  std::int64_t i64() { return take<std::int64_t>(); }
  double f64() { return take<double>(); }
  std::string_view text() {
    const std::uint64_t n = u64();
    need(n, "a string");
    std::string_view s = bytes_.substr(at_, n);
    at_ += n;
    return s;
  }
  // A count of items of at least `item_bytes` each that must fit in what is left.
  std::uint64_t count(std::uint64_t item_bytes) {
    const std::uint64_t n = u64();
    if (item_bytes != 0 && n > (bytes_.size() - at_) / item_bytes) fail("a count larger than the section");
    return n;
  }
  bool done() const { return at_ == bytes_.size(); }
  // The bytes not read yet.
  std::string_view rest_view() const { return bytes_.substr(at_); }
  [[noreturn]] void fail(std::string_view what) const {
    SourceLocation where = SourceLocation::of_file(file_);
    where.byte_offset = base_ + at_;
    throw Error(where, std::string("store section '") + std::string(section_) + "': " + std::string(what));
  }

 private:
  void need(std::uint64_t n, std::string_view what) {
    if (n > bytes_.size() - at_) fail(std::string(what) + " runs past the section's end");
  }
  template <class T>
  T take() {
    need(sizeof(T), "a value");
    T v;
    std::memcpy(&v, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return v;
  }

  std::string_view bytes_;
  std::string file_;
  std::string_view section_;
  std::uint64_t base_;
  std::uint64_t at_ = 0;
};

}  // namespace heapql::store_file
