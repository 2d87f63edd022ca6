// The test-only ETL writer and Xpress compressor (tests/support), checked
// against the format notes (../shared/formats/etw-heap.md §4) directly and
// against heapql's own reader: compressed streams round-trip through
// xpress_decompress, written files parse with EtlFile. Every trace here is
// SYNTHETIC.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "engine/ingest/etl/etl_file.h"
#include "engine/ingest/etl/xpress.h"
#include "tests/support/etl_writer.h"
#include "tests/support/etw_scenarios.h"
#include "tests/support/test_support.h"
#include "tests/support/xpress_compressor.h"

namespace heapql::test {
namespace {

using Bytes = std::vector<std::uint8_t>;

std::uint64_t le(const std::uint8_t* p, unsigned n) {
  std::uint64_t v = 0;
  for (unsigned i = 0; i < n; ++i) v |= std::uint64_t{p[i]} << (8 * i);
  return v;
}

Bytes random_bytes(std::size_t n, std::uint32_t seed) {
  std::mt19937 rng(seed);
  Bytes out(n);
  for (auto& b : out) b = static_cast<std::uint8_t>(rng());
  return out;
}

// Text-like data: words from a small vocabulary, so matches of every length
// and distance occur, plus occasional long runs.
Bytes repetitive_bytes(std::size_t n, std::uint32_t seed) {
  static const char* const words[] = {"HeapAlloc ", "HeapFree ", "ntdll.dll!RtlAllocateHeap ", "0x1a0000 ",
                                      "MemoryTestApp.exe ", "\x00\x00\x00\x00", "\xff\xff", "x"};
  std::mt19937 rng(seed);
  Bytes out;
  while (out.size() < n) {
    const std::uint32_t pick = rng() % 10;
    if (pick < 8) {
      const char* w = words[pick];
      const std::size_t len = pick == 5 ? 4 : std::strlen(w);
      out.insert(out.end(), w, w + len);
    } else if (pick == 8) {
      out.insert(out.end(), 20 + rng() % 400, static_cast<std::uint8_t>(rng()));
    } else {
      out.push_back(static_cast<std::uint8_t>(rng()));
    }
  }
  out.resize(n);
  return out;
}

void expect_round_trip(const Bytes& input, const XpressCompressOptions& options = {}) {
  const Bytes compressed = xpress_compress(input, options);
  Bytes output;
  const std::string error = xpress_decompress(compressed, input.size(), output);
  ASSERT_EQ(error, "") << "input size " << input.size();
  ASSERT_EQ(output.size(), input.size());
  EXPECT_TRUE(output == input) << "input size " << input.size();
}

const std::size_t kSizes[] = {0,    1,    2,    3,    4,     7,     8,     31,    32,     33,     63,
                              64,   65,   100,  255,  1000,  4095,  4096,  8191,  8192,   8193,   65464,
                              65536, 100'000, 300'000, 1 << 20};

TEST(XpressCompressor, RoundTripsRandomData) {
  for (std::size_t n : kSizes) expect_round_trip(random_bytes(n, static_cast<std::uint32_t>(n)));
}

TEST(XpressCompressor, RoundTripsRepetitiveData) {
  for (std::size_t n : kSizes) {
    expect_round_trip(repetitive_bytes(n, static_cast<std::uint32_t>(n) + 7));
    expect_round_trip(Bytes(n, 0));
    Bytes period7(n);
    for (std::size_t i = 0; i < n; ++i) period7[i] = static_cast<std::uint8_t>(i % 7);
    expect_round_trip(period7);
  }
}

TEST(XpressCompressor, RoundTripsWithCappedMatchLengthsAndNoMatches) {
  const Bytes data = repetitive_bytes(200'000, 99);
  for (std::uint32_t cap : {3u, 9u, 10u, 24u, 25u, 279u, 280u, 65538u}) {
    XpressCompressOptions options;
    options.max_match = cap;
    expect_round_trip(data, options);
  }
  XpressCompressOptions literals_only;
  literals_only.max_chain = 0;
  expect_round_trip(data, literals_only);
}

// Every length form of MS-XCA §2.3 is produced (and, above, decoded back).
TEST(XpressCompressor, EmitsEveryLengthForm) {
  XpressStreamStats total;
  auto add = [&](const Bytes& data) {
    XpressStreamStats stats;
    const Bytes compressed = xpress_compress(data, {}, stats);
    Bytes output;
    ASSERT_EQ(xpress_decompress(compressed, data.size(), output), "");
    ASSERT_TRUE(output == data);
    total.literals += stats.literals;
    total.short_matches += stats.short_matches;
    total.nibble_matches += stats.nibble_matches;
    total.byte_matches += stats.byte_matches;
    total.word_matches += stats.word_matches;
    total.dword_matches += stats.dword_matches;
  };
  add(repetitive_bytes(1 << 20, 5));
  add(Bytes(1 << 20, 0xAB));  // one literal, then a match longer than 65538
  EXPECT_GT(total.literals, 0u);
  EXPECT_GT(total.short_matches, 0u);
  EXPECT_GT(total.nibble_matches, 1u);  // at least two: the shared half-byte's both halves
  EXPECT_GT(total.byte_matches, 0u);
  EXPECT_GT(total.word_matches, 0u);
  EXPECT_GT(total.dword_matches, 0u);
}

TEST(XpressCompressor, ShrinksRepetitiveData) {
  const Bytes data = repetitive_bytes(64 * 1024, 3);
  EXPECT_LT(xpress_compress(data).size(), data.size() / 2);
}

// --- the container, checked against the format notes directly ----------------

struct RawBuffer {
  std::size_t offset;
  std::uint32_t size, saved_offset, client_context;
  std::uint16_t flags, type;
};

std::vector<RawBuffer> raw_buffers(const Bytes& file) {
  std::vector<RawBuffer> buffers;
  for (std::size_t off = 0; off + 72 <= file.size();) {
    const std::uint8_t* b = &file[off];
    RawBuffer raw{off,
                  static_cast<std::uint32_t>(le(b, 4)),
                  static_cast<std::uint32_t>(le(b + 4, 4)),
                  static_cast<std::uint32_t>(le(b + 0x28, 4)),
                  static_cast<std::uint16_t>(le(b + 0x34, 2)),
                  static_cast<std::uint16_t>(le(b + 0x36, 2))};
    buffers.push_back(raw);
    if (raw.size < 72) break;
    off += raw.size;
  }
  return buffers;
}

TEST(EtlWriterLayout, HeaderBufferAndLogfileHeaderFollowTheNotes) {
  for (unsigned p : {4u, 8u}) {
    EtlWriterOptions options;
    options.pointer_size = p;
    options.buffer_size = 4096;
    const Bytes file = empty_trace(options);
    ASSERT_EQ(file.size(), 4096u);
    const auto buffers = raw_buffers(file);
    ASSERT_EQ(buffers.size(), 1u);
    EXPECT_EQ(buffers[0].type, 4);
    const std::uint8_t* record = &file[72];
    EXPECT_EQ(record[2], p == 8 ? 0x02 : 0x01);  // SYSTEM64 / SYSTEM32
    EXPECT_EQ(le(record + 6, 2), 0u);           // hook 0x0000
    const std::uint64_t record_size = le(record + 4, 2);
    const std::uint8_t* header = record + 32;
    const std::size_t fixed = p == 8 ? 280 : 272;
    EXPECT_EQ(le(header + 44, 4), p);                                       // PointerSize
    EXPECT_EQ(le(header + (p == 8 ? 256 : 248), 8), options.perf_freq);     // PerfFreq
    EXPECT_EQ(le(header + (p == 8 ? 264 : 256), 8), options.start_filetime);  // StartTime
    EXPECT_EQ(le(header + (p == 8 ? 272 : 264), 4), options.clock_type);    // ReservedFlags
    // Two NUL-terminated UTF-16 names follow the fixed part.
    const std::size_t names = (options.logger_name.size() + 1 + options.log_file_name.size() + 1) * 2;
    EXPECT_EQ(record_size, 32 + fixed + names);
    EXPECT_EQ(le(header + fixed, 2), u'h');
    // Filler after SavedOffset.
    for (std::size_t i = buffers[0].saved_offset; i < file.size(); ++i) ASSERT_EQ(file[i], 0xFF) << i;
  }
}

TEST(EtlWriterLayout, BuffersPerProcessorCompressedWhenSmaller) {
  EtlWriterOptions options;
  options.buffer_size = 4096;
  options.compress = true;
  EtlWriter writer(options);
  memory_test_app(writer);
  const Bytes file = writer.bytes();
  const auto buffers = raw_buffers(file);
  ASSERT_EQ(buffers.size(), writer.buffer_count());
  std::size_t compressed = 0, end = 0;
  for (const RawBuffer& b : buffers) {
    EXPECT_TRUE(b.flags & 0x20);
    EXPECT_LT(b.client_context & 0xFFFF, options.processors);
    EXPECT_EQ(b.client_context >> 16, options.logger_id);
    if (b.flags & 0x40) {
      ++compressed;
      EXPECT_LE(b.saved_offset, options.buffer_size);
      Bytes data;
      ASSERT_EQ(xpress_decompress({&file[b.offset + 72], b.size - 72u}, b.saved_offset - 72u, data), "");
    } else {
      EXPECT_EQ(b.size, options.buffer_size);
    }
    end = b.offset + b.size;
  }
  EXPECT_EQ(end, file.size());
  EXPECT_EQ(compressed, writer.compressed_buffer_count());
  EXPECT_EQ(compressed, buffers.size() - 1);  // all but the header buffer
}

// A buffer whose records do not compress stays uncompressed.
TEST(EtlWriterLayout, IncompressibleBufferIsWrittenPlain) {
  EtlWriterOptions options;
  options.buffer_size = 4096;
  options.compress = true;
  EtlWriter writer(options);
  writer.system(0, 0x0F2E, 2, 1, 2, writer.ticks_at_ms(1), random_bytes(3000, 1));
  writer.finish();
  EXPECT_EQ(writer.compressed_buffer_count(), 0u);
  EXPECT_EQ(writer.bytes().size(), 2u * 4096u);
}

// --- the files, read back with heapql's EtlFile -------------------------------

struct ReadBack {
  EtlLogfileHeader header;
  EtlContainerStats stats;
  std::map<std::uint16_t, std::uint64_t> classic_by_hook;
  std::vector<EtlRecord> records;  // payloads not kept
  std::vector<Bytes> payloads;
};

ReadBack read_back(const std::string& path) {
  EtlFile file(path);
  ReadBack back;
  file.read([&](const EtlRecord& record) {
    if (record.classic) ++back.classic_by_hook[record.hook];
    back.records.push_back(record);
    back.records.back().payload = {};
    back.payloads.emplace_back(record.payload.begin(), record.payload.end());
  });
  back.header = file.header();
  back.stats = file.stats();
  return back;
}

std::map<std::string, std::uint64_t> names_of(const std::map<EtlHeaderKind, std::uint64_t>& by_kind) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [kind, count] : by_kind) out[std::string(etl_header_kind_name(kind))] += count;
  return out;
}

struct Variant {
  unsigned pointer_size;
  bool compress;
  std::uint32_t clock_type;
  std::uint64_t perf_freq;
  std::uint32_t buffer_size;
};

TEST(EtlWriterReadBack, MemoryTestAppParsesInEveryVariant) {
  const Variant variants[] = {{8, false, 1, 10'000'000, 64 * 1024}, {8, true, 1, 10'000'000, 64 * 1024},
                              {4, false, 1, 3'579'545, 8192},       {4, true, 2, 10'000'000, 4096},
                              {8, true, 3, 10'000'000, 4096}};
  for (const Variant& v : variants) {
    SCOPED_TRACE(testing::Message() << "P=" << v.pointer_size << " compress=" << v.compress
                                    << " clock=" << v.clock_type << " buffer=" << v.buffer_size);
    TempDir dir;
    EtlWriterOptions options;
    options.pointer_size = v.pointer_size;
    options.compress = v.compress;
    options.clock_type = v.clock_type;
    options.perf_freq = v.perf_freq;
    options.buffer_size = v.buffer_size;
    EtlWriter writer(options);
    MemoryTestAppOptions app;
    app.exe_pdb = RsdsIdentity{etl_guid("0123abcd-4567-89ef-0123-456789abcdef"), 3, "MemoryTestApp.pdb"};
    const MemoryTestAppTrace trace = memory_test_app(writer, app);
    const std::string path = dir.file("app.etl");
    writer.write(path);
    ASSERT_TRUE(EtlFile::sniff(path));
    const ReadBack back = read_back(path);

    EXPECT_EQ(back.header.pointer_size, v.pointer_size);
    EXPECT_EQ(back.header.clock_type, v.clock_type);
    EXPECT_EQ(back.header.perf_freq, v.perf_freq);
    EXPECT_EQ(back.header.buffer_size, v.buffer_size);
    EXPECT_EQ(back.header.processors, options.processors);
    EXPECT_EQ(back.header.start_time_filetime, options.start_filetime);
    EXPECT_EQ(back.header.header_timestamp, options.header_timestamp);
    EXPECT_EQ(back.stats.records, writer.record_count());
    EXPECT_EQ(back.stats.records, trace.counts.total() + 1);
    EXPECT_EQ(back.stats.buffers, writer.buffer_count());
    EXPECT_EQ(back.stats.compressed_buffers, writer.compressed_buffer_count());
    EXPECT_EQ(back.stats.records_by_header_kind, names_of(writer.records_by_kind()));
    EXPECT_EQ(back.stats.logfile_headers, 1u);

    EXPECT_EQ(back.classic_by_hook.at(hook::kHeapAlloc), trace.counts.heap_alloc);
    EXPECT_EQ(back.classic_by_hook.at(hook::kHeapRealloc), trace.counts.heap_realloc);
    EXPECT_EQ(back.classic_by_hook.at(hook::kHeapFree), trace.counts.heap_free);
    EXPECT_EQ(back.classic_by_hook.at(hook::kVirtualAlloc), trace.counts.virtual_alloc);
    EXPECT_EQ(back.classic_by_hook.at(hook::kVirtualFree), trace.counts.virtual_free);
    EXPECT_EQ(back.classic_by_hook.at(hook::kStackWalk), trace.counts.stack_walk);
    EXPECT_EQ(back.classic_by_hook.at(hook::kStackKeyUser), trace.counts.stack_key_user);
    EXPECT_EQ(back.classic_by_hook.at(hook::kStackKeyRundown), trace.counts.key_rundown);
    EXPECT_EQ(back.classic_by_hook.at(hook::kImageLoad), trace.counts.image_load);

    // Each processor's records are in time order; the file as a whole is not
    // (when there is more than one data buffer per processor). The reader
    // hands them over merged by time.
    std::vector<const EtlRecord*> in_file_order;
    for (const EtlRecord& r : back.records) in_file_order.push_back(&r);
    std::stable_sort(in_file_order.begin(), in_file_order.end(), [](const EtlRecord* a, const EtlRecord* b) {
      return std::pair(a->buffer_offset, a->offset_in_buffer) < std::pair(b->buffer_offset, b->offset_in_buffer);
    });
    std::map<std::uint32_t, std::int64_t> last_by_processor;
    bool file_in_time_order = true;
    std::int64_t last = 0;
    for (const EtlRecord* r : in_file_order) {
      auto [it, fresh] = last_by_processor.emplace(r->processor, r->timestamp);
      if (!fresh) {
        EXPECT_GE(r->timestamp, it->second);
        it->second = r->timestamp;
      }
      if (r->timestamp < last) file_in_time_order = false;
      last = std::max(last, r->timestamp);
    }
    if (v.buffer_size <= 8192) {
      EXPECT_FALSE(file_in_time_order);
    }
    EXPECT_TRUE(std::is_sorted(back.records.begin(), back.records.end(),
                               [](const EtlRecord& a, const EtlRecord& b) { return a.timestamp < b.timestamp; }));
    EXPECT_EQ(back.stats.records_out_of_time_order, 0u);

    // Payload layout (§3.2): the HeapAlloc sizes and addresses of the description.
    std::vector<std::pair<std::uint64_t, std::uint64_t>> allocs, expected;
    const unsigned p = v.pointer_size;
    for (std::size_t i = 0; i < back.records.size(); ++i) {
      const EtlRecord& r = back.records[i];
      if (!r.classic || r.hook != hook::kHeapAlloc) continue;
      EXPECT_EQ(r.kind, p == 8 ? EtlHeaderKind::kSystem64 : EtlHeaderKind::kSystem32);
      EXPECT_EQ(r.process, trace.pid);
      ASSERT_EQ(back.payloads[i].size(), p == 8 ? 28u : 16u);
      EXPECT_EQ(le(&back.payloads[i][0], p), trace.heap);
      allocs.emplace_back(le(&back.payloads[i][2 * p], p), le(&back.payloads[i][p], p));
    }
    for (const auto& block : trace.heap_blocks) expected.emplace_back(block.address, block.size);
    std::sort(allocs.begin(), allocs.end());
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(allocs, expected);
  }
}

TEST(EtlWriterReadBack, EmptyAndSingleAllocTraces) {
  TempDir dir;
  {
    const std::string path = dir.file("empty.etl");
    const Bytes bytes = empty_trace();
    write_file(path, std::string(bytes.begin(), bytes.end()));
    const ReadBack back = read_back(path);
    EXPECT_EQ(back.stats.records, 1u);
    EXPECT_EQ(back.stats.buffers, 1u);
    EXPECT_EQ(back.header.perf_freq, 10'000'000u);
  }
  {
    EtlWriter writer;
    const SingleAllocTrace trace = single_alloc_free(writer);
    const std::string path = dir.file("single.etl");
    writer.write(path);
    const ReadBack back = read_back(path);
    EXPECT_EQ(back.stats.records, trace.counts.total() + 1);
    ASSERT_EQ(back.classic_by_hook.at(hook::kStackWalk), 1u);
    for (std::size_t i = 0; i < back.records.size(); ++i) {
      if (back.records[i].hook != hook::kStackWalk) continue;
      const Bytes& payload = back.payloads[i];
      ASSERT_EQ(payload.size(), 24u);
      EXPECT_EQ(static_cast<std::int64_t>(le(&payload[0], 8)), writer.ticks_at_ns(trace.alloc_ns));
      EXPECT_EQ(le(&payload[8], 4), trace.pid);
      EXPECT_EQ(le(&payload[12], 4), trace.tid);
      EXPECT_EQ(le(&payload[16], 8), trace.image.base + trace.frame_offset);
    }
  }
}

TEST(EtlWriterReadBack, GenericAppendersProduceEveryHeaderKind) {
  TempDir dir;
  EtlWriter writer;
  const EtlGuid guid = etl_guid("3d6fa8d0-fe05-11d0-9dda-00c04fd7ba7c");
  const Bytes payload = {1, 2, 3, 4, 5};
  for (unsigned p : {4u, 8u}) {
    writer.system(0, 0x1021, 2, 7, 8, writer.ticks_at_ms(1), payload, p);
    writer.compact(0, 0x1021, 2, 7, 8, writer.ticks_at_ms(2), payload, p);
    writer.perfinfo(1, 0x1820, 2, writer.ticks_at_ms(3), payload, p);
    writer.full(1, guid, 0x24, 2, 7, 8, writer.ticks_at_ms(4), payload, p);
    writer.event_header(1, guid, 17, 1, 10, 7, 8, writer.ticks_at_ms(5), payload, p);
  }
  const std::string path = dir.file("kinds.etl");
  writer.write(path);
  const ReadBack back = read_back(path);
  EXPECT_EQ(back.stats.records_by_header_kind, names_of(writer.records_by_kind()));
  EXPECT_EQ(back.stats.records_by_header_kind.size(), 10u);
  for (std::size_t i = 1; i < back.records.size(); ++i) {
    EXPECT_EQ(back.payloads[i], payload) << etl_header_kind_name(back.records[i].kind);
    if (!back.records[i].classic) {
      EXPECT_EQ(back.records[i].guid, guid);
    }
  }
}

TEST(EtlWriter, GuidTextIsStoredInFileOrder) {
  const EtlGuid guid = etl_guid("b3e675d7-2554-4f18-830b-2762732560de");
  EXPECT_EQ(guid[0], 0xd7);
  EXPECT_EQ(guid[3], 0xb3);
  EXPECT_EQ(guid[4], 0x54);
  EXPECT_EQ(guid[6], 0x18);
  EXPECT_EQ(guid[8], 0x83);
  EXPECT_EQ(guid[15], 0xde);
  EXPECT_EQ(etl_guid_text(guid), "b3e675d7-2554-4f18-830b-2762732560de");
}

}  // namespace
}  // namespace heapql::test
