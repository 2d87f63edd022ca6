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

template <class IO>
void fields(IO& io, EtwInfo::ProcessName& p) {
  io(p.pid), io(p.name);
}

template <class IO>
void fields(IO& io, EtwInfo::Module& m) {
  io(m.name), io(m.loads), io(m.pdb);
}

template <class IO>
void fields(IO& io, EtwInfo::HeapHandle& h) {
  io(h.pid), io(h.handle), io(h.allocations), io(h.created), io(h.destroyed);
}

template <class IO>
void fields(IO& io, EtwInfo& e) {
  io(e.buffers), io(e.compressed_buffers), io(e.pointer_size), io(e.clock_type), io(e.perf_freq);
  io(e.logfile_headers), io(e.os_version), io(e.processors);
  io(e.events_by_header_kind), io(e.events_by_hook), io(e.skipped);
  io(e.processes), io(e.modules), io(e.heaps);
  io(e.heap_events), io(e.virtual_events), io(e.moving_reallocs), io(e.realloc_companions_dropped);
  io(e.recommitted_bytes), io(e.decommits_of_uncommitted), io(e.events_before_start);
  io(e.stack_walks), io(e.stack_walks_unattached), io(e.stack_key_uses), io(e.stack_keys_unresolved);
  io(e.events_with_stack), io(e.events_without_stack);
  io(e.symbols_requested), io(e.frames_symbolized), io(e.frames_unsymbolized_with_pdb);
  io(e.frames_outside_modules), io(e.pdbs_loaded), io(e.pdbs_missing), io(e.pdbs_mismatched);
  io(e.pdbs_unreadable);
}

template <class IO>
void fields(IO& io, SourceInfo& s) {
  io(s.path), io(s.files), io(s.source), io(s.format), io(s.compression);
  io(s.block_identity), io(s.realloc_marked), io(s.threads), io(s.time_resolution_ns);
  io(s.format_version), io(s.tracer_version), io(s.command), io(s.page_size), io(s.physical_pages);
  io(s.peak_rss_bytes), io(s.attached), io(s.embedded_suppressions), io(s.etw);
  io(s.lines), io(s.anomalies), io(s.end_ns), io(s.cut);
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
