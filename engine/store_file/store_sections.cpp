#include "engine/store_file/store_sections.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "engine/binary_file/checksum.h"
#include "engine/error.h"

namespace heapql::store_file {

namespace {

template <class T>
T load(std::string_view bytes, std::size_t at) {
  T v;
  std::memcpy(&v, bytes.data() + at, sizeof(T));
  return v;
}

std::uint64_t checksum_of(std::string_view bytes) { return store_file::checksum_of(bytes.data(), bytes.size()); }

// A checksum's pieces: the copy and the hash of each stay in the caches.
constexpr std::size_t kCheckedPieceBytes = std::size_t{256} << 10;

std::string name_of(std::uint32_t kind) {
  if (kind >= 1 && kind <= kSectionKinds) return std::string(section_name(Section(kind)));
  return fmt::format("kind {}", kind);
}

}  // namespace

StoreSections::StoreSections(std::string_view bytes, std::string name, std::span<const Accelerator> accelerators)
    : bytes_(bytes), name_(std::move(name)) {
  check_header();
  read_toc(accelerators);
}

void StoreSections::fail(const std::string& what, std::optional<std::uint64_t> at) const {
  SourceLocation where = SourceLocation::of_file(name_);
  where.byte_offset = at;
  throw Error(where, what);
}

void StoreSections::check_header() {
  if (bytes_.empty()) fail("an empty file, not a heapql store");
  if (bytes_.size() < kMagic.size() || std::memcmp(bytes_.data(), kMagic.data(), kMagic.size()) != 0) {
    fail("not a heapql store (wrong magic number)", 0);
  }
  if (bytes_.size() < kHeaderBytes) fail(fmt::format("truncated: {} bytes, shorter than the store's header", bytes_.size()));
  version_ = load<std::uint32_t>(bytes_, header_at::kVersion);
  if (version_ > kFormatVersion) {
    fail(fmt::format("store format version {} is newer than this heapql reads (up to {}); use a newer heapql or "
                     "ingest the trace again",
                     version_, kFormatVersion),
         header_at::kVersion);
  }
  if (version_ == 0) fail("store format version 0 does not exist", header_at::kVersion);
  if (version_ < kFormatVersion) {
    fail(fmt::format("store format version {} is older than this heapql reads ({}); ingest the trace again",
                     version_, kFormatVersion),
         header_at::kVersion);
  }
  if (checksum_of(bytes_.substr(0, header_at::kHeaderChecksum)) !=
      load<std::uint64_t>(bytes_, header_at::kHeaderChecksum)) {
    fail("the header is damaged (its checksum does not match)", 0);
  }
  const std::uint64_t file_bytes = load<std::uint64_t>(bytes_, header_at::kFileBytes);
  if (file_bytes > bytes_.size()) {
    fail(fmt::format("truncated: the store is {} bytes, the file {}", file_bytes, bytes_.size()));
  }
  if (file_bytes < bytes_.size()) {
    fail(fmt::format("{} bytes after the store's end ({} bytes): not a file heapql wrote", bytes_.size() - file_bytes,
                     file_bytes));
  }
}

void StoreSections::read_toc(std::span<const Accelerator> accelerators) {
  const std::uint32_t count = load<std::uint32_t>(bytes_, header_at::kSectionCount);
  const std::uint64_t toc_offset = load<std::uint64_t>(bytes_, header_at::kTocOffset);
  if (toc_offset < kHeaderBytes || toc_offset > bytes_.size() ||
      std::uint64_t{count} * kTocEntryBytes != bytes_.size() - toc_offset) {
    fail("the table of contents is not where the header says", header_at::kTocOffset);
  }
  const std::string_view toc = bytes_.substr(toc_offset);
  if (checksum_of(toc) != load<std::uint64_t>(bytes_, header_at::kTocChecksum)) {
    fail("the table of contents is damaged (its checksum does not match)", toc_offset);
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    const std::size_t at = i * kTocEntryBytes;
    const std::uint64_t entry_at = toc_offset + at;
    SectionEntry e;
    e.kind = load<std::uint32_t>(toc, at);
    e.revision = load<std::uint32_t>(toc, at + 4);
    e.checksum = load<std::uint64_t>(toc, at + 8);
    e.offset = load<std::uint64_t>(toc, at + 16);
    e.bytes = load<std::uint64_t>(toc, at + 24);
    e.items = load<std::uint64_t>(toc, at + 32);
    if (e.offset < kHeaderBytes || e.offset % kSectionAlignment != 0 || e.offset > toc_offset ||
        e.bytes > toc_offset - e.offset) {
      fail(fmt::format("section '{}' lies outside the file's sections", name_of(e.kind)), entry_at);
    }
    if (is_fact(e.kind) && e.revision != 0) {
      fail(fmt::format("section '{}' has revision {}, and facts have none", name_of(e.kind), e.revision), entry_at);
    }
    const bool used = is_fact(e.kind) || std::find(accelerators.begin(), accelerators.end(),
                                                   Accelerator{Section(e.kind), e.revision}) != accelerators.end();
    if (!used || e.kind > kSectionKinds) {
      passed_over_.push_back(e);
      continue;
    }
    std::optional<SectionEntry>& slot = used_[e.kind - 1];
    if (slot) fail(fmt::format("section '{}' appears twice", name_of(e.kind)), entry_at);
    slot = e;
  }
  const bool events = used_[static_cast<std::uint32_t>(Section::kEvents) - 1].has_value();
  for (std::uint32_t kind = 1; kind <= kSectionKinds; ++kind) {
    if (!is_fact(kind)) continue;
    const bool wanted = kind == static_cast<std::uint32_t>(Section::kEvents) ? false : !(events && is_block_column(kind));
    if (wanted && !used_[kind - 1]) fail(fmt::format("section '{}' is missing", name_of(kind)));
    if (events && is_block_column(kind) && used_[kind - 1]) {
      fail(fmt::format("section '{}' beside the events, which stand for it", name_of(kind)));
    }
  }
}

std::vector<StoreSectionInfo> StoreSections::describe() const {
  std::vector<StoreSectionInfo> sections;
  for (const std::optional<SectionEntry>& e : used_) {
    if (e) sections.push_back({name_of(e->kind), e->offset, e->bytes, e->items});
  }
  for (const SectionEntry& e : passed_over_) {
    sections.push_back(
        {fmt::format("{} (revision {}, not read)", name_of(e.kind), e.revision), e.offset, e.bytes, e.items});
  }
  return sections;
}

void StoreSections::verify(Section kind) const {
  Checksum checksum;
  for_each_piece(bytes(kind), kCheckedPieceBytes, [&](std::string_view piece) { checksum.add(piece.data(), piece.size()); });
  if (checksum.value() != entry(kind).checksum) damaged(kind);
}

void StoreSections::for_each_piece(std::string_view range, std::size_t piece_bytes,
                                   const std::function<void(std::string_view piece)>& piece) const {
  std::size_t done = 0;
  const bool copied = read_at_ && !range.empty() && range.data() >= bytes_.data() &&
                      range.data() + range.size() <= bytes_.data() + bytes_.size();
  if (copied) {
    const auto offset = static_cast<std::uint64_t>(range.data() - bytes_.data());
    const std::unique_ptr<std::uint64_t[]> buffer(new std::uint64_t[(std::min(piece_bytes, range.size()) + 7) / 8]);
    char* to = reinterpret_cast<char*>(buffer.get());
    while (done < range.size()) {
      const std::size_t n = std::min(piece_bytes, range.size() - done);
      if (!read_at_(offset + done, to, n)) break;
      piece(std::string_view(to, n));
      done += n;
    }
  }
  // In place: a store in memory, or a copy that failed.
  while (done < range.size()) {
    const std::size_t n = std::min(piece_bytes, range.size() - done);
    piece(range.substr(done, n));
    done += n;
  }
}

void StoreSections::damaged(Section kind) const {
  fail(fmt::format("section '{}' is damaged (its checksum does not match)", section_name(kind)), entry(kind).offset);
}

ByteReader StoreSections::reader(Section kind) const {
  return ByteReader(bytes(kind), name_, section_name(kind), entry(kind).offset);
}

ByteReader StoreSections::table(Section kind, std::uint64_t item_bytes) const {
  const SectionEntry& e = entry(kind);
  if (e.items > e.bytes / item_bytes || e.items * item_bytes != e.bytes) {
    fail(fmt::format("section '{}' holds {} bytes, not {} items of {}", section_name(kind), e.bytes, e.items,
                     item_bytes),
         e.offset);
  }
  return reader(kind);
}

}  // namespace heapql::store_file
