// Every field of SourceRecord and SourceInfo is listed once, in `fields`,
// which both encodes and decodes. A field added to SourceInfo goes here too,
// with kFormatVersion raised (store_format.h).
#include "engine/store_file/source_record.h"

#include <limits>
#include <map>
#include <optional>
#include <type_traits>

namespace heapql::store_file {

namespace {

template <class IO>
void fields(IO& io, FileIdentity& f) {
  io(f.path), io(f.size), io(f.mtime_ns), io(f.head_tail_hash);
}

template <class IO>
void fields(IO& io, Anomalies& a) {
  io(a.unmatched_frees), io(a.double_frees), io(a.alloc_over_live), io(a.decreasing_timestamps),
      io(a.skipped_records);
}

template <class IO>
void fields(IO& io, TraceCut& c) {
  io(c.file), io(c.at_byte), io(c.left_over_bytes), io(c.what);
}

template <class IO, class Second>
void fields(IO& io, std::pair<std::string, Second>& p) {
  io(p.first), io(p.second);
}

template <class IO>
void fields(IO& io, SourceDetails& d) {
  io(d.source_line), io(d.json), io(d.table);
}

template <class IO>
void fields(IO& io, SourceInfo& s) {
  io(s.path), io(s.files), io(s.source), io(s.format), io(s.compression);
  io(s.block_identity), io(s.realloc_marked), io(s.threads), io(s.time_resolution_ns);
  io(s.command), io(s.peak_rss_bytes), io(s.embedded_suppressions), io(s.details);
  io(s.lines), io(s.anomalies), io(s.end_ns), io(s.cut);
  // Not s.live: only an answer from a live journal has it, never a store.
}

template <class IO>
void fields(IO& io, TracePeak& p) {
  io(p.bytes), io(p.blocks), io(p.time_ns);
}

template <class IO>
void fields(IO& io, SourceRecord& r) {
  io(r.files), io(r.reading), io(r.info), io(r.event_count), io(r.end_ns), io(r.peak);
}

class Encoder {
 public:
  ByteWriter out;
  template <class T>
  void operator()(const T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      out.u8(value ? 1 : 0);
    } else if constexpr (std::is_enum_v<T>) {
      out.u64(static_cast<std::uint64_t>(value));
    } else if constexpr (std::is_integral_v<T>) {
      out.u64(static_cast<std::uint64_t>(value));
    } else if constexpr (std::is_same_v<T, std::string>) {
      out.text(value);
    } else {
      fields(*this, const_cast<T&>(value));
    }
  }
  void operator()(const InfoValue& v) {
    (*this)(v.kind), (*this)(v.flag), (*this)(v.number), (*this)(v.text), (*this)(v.keys), (*this)(v.items);
  }
  template <class T>
  void operator()(const std::vector<T>& items) {
    out.u64(items.size());
    for (const T& item : items) (*this)(item);
  }
  template <class V>
  void operator()(const std::map<std::string, V>& items) {
    out.u64(items.size());
    for (const auto& [key, value] : items) {
      out.text(key);
      (*this)(value);
    }
  }
  template <class T>
  void operator()(const std::optional<T>& item) {
    out.u8(item ? 1 : 0);
    if (item) (*this)(*item);
  }
};

class Decoder {
 public:
  explicit Decoder(ByteReader& in) : in_(in) {}
  template <class T>
  void operator()(T& value) {
    if constexpr (std::is_same_v<T, bool>) {
      const std::uint8_t b = in_.u8();
      if (b > 1) in_.fail("a flag that is neither 0 nor 1");
      value = b == 1;
    } else if constexpr (std::is_enum_v<T>) {
      value = static_cast<T>(in_.u64());
    } else if constexpr (std::is_integral_v<T>) {
      const std::uint64_t v = in_.u64();
      if constexpr (sizeof(T) < 8) {
        if (v > std::numeric_limits<std::make_unsigned_t<T>>::max()) in_.fail("a value out of its field's range");
      }
      value = static_cast<T>(v);
    } else if constexpr (std::is_same_v<T, std::string>) {
      value = std::string(in_.text());
    } else {
      fields(*this, value);
    }
  }
  void operator()(InfoValue& v) { decode_value(v, 0); }
  template <class T>
  void operator()(std::vector<T>& items) {
    items.resize(static_cast<std::size_t>(in_.count(1)));
    for (T& item : items) (*this)(item);
  }
  template <class V>
  void operator()(std::map<std::string, V>& items) {
    const std::uint64_t n = in_.count(8);
    for (std::uint64_t i = 0; i < n; ++i) {
      std::string key(in_.text());
      (*this)(items[key]);
    }
  }
  template <class T>
  void operator()(std::optional<T>& item) {
    bool present = false;
    (*this)(present);
    if (present) (*this)(item.emplace());
  }

 private:
  // Details come from the file: their nesting is bounded (no reader nests
  // deeper than a few levels), so that a hostile store cannot exhaust the stack.
  static constexpr int kMaxDetailDepth = 16;

  void decode_value(InfoValue& v, int depth) {
    if (depth > kMaxDetailDepth) in_.fail("details nested too deep");
    (*this)(v.kind);
    if (v.kind > InfoValue::Kind::kObject) in_.fail("a detail of an unknown kind");
    (*this)(v.flag), (*this)(v.number), (*this)(v.text), (*this)(v.keys);
    v.items.resize(static_cast<std::size_t>(in_.count(1)));
    for (InfoValue& item : v.items) decode_value(item, depth + 1);
    const bool holds_items = v.kind == InfoValue::Kind::kArray || v.kind == InfoValue::Kind::kObject;
    if ((!holds_items && !v.items.empty()) || (v.kind == InfoValue::Kind::kObject ? v.keys.size() != v.items.size()
                                                                               : !v.keys.empty())) {
      in_.fail("a detail whose members do not match its kind");
    }
  }

  ByteReader& in_;
};

}  // namespace

std::string encode_source_record(const SourceRecord& record) {
  Encoder encoder;
  encoder(record);
  return std::move(encoder.out.bytes());
}

SourceRecord decode_source_record(ByteReader& in) {
  SourceRecord record;
  Decoder decoder(in);
  decoder(record);
  if (record.info.block_identity != BlockIdentity::kExact && record.info.block_identity != BlockIdentity::kBucketLifo) {
    in.fail("an unknown block identity");
  }
  if (!in.done()) in.fail("bytes after the source record");
  return record;
}

}  // namespace heapql::store_file
