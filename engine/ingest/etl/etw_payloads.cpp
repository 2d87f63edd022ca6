#include "engine/ingest/etl/etw_payloads.h"

#include <fmt/format.h>

#include <cstring>

#include "engine/error.h"

namespace heapql {

namespace {

// Reads little-endian fields of one payload; every read is bounds-checked and
// a short payload is an error naming the event and the size its layout needs.
class PayloadReader {
 public:
  PayloadReader(const EtlRecord& r, const std::string& file, std::string_view event)
      : r_(r), file_(file), event_(event) {}

  std::size_t pointer_size() const { return r_.pointer_size; }
  std::size_t size() const { return r_.payload.size(); }

  void require(std::size_t bytes) const {
    if (r_.payload.size() < bytes) {
      fail(fmt::format("{} payload is {} bytes, its layout (version {}, {}-byte pointers) needs at least {}", event_,
                       r_.payload.size(), r_.version, r_.pointer_size, bytes));
    }
  }

  [[noreturn]] void fail(const std::string& what) const {
    throw Error(SourceLocation{file_, {}, {}, r_.buffer_offset},
                fmt::format("buffer at byte {}, record at +{}: {}", r_.buffer_offset, r_.offset_in_buffer, what));
  }

  std::uint64_t uint(std::size_t offset, std::size_t bytes) const {
    require(offset + bytes);
    std::uint64_t value = 0;
    for (std::size_t i = 0; i < bytes; ++i) value |= std::uint64_t{r_.payload[offset + i]} << (8 * i);
    return value;
  }
  std::uint32_t u32(std::size_t offset) const { return static_cast<std::uint32_t>(uint(offset, 4)); }
  std::uint64_t u64(std::size_t offset) const { return uint(offset, 8); }
  std::uint64_t pointer(std::size_t offset) const { return uint(offset, r_.pointer_size); }

  // A NUL-terminated 8-bit string at `offset`; returns the offset after the NUL.
  std::size_t ansi(std::size_t offset, std::string& out) const {
    require(offset + 1);
    std::size_t end = offset;
    while (end < r_.payload.size() && r_.payload[end] != 0) ++end;
    if (end == r_.payload.size()) fail(fmt::format("{}: the string at payload byte {} has no terminating NUL", event_, offset));
    out.assign(reinterpret_cast<const char*>(r_.payload.data() + offset), end - offset);
    return end + 1;
  }

  // A NUL-terminated UTF-16 string at `offset`, converted to UTF-8. A string
  // cut off by the payload's end is taken as it is (some writers omit the NUL).
  std::string utf16(std::size_t offset) const {
    require(offset);
    std::string out;
    std::size_t i = offset;
    while (i + 1 < r_.payload.size()) {
      std::uint32_t unit = r_.payload[i] | (std::uint32_t{r_.payload[i + 1]} << 8);
      i += 2;
      if (unit == 0) break;
      std::uint32_t code = unit;
      if (unit >= 0xD800 && unit < 0xDC00 && i + 1 < r_.payload.size()) {
        const std::uint32_t low = r_.payload[i] | (std::uint32_t{r_.payload[i + 1]} << 8);
        if (low >= 0xDC00 && low < 0xE000) {
          code = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00);
          i += 2;
        }
      }
      if (code >= 0xD800 && code < 0xE000) code = 0xFFFD;  // a lone surrogate
      append_utf8(out, code);
    }
    return out;
  }

 private:
  static void append_utf8(std::string& out, std::uint32_t code) {
    if (code < 0x80) {
      out.push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out.push_back(static_cast<char>(0xC0 | (code >> 6)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else if (code < 0x10000) {
      out.push_back(static_cast<char>(0xE0 | (code >> 12)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    } else {
      out.push_back(static_cast<char>(0xF0 | (code >> 18)));
      out.push_back(static_cast<char>(0x80 | ((code >> 12) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | ((code >> 6) & 0x3F)));
      out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
    }
  }

  const EtlRecord& r_;
  const std::string& file_;
  std::string_view event_;
};

// Windows caps a stack walk at 192 frames (ntwmi sizes its arrays so;
// TraceEvent says 96). A record may hold up to ~8k; each frame is resolved
// again for every event that uses the stack whenever its process's module map
// changes, so a few huge stacks shared through stack keys would cost far more
// than their bytes. Refuse them rather than truncate silently.
constexpr std::size_t kMaxStackFrames = 1024;

std::vector<std::uint64_t> frame_list(const PayloadReader& p, std::size_t offset, std::string_view event) {
  const std::size_t count = (p.size() - offset) / p.pointer_size();
  if (count > kMaxStackFrames) {
    p.fail(fmt::format("{} has {} frames; heapql reads at most {} (Windows stack walks stop at 192)", event, count,
                       kMaxStackFrames));
  }
  std::vector<std::uint64_t> frames;
  frames.reserve(count);
  for (std::size_t i = 0; i < count; ++i) frames.push_back(p.pointer(offset + i * p.pointer_size()));
  return frames;
}

}  // namespace

HeapAllocPayload decode_heap_alloc(const EtlRecord& r, const std::string& file) {
  PayloadReader p(r, file, "HeapAlloc");
  const std::size_t ptr = p.pointer_size();
  p.require(3 * ptr + 4);
  return {p.pointer(0), p.pointer(ptr), p.pointer(2 * ptr)};
}

HeapFreePayload decode_heap_free(const EtlRecord& r, const std::string& file) {
  PayloadReader p(r, file, "HeapFree");
  const std::size_t ptr = p.pointer_size();
  p.require(2 * ptr + 4);
  return {p.pointer(0), p.pointer(ptr)};
}

HeapReallocPayload decode_heap_realloc(const EtlRecord& r, const std::string& file) {
  PayloadReader p(r, file, "HeapRealloc");
  const std::size_t ptr = p.pointer_size();
  p.require(5 * ptr + 4);
  return {p.pointer(0), p.pointer(ptr), p.pointer(2 * ptr), p.pointer(3 * ptr), p.pointer(4 * ptr)};
}

HeapHandlePayload decode_heap_handle(const EtlRecord& r, const std::string& file, std::string_view event) {
  PayloadReader p(r, file, event);
  p.require(p.pointer_size());
  return {p.pointer(0)};
}

VirtualAllocPayload decode_virtual_alloc(const EtlRecord& r, const std::string& file) {
  PayloadReader p(r, file, r.hook == etw_hook::kVirtualFree ? "VirtualFree" : "VirtualAlloc");
  const std::size_t ptr = p.pointer_size();
  p.require(2 * ptr + 8);
  return {p.pointer(0), p.pointer(ptr), p.u32(2 * ptr), p.u32(2 * ptr + 4)};
}

StackWalkPayload decode_stack_walk(const EtlRecord& r, const std::string& file) {
  PayloadReader p(r, file, "StackWalk");
  p.require(16);
  StackWalkPayload s;
  s.event_timestamp = static_cast<std::int64_t>(p.u64(0));
  s.process = p.u32(8);
  s.thread = p.u32(12);
  s.frames = frame_list(p, 16, "StackWalk");
  return s;
}

StackKeyPayload decode_stack_key(const EtlRecord& r, const std::string& file) {
  PayloadReader p(r, file, r.hook == etw_hook::kStackKeyKernel ? "StackKeyKernel" : "StackKeyUser");
  p.require(16 + p.pointer_size());
  return {static_cast<std::int64_t>(p.u64(0)), p.u32(8), p.u32(12), p.pointer(16)};
}

StackKeyDefinitionPayload decode_stack_key_definition(const EtlRecord& r, const std::string& file) {
  const std::string_view event = r.hook == etw_hook::kStackKeyDelete ? "StackKeyDelete" : "StackKeyRundown";
  PayloadReader p(r, file, event);
  p.require(p.pointer_size());
  return {p.pointer(0), frame_list(p, p.pointer_size(), event)};
}

ProcessPayload decode_process(const EtlRecord& r, const std::string& file) {
  PayloadReader p(r, file, "Process");
  const std::size_t ptr = p.pointer_size();
  // Versions 2-4 (etw-heap.md §3.6); v2 lacks DirectoryTableBase, v4 adds Flags.
  std::size_t sid;
  switch (r.version) {
    case 2: sid = ptr + 16; break;
    case 3: sid = 2 * ptr + 16; break;
    default: sid = 2 * ptr + 20; break;  // 4 and later append at the end
  }
  ProcessPayload out;
  out.process = p.u32(ptr);
  std::size_t name;
  if (p.u32(sid) == 0) {
    name = sid + 4;
  } else {
    const std::size_t sid_body = sid + 2 * ptr;  // TOKEN_USER, then the SID
    const std::size_t sub_authorities = static_cast<std::size_t>(p.uint(sid_body + 1, 1));
    name = sid_body + 8 + 4 * sub_authorities;
  }
  p.ansi(name, out.image_name);
  return out;
}

ImagePayload decode_image(const EtlRecord& r, const std::string& file) {
  PayloadReader p(r, file, "Image");
  const std::size_t ptr = p.pointer_size();
  ImagePayload out;
  out.base = p.pointer(0);
  out.size = p.pointer(ptr);
  out.process = p.u32(2 * ptr);
  out.file_name = p.utf16(3 * ptr + 32);
  return out;
}

std::optional<std::uint16_t> classic_hook_of(const EtlRecord& record) {
  if (record.classic) return record.hook;
  std::uint16_t group = 0;
  if (record.guid == kHeapProviderGuid) {
    group = 0x10;
  } else if (record.guid == kPageFaultGuid) {
    group = 0x02;
  } else {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(group << 8 | record.opcode);
}

RsdsPayload decode_rsds(const EtlRecord& r, const std::string& file) {
  PayloadReader p(r, file, "ImageID/DbgID_RSDS");
  const std::size_t ptr = p.pointer_size();
  p.require(ptr + 25);
  RsdsPayload out;
  out.image_base = p.pointer(0);
  out.process = p.u32(ptr);
  for (std::size_t i = 0; i < 16; ++i) out.guid[i] = static_cast<std::uint8_t>(p.uint(ptr + 4 + i, 1));
  out.age = p.u32(ptr + 20);
  p.ansi(ptr + 24, out.pdb_name);
  return out;
}

}  // namespace heapql
