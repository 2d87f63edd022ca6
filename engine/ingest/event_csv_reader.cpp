#include "engine/ingest/event_csv_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <system_error>
#include <unordered_map>
#include <vector>

#include "engine/error.h"
#include "engine/platform/errno_text.h"
#include "engine/warnings.h"
#include "engine/file_base_name.h"
#include "engine/ingest/progress_bar.h"
#include "engine/ingest/block_matcher.h"
#include "engine/units.h"
#include "engine/util/recently_freed.h"
#include "engine/platform/file_status.h"
#include "engine/platform/open_file.h"

namespace heapql {

namespace {

enum Column : std::size_t { kTime, kEvent, kProcess, kThread, kHeap, kAddress, kSize, kOldAddress, kStack, kColumnCount };
constexpr std::array<std::string_view, kColumnCount> kColumnNames = {
    "time", "event", "process", "thread", "heap", "address", "size", "old_address", "stack"};

constexpr std::size_t kSniffBytes = 64 * 1024;
constexpr std::size_t kReadChunk = 64 * 1024;
constexpr std::uint64_t kMaxListedWarnings = 10;
constexpr std::string_view kUtf8Bom = "\xEF\xBB\xBF";
constexpr std::string_view kTimeExpected = "expected a time such as 1.5s, 250us or a whole number of nanoseconds";
constexpr std::string_view kSizeExpected = "expected a size in bytes such as 4096 or 4KiB";
constexpr std::string_view kAddressExpected = "expected a hex address such as 0x7f3a2c";
// Named heaps have no handle of their own; they are numbered down from the
// top of the 64-bit range, far from real handles (docs/import.md).
constexpr std::uint64_t kFirstNamedHeapHandle = std::numeric_limits<std::uint64_t>::max();

// Input quoted in a message: cut to a few dozen bytes, control and non-ASCII
// bytes escaped, so a hostile line cannot flood or garble the terminal.
std::string quoted(std::string_view text) {
  constexpr std::size_t kShown = 40;
  std::string out = "\"";
  for (std::size_t i = 0; i < text.size() && i < kShown; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  out += '"';
  if (text.size() > kShown) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

bool is_blank(std::string_view line) { return line.find_first_not_of(" \t") == std::string_view::npos; }

std::string_view trim(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// Digits only, no sign or space; nullopt when not that or out of range.
std::optional<std::uint64_t> parse_decimal(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool all_digits(std::string_view text) {
  return !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
}

// `0x` (or `0X`) and 1-16 hex digits of either case.
std::optional<std::uint64_t> parse_hex(std::string_view text) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
  text.remove_prefix(2);
  if (text.size() > 16 || text.find_first_not_of("0123456789abcdefABCDEF") != std::string_view::npos) {
    return std::nullopt;
  }
  std::uint64_t value = 0;
  std::from_chars(text.data(), text.data() + text.size(), value, 16);
  return value;
}

bool looks_hex(std::string_view text) { return text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X'); }

// A duration as users read it, unless that rounds: then exact nanoseconds.
std::string exact_duration(std::int64_t ns) {
  std::string text = format_duration(ns);
  if (parse_duration_ns(text) != ns) text = fmt::format("{}ns", ns);
  return text;
}

// The size of an open regular file; 0 for anything else (a pipe) or unknown.
std::uint64_t regular_file_size(std::FILE* file) {
  if (file == nullptr) return 0;
  const std::optional<FileStatus> status = status_of_fd(fileno(file));
  return status && status->regular() ? status->size : 0;
}

// Lines of a plain text file, read in chunks into one fixed buffer: a line
// longer than kEventCsvMaxLineBytes (or a binary file with no line breaks)
// is an error after at most that many bytes, never a growing buffer.
// show_progress: a progress bar on stderr while reading (progress_bar.h).
class LineSource {
 public:
  LineSource(const std::string& path, std::size_t max_bytes_read, bool show_progress,
             std::optional<std::string_view> bytes = std::nullopt)
      : path_(path),
        memory_(bytes),
        file_(bytes ? nullptr : open_stdio_file(path, "rb"), &close_stream),
        progress_(path, regular_file_size(file_.get()), show_progress),
        max_bytes_read_(max_bytes_read) {
    if (!file_ && !memory_) {
      throw Error(SourceLocation::of_file(path), fmt::format("cannot open: {}", errno_text(errno)));
    }
    buffer_ = std::make_unique_for_overwrite<char[]>(kCapacity);
  }

  // The next line without its '\n' (a last line without one is still a
  // line). False at the end of the file, or once max_bytes_read is read.
  bool next(std::string_view& line) {
    for (;;) {
      if (const void* newline = std::memchr(buffer_.get() + scan_, '\n', end_ - scan_)) {
        const auto at = static_cast<std::size_t>(static_cast<const char*>(newline) - buffer_.get());
        check_length(at - begin_);
        return take(at, at + 1, line);
      }
      scan_ = end_;
      check_length(end_ - begin_);
      if (eof_) return begin_ != end_ && take(end_, end_, line);
      fill();
    }
  }

  std::uint64_t line_number() const { return line_number_; }

  // Erases the progress bar before other output on stderr (it comes back at
  // the next read).
  void clear_progress() { progress_.clear(); }

 private:
  static constexpr std::size_t kCapacity = kEventCsvMaxLineBytes + 1 + kReadChunk;

  bool take(std::size_t line_end, std::size_t next_begin, std::string_view& line) {
    line = std::string_view(buffer_.get() + begin_, line_end - begin_);
    begin_ = scan_ = next_begin;
    ++line_number_;
    return true;
  }

  void check_length(std::size_t length) const {
    if (length > kEventCsvMaxLineBytes) {
      throw Error(SourceLocation{path_, line_number_ + 1, {}, {}},
                  fmt::format("the line is longer than {} bytes (is this an event CSV file?)", kEventCsvMaxLineBytes));
    }
  }

  void fill() {
    // Keep the partial line; move it to the front when too little room is left
    // behind it (it is at most the longest line, so a chunk always fits).
    if (kCapacity - end_ < kReadChunk) {
      std::memmove(buffer_.get(), buffer_.get() + begin_, end_ - begin_);
      end_ -= begin_;
      scan_ -= begin_;
      begin_ = 0;
    }
    const std::size_t room = std::min(kCapacity - end_, max_bytes_read_ - bytes_read_);
    const std::size_t got = room == 0 ? 0 : read(buffer_.get() + end_, room);
    if (got == 0) {
      if (file_ && std::ferror(file_.get())) {
        throw Error(SourceLocation::of_file(path_),
                    fmt::format("cannot read: {}", errno_text(errno)));
      }
      eof_ = true;
      progress_.finish();
    }
    end_ += got;
    bytes_read_ += got;
    progress_.update(bytes_read_);
  }

  // From the file, or from the bytes given instead.
  std::size_t read(char* into, std::size_t room) {
    if (!memory_) return std::fread(into, 1, room, file_.get());
    const std::size_t got = std::min(room, memory_->size());
    std::memcpy(into, memory_->data(), got);
    memory_->remove_prefix(got);
    return got;
  }

  static int close_stream(std::FILE* file) { return file != nullptr ? std::fclose(file) : 0; }

  std::string path_;
  std::optional<std::string_view> memory_;  // the bytes not yet read, when given instead of a file
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  ProgressBar progress_;
  std::size_t max_bytes_read_;
  std::unique_ptr<char[]> buffer_;
  std::size_t begin_ = 0, scan_ = 0, end_ = 0;  // [begin_, end_) unread; [begin_, scan_) has no '\n'
  bool eof_ = false;
  std::size_t bytes_read_ = 0;
  std::uint64_t line_number_ = 0;
};

struct Field {
  std::string_view text;  // unquoted
  std::uint64_t column;   // 1-based byte column where the field starts (its opening quote, if quoted)
};

// Splits a line into fields, RFC 4180 style: a field that starts with '"'
// runs to the next lone '"' ("" inside stands for one '"') and must end on
// its line; '"' elsewhere is an error. Unquoted text goes to `unquoted`,
// reserved to the line's size first so the views into it stay valid.
void split_fields(std::string_view line, std::vector<Field>& fields, std::string& unquoted,
                  const std::function<void(std::uint64_t, const std::string&)>& fail) {
  fields.clear();
  unquoted.clear();
  unquoted.reserve(line.size());
  std::size_t i = 0;
  for (;;) {
    const std::size_t start = i;
    if (i < line.size() && line[i] == '"') {
      const std::size_t out_begin = unquoted.size();
      for (++i;; ++i) {
        if (i >= line.size()) {
          fail(start + 1, "unterminated quoted field: the closing '\"' is missing (a quoted field must end on its line)");
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            unquoted += '"';
            ++i;
            continue;
          }
          ++i;
          break;
        }
        unquoted += line[i];
      }
      fields.push_back(Field{std::string_view(unquoted).substr(out_begin), start + 1});
      if (i < line.size() && line[i] != ',') {
        fail(i + 1, fmt::format("expected ',' or the end of the line after a quoted field, got {}",
                                quoted(line.substr(i, 1))));
      }
    } else {
      const std::size_t comma = std::min(line.find(',', i), line.size());
      const std::string_view text = line.substr(i, comma - i);
      if (const std::size_t quote = text.find('"'); quote != std::string_view::npos) {
        fail(i + quote + 1, "a '\"' inside an unquoted field: quote the whole field and double the '\"' in it");
      }
      fields.push_back(Field{text, start + 1});
      i = comma;
    }
    if (i >= line.size()) return;
    ++i;  // the comma
  }
}

// A text line's own line break and encoding marks: a '\r' before the '\n'
// (CRLF files), and a UTF-8 byte-order mark on the first line.
std::string_view clean_line(std::string_view line, std::uint64_t line_number) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line_number == 1 && line.substr(0, kUtf8Bom.size()) == kUtf8Bom) line.remove_prefix(kUtf8Bom.size());
  return line;
}

bool is_comment_or_blank(std::string_view line) { return (!line.empty() && line[0] == '#') || is_blank(line); }

// Live blocks are exact by (process, heap, address); a heap id belongs to one
// process, so (heap, address) is the whole identity.
struct AddressKey {
  HeapId heap;
  std::uint64_t address;
  friend bool operator==(const AddressKey&, const AddressKey&) = default;
};
struct AddressKeyHash {
  std::size_t operator()(const AddressKey& k) const noexcept {
    return std::hash<std::uint64_t>{}(k.address * 0x9E3779B97F4A7C15ull ^ k.heap.value);
  }
};

// Heterogeneous lookup: find by string_view without building a string per line.
struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
};
template <class T>
using TextMap = std::unordered_map<std::string, T, TextHash, std::equal_to<>>;

class EventCsvParser {
 public:
  EventCsvParser(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                 const EventCsvReadOptions& options)
      : path_(path),
        tables_(tables),
        options_(options),
        matcher_(BlockIdentity::kExact, consumer),
        in_(path, std::numeric_limits<std::size_t>::max(), options.show_progress, options.bytes) {}

  SourceInfo run() {
    std::string_view line;
    while (in_.next(line)) {
      line_ = in_.line_number();
      handle(clean_line(line, line_));
    }
    if (line_ == 0) {
      throw Error(SourceLocation::of_file(path_), fmt::format("empty file: expected the header line {}", kEventCsvHeader));
    }
    if (!saw_header_) {
      throw Error(SourceLocation::of_file(path_),
                  fmt::format("no header line: the file holds only blank lines and comments; expected {}",
                              kEventCsvHeader));
    }
    if (warning_count_ > kMaxListedWarnings) {
      warn_text(fmt::format("{}: {} more warnings not listed (every anomaly is counted; see `heapql info`)\n", path_,
                            warning_count_ - kMaxListedWarnings));
    }
    SourceInfo info;
    info.path = path_;
    info.files = {path_};
    info.source = "csv";
    info.format = "events";
    info.compression = "plain";
    info.block_identity = BlockIdentity::kExact;
    info.realloc_marked = true;
    info.threads = saw_thread_;
    info.time_resolution_ns = 1;
    info.lines = data_lines_;
    info.anomalies = matcher_.anomalies();
    info.end_ns = matcher_.time();
    matcher_.finish();
    return info;
  }

 private:
  struct HeapEntry {
    HeapId id;
    BlockKind kind;
  };

  [[noreturn]] void fail(std::uint64_t column, const std::string& what) const {
    throw Error(SourceLocation{path_, line_, column, {}}, what);
  }

  void handle(std::string_view line) {
    if (line_ == 1) reject_compressed(line);
    if (is_comment_or_blank(line)) return;
    for (std::size_t i = 0; i < line.size(); ++i) {
      const auto c = static_cast<unsigned char>(line[i]);
      if (c < 0x20 && c != '\t') {
        fail(i + 1, fmt::format("unexpected control byte 0x{:02x} (is this a text file?)", c));
      }
    }
    split_fields(line, fields_, unquoted_, [this](std::uint64_t column, const std::string& what) { fail(column, what); });
    if (!saw_header_) return check_header(line);
    if (fields_.size() != kColumnCount) {
      fail(fields_.size() < kColumnCount ? line.size() + 1 : fields_[kColumnCount].column,
           fmt::format("expected {} fields ({}), got {}{}", kColumnCount, kEventCsvHeader, fields_.size(),
                       fields_.size() > kColumnCount ? "; quote fields that contain commas" : ""));
    }
    ++data_lines_;
    on_event();
  }

  void reject_compressed(std::string_view line) const {
    const char* kind = line.rfind("\x1f\x8b", 0) == 0           ? "gzip"
                       : line.rfind("\x28\xb5\x2f\xfd", 0) == 0 ? "zstd"
                                                                 : nullptr;
    if (kind != nullptr) {
      throw Error(SourceLocation::of_file(path_),
                  fmt::format("{}-compressed: heapql reads event CSV files as plain text; decompress it first", kind));
    }
  }

  void check_header(std::string_view line) {
    for (std::size_t k = 0; k < kColumnNames.size(); ++k) {
      if (k == fields_.size()) {
        fail(line.size() + 1, fmt::format("header: the line ends after {} column{}; expected the header line {}", k,
                                          k == 1 ? "" : "s", kEventCsvHeader));
      }
      if (fields_[k].text != kColumnNames[k]) {
        fail(fields_[k].column, fmt::format("header: column {} is {}, expected \"{}\"; the first line that is not "
                                            "blank or a comment must be exactly {}",
                                            k + 1, quoted(fields_[k].text), kColumnNames[k], kEventCsvHeader));
      }
    }
    if (fields_.size() > kColumnCount) {
      fail(fields_[kColumnCount].column,
           fmt::format("header: an extra column {}; expected the header line {}", quoted(fields_[kColumnCount].text),
                       kEventCsvHeader));
    }
    saw_header_ = true;
  }

  void on_event() {
    const std::int64_t ns = time_field(fields_[kTime]);
    const Field& event = fields_[kEvent];
    enum class Kind { kAlloc, kFree, kRealloc } kind = Kind::kAlloc;
    if (event.text == "alloc") {
      kind = Kind::kAlloc;
    } else if (event.text == "free") {
      kind = Kind::kFree;
    } else if (event.text == "realloc") {
      kind = Kind::kRealloc;
    } else {
      fail(event.column, fmt::format("event: expected alloc, free or realloc, got {}", quoted(event.text)));
    }
    const ProcessId process = process_field(fields_[kProcess]);
    const std::uint32_t thread = thread_field(fields_[kThread]);
    const HeapEntry heap = heap_field(process, fields_[kHeap]);
    matcher_.set_time(ns);

    if (kind == Kind::kFree) {
      const std::uint64_t address = address_field(fields_[kAddress], "address", "a free needs the block's address");
      if (!fields_[kSize].text.empty()) size_field(fields_[kSize], "");  // checked, not used
      expect_empty(fields_[kOldAddress], "old_address", "free");
      if (address != 0) free_block(heap, address, thread, "free");  // free(NULL) frees nothing
      return;
    }
    const char* name = kind == Kind::kAlloc ? "alloc" : "realloc";
    const std::uint64_t address =
        address_field(fields_[kAddress], "address", fmt::format("{} needs the new block's address", name));
    if (address == 0) {
      fail(fields_[kAddress].column,
           fmt::format("address: 0x0 is no block (leave a failed {} out, write a free for a realloc that freed)", name));
    }
    const std::uint64_t size = size_field(fields_[kSize], fmt::format("{} needs the block's size", name));
    if (kind == Kind::kAlloc) {
      expect_empty(fields_[kOldAddress], "old_address", "alloc");
    } else if (!fields_[kOldAddress].text.empty()) {
      const std::uint64_t old_address = address_field(fields_[kOldAddress], "old_address", "");
      if (old_address != 0) free_block(heap, old_address, thread, "realloc");  // realloc(NULL, n) is an allocation
    }
    const StackId stack = stack_field(fields_[kStack]);
    const BucketId bucket =
        tables_.intern_bucket(Bucket{size, stack, heap.id, thread, heap.kind, kind == Kind::kRealloc});
    matcher_.alloc(bucket, alloc_key(heap.id, address), thread);
  }

  // ---- block identity: each live (heap, address) gets a token ----

  // Tokens count up and are never reused, so two live blocks never share one
  // (no hashing of the triple into 64 bits and hoping). Only live blocks
  // hold one: a freed address leaves live_ for recently_freed_.
  std::uint64_t alloc_key(HeapId heap, std::uint64_t address) {
    auto [it, inserted] = live_.try_emplace(AddressKey{heap, address}, next_token_);
    if (inserted) {
      ++next_token_;
    } else {
      warn(fmt::format("alloc at 0x{:x} in heap {}, where a block is still alive: the earlier block ends here "
                       "(alloc_over_live)",
                       address, tables_.string(tables_.heap(heap).name)));
    }
    return it->second;
  }

  void free_block(const HeapEntry& heap, std::uint64_t address, std::uint32_t thread, std::string_view event) {
    const AddressKey key{heap.id, address};
    const auto it = live_.find(key);
    if (it == live_.end()) {
      // A double free only within the bound of recently_freed_; beyond it,
      // an unmatched free (docs/import.md).
      if (recently_freed_.contains(key)) {
        ++matcher_.anomalies().double_frees;
        warn(fmt::format("{} of 0x{:x} in heap {}, freed before and not allocated since (double_frees)", event,
                         address, tables_.string(tables_.heap(heap.id).name)));
        return;
      }
      ++matcher_.anomalies().unmatched_frees;
      warn(fmt::format("{} of 0x{:x} in heap {}, where no block is alive (unmatched_frees)", event, address,
                       tables_.string(tables_.heap(heap.id).name)));
      return;
    }
    matcher_.free_address(it->second, thread);
    live_.erase(it);
    recently_freed_.add(key);
  }

  // ---- fields ----

  std::int64_t time_field(const Field& f) {
    if (f.text.empty()) fail(f.column, fmt::format("time: missing; {}", kTimeExpected));
    std::int64_t ns = 0;
    if (all_digits(f.text)) {
      const auto value = parse_decimal(f.text);
      if (!value || *value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        fail(f.column, fmt::format("time: {} nanoseconds is too large (the most is {})", quoted(f.text),
                                   std::numeric_limits<std::int64_t>::max()));
      }
      ns = static_cast<std::int64_t>(*value);
    } else {
      try {
        ns = parse_duration_ns(f.text);
      } catch (const UnitsError& e) {
        fail(f.column, fmt::format("time: {}, got {} ({})", kTimeExpected, quoted(f.text), e.reason()));
      }
    }
    if (ns < matcher_.time()) {
      fail(f.column, fmt::format("time: {} is earlier than {} on line {}; times must not decrease (sort the events "
                                 "by time first)",
                                 exact_duration(ns), exact_duration(matcher_.time()), time_line_));
    }
    time_line_ = line_;
    return ns;
  }

  // `name (pid)`, a bare pid, a bare name, or empty (`? (0)`).
  ProcessId process_field(const Field& f) {
    if (const auto it = processes_.find(f.text); it != processes_.end()) return it->second;
    std::string_view name = f.text;
    std::uint64_t pid = 0;
    std::string_view digits;
    if (const std::size_t open = name.rfind(" ("); open != std::string_view::npos && open > 0 && name.back() == ')' &&
                                                   all_digits(name.substr(open + 2, name.size() - open - 3))) {
      digits = name.substr(open + 2, name.size() - open - 3);
      name = name.substr(0, open);
    } else if (all_digits(name)) {
      digits = name;
      name = "?";
    }
    if (!digits.empty()) {
      const auto value = parse_decimal(digits);
      if (!value) fail(f.column, fmt::format("process: pid {} is too large", quoted(digits)));
      pid = *value;
    }
    if (name.empty()) name = "?";
    const ProcessId id = tables_.intern_process(pid, name);
    processes_.emplace(std::string(f.text), id);
    return id;
  }

  std::uint32_t thread_field(const Field& f) {
    if (f.text.empty()) return 0;
    const auto value = parse_decimal(f.text);
    if (!value || *value > 0xFFFFFFFFu) {
      fail(f.column, fmt::format("thread: expected a thread id (a whole number below 2^32) or nothing, got {}",
                                 quoted(f.text)));
    }
    saw_thread_ = true;
    return static_cast<std::uint32_t>(*value);
  }

  // Empty, `default` and `0x0`: the default heap (handle 0). Another `0x...`:
  // a heap handle. Anything else: a heap name; `VirtualAlloc` is the pseudo
  // heap of VirtualAlloc'd memory (kind virtual).
  HeapEntry heap_field(ProcessId process, const Field& f) {
    if (heaps_.size() <= process.index()) heaps_.resize(process.index() + 1);
    TextMap<HeapEntry>& heaps = heaps_[process.index()];
    if (const auto it = heaps.find(f.text); it != heaps.end()) return it->second;
    HeapEntry entry{HeapId(), BlockKind::kHeap};
    std::optional<std::uint64_t> handle;  // none: a named heap
    if (f.text.empty() || f.text == "default") {
      handle = 0;
    } else if (looks_hex(f.text)) {
      handle = parse_hex(f.text);
      if (!handle) {
        fail(f.column, fmt::format("heap: expected a heap name or a hex handle such as 0x1a0000, got {}", quoted(f.text)));
      }
    }
    if (handle) {
      const std::string name = *handle == 0 ? std::string("default") : format_hex_address(*handle);
      entry.id = tables_.intern_heap(process, *handle, name);
      if (tables_.string(tables_.heap(entry.id).name) != name) {
        fail(f.column, fmt::format("heap: handle {} is the one heapql gave the named heap {} (named heaps are "
                                   "numbered down from 0xffffffffffffffff)",
                                   name, quoted(tables_.string(tables_.heap(entry.id).name))));
      }
    } else {
      if (f.text == "VirtualAlloc") entry.kind = BlockKind::kVirtual;
      if (named_heap_next_.size() <= process.index()) named_heap_next_.resize(process.index() + 1, kFirstNamedHeapHandle);
      // Skip a handle that a hex heap of this process already has.
      do {
        entry.id = tables_.intern_heap(process, named_heap_next_[process.index()]--, f.text);
      } while (tables_.string(tables_.heap(entry.id).name) != f.text);
    }
    heaps.emplace(std::string(f.text), entry);
    return entry;
  }

  std::uint64_t address_field(const Field& f, std::string_view column, std::string_view why_needed) {
    if (f.text.empty()) fail(f.column, fmt::format("{}: missing; {}", column, why_needed));
    const auto value = parse_hex(f.text);
    if (!value) fail(f.column, fmt::format("{}: {}, got {}", column, kAddressExpected, quoted(f.text)));
    return *value;
  }

  void expect_empty(const Field& f, std::string_view column, std::string_view event) {
    if (!f.text.empty()) {
      fail(f.column, fmt::format("{}: expected nothing for {} (only realloc has one), got {}", column, event,
                                 quoted(f.text)));
    }
  }

  std::uint64_t size_field(const Field& f, std::string_view why_needed) {
    if (f.text.empty()) fail(f.column, fmt::format("size: missing; {}", why_needed));
    if (const auto value = parse_decimal(f.text)) return *value;
    try {
      return parse_size_bytes(f.text);
    } catch (const UnitsError& e) {
      fail(f.column, fmt::format("size: {}, got {} ({})", kSizeExpected, quoted(f.text), e.reason()));
    }
  }

  // Frames top first, separated by ';'; each is trimmed of spaces and tabs.
  StackId stack_field(const Field& f) {
    if (f.text.empty()) return StackId();
    if (const auto it = stacks_.find(f.text); it != stacks_.end()) return it->second;
    frames_.clear();
    std::size_t number = 0;
    for (std::size_t begin = 0; begin <= f.text.size();) {
      const std::size_t end = std::min(f.text.find(';', begin), f.text.size());
      frames_.push_back(frame(trim(f.text.substr(begin, end - begin)), ++number, f.column));
      begin = end + 1;
    }
    StackId node;
    for (std::size_t i = frames_.size(); i-- > 0;) node = tables_.intern_stack(frames_[i], node);
    stacks_.emplace(std::string(f.text), node);
    return node;
  }

  // `module!symbol`, `module!0xOFFSET`, `?!0xADDRESS` or a bare symbol
  // (unknown module). Modules are base names (semantics.md §1).
  FrameId frame(std::string_view text, std::size_t number, std::uint64_t column) {
    if (text.empty()) {
      fail(column, fmt::format("stack: frame {} is empty (frames are separated by ';', top first)", number));
    }
    StringId module = tables_.unknown_module();
    std::string_view symbol = text;
    if (const std::size_t bang = text.find('!'); bang != std::string_view::npos) {
      const std::string_view module_text = text.substr(0, bang);
      symbol = text.substr(bang + 1);
      if (module_text.empty()) {
        fail(column, fmt::format("stack: frame {} {} has no module before '!' (write ? for an unknown module)", number,
                                 quoted(text)));
      }
      if (symbol.empty()) {
        fail(column, fmt::format("stack: frame {} {} has nothing after '!' (expected module!symbol or module!0xOFFSET)",
                                 number, quoted(text)));
      }
      if (module_text != "?") module = tables_.intern_string(file_base_name(module_text));
    }
    if (const auto address = parse_hex(symbol)) return tables_.intern_frame(module, StringId(), *address);
    return tables_.intern_frame(module, tables_.intern_string(symbol), 0);
  }

  // ---- warnings ----

  void warn(const std::string& what) {
    if (options_.strict) {
      throw Error(SourceLocation{path_, line_, {}, {}}, what + "; --strict refuses a trace with an anomaly");
    }
    if (++warning_count_ > kMaxListedWarnings) return;
    warn_text(fmt::format("{}{}\n", format_location(SourceLocation{path_, line_, {}, {}}), what));
  }

  void warn_text(const std::string& text) {
    if (options_.warnings == nullptr) in_.clear_progress();  // a warning must not share a line with the bar
    emit_warning(options_.warnings, text);
  }

  std::string path_;
  TraceTables& tables_;
  const EventCsvReadOptions& options_;
  BlockMatcher matcher_;
  LineSource in_;
  std::uint64_t line_ = 0;        // the physical line being handled
  std::uint64_t data_lines_ = 0;  // event lines so far
  std::uint64_t time_line_ = 0;   // the line that set the current time
  bool saw_header_ = false;
  bool saw_thread_ = false;
  std::uint64_t warning_count_ = 0;
  std::vector<Field> fields_;
  std::string unquoted_;
  std::vector<FrameId> frames_;
  TextMap<ProcessId> processes_;
  std::vector<TextMap<HeapEntry>> heaps_;         // per process
  std::vector<std::uint64_t> named_heap_next_;    // per process: the next handle for a named heap
  TextMap<StackId> stacks_;
  // Each live block's (heap, address) -> its matcher token; a freed one's
  // key goes to recently_freed_ (bounded).
  std::unordered_map<AddressKey, std::uint64_t, AddressKeyHash> live_;
  RecentlyFreed<AddressKey, AddressKeyHash> recently_freed_{BlockMatcher::kFreesRemembered};
  std::uint64_t next_token_ = 0;
};

}  // namespace

SourceInfo read_event_csv(const std::string& path, TraceTables& tables, EventConsumer& consumer,
                          const EventCsvReadOptions& options) {
  EventCsvParser parser(path, tables, consumer, options);
  return parser.run();
}

bool looks_like_event_csv(const std::string& path) {
  try {
    LineSource in(path, kSniffBytes, false);
    std::vector<Field> fields;
    std::string unquoted;
    std::string_view line;
    while (in.next(line)) {
      line = clean_line(line, in.line_number());
      if (is_comment_or_blank(line)) continue;
      split_fields(line, fields, unquoted, [](std::uint64_t, const std::string& what) { throw Error(what); });
      if (fields.size() != kColumnCount) return false;
      for (std::size_t k = 0; k < kColumnCount; ++k) {
        if (fields[k].text != kColumnNames[k]) return false;
      }
      return true;
    }
  } catch (const Error&) {
  }
  return false;
}

}  // namespace heapql
