#include "engine/symbols/pdb_symbol_table.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string_view>
#include <unordered_map>

#include <llvm/ADT/StringRef.h>
#include <llvm/DebugInfo/CodeView/CVRecord.h>
#include <llvm/DebugInfo/CodeView/CodeView.h>
#include <llvm/DebugInfo/CodeView/LazyRandomTypeCollection.h>
#include <llvm/DebugInfo/CodeView/SymbolDeserializer.h>
#include <llvm/DebugInfo/CodeView/SymbolRecord.h>
#include <llvm/DebugInfo/CodeView/TypeDeserializer.h>
#include <llvm/DebugInfo/CodeView/TypeRecord.h>
#include <llvm/DebugInfo/MSF/MSFCommon.h>
#include <llvm/DebugInfo/MSF/MappedBlockStream.h>
#include <llvm/DebugInfo/PDB/Native/DbiModuleDescriptor.h>
#include <llvm/DebugInfo/PDB/Native/DbiModuleList.h>
#include <llvm/DebugInfo/PDB/Native/DbiStream.h>
#include <llvm/DebugInfo/PDB/Native/InfoStream.h>
#include <llvm/DebugInfo/PDB/Native/ModuleDebugStream.h>
#include <llvm/DebugInfo/PDB/Native/PDBFile.h>
#include <llvm/DebugInfo/PDB/Native/RawConstants.h>
#include <llvm/DebugInfo/PDB/Native/SymbolStream.h>
#include <llvm/DebugInfo/PDB/Native/TpiStream.h>
#include <llvm/Demangle/Demangle.h>
#include <llvm/Object/COFF.h>
#include <llvm/Support/Allocator.h>
#include <llvm/Support/BinaryByteStream.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

#include "engine/error.h"
#include "engine/platform/utf8_wide.h"

namespace cv = llvm::codeview;

namespace heapql {
namespace {

// A section of the image, from the PDB's own copy of the section headers.
struct Section {
  std::uint32_t va = 0;
  std::uint32_t size = 0;
  bool executable = false;
};

// A frame kind: a function (parent -1) or an inline site inside its parent.
struct Node {
  std::uint32_t name = 0;
  std::int32_t parent = -1;
};

// The address space being painted: disjoint [begin, end) -> node.
struct Segment {
  std::uint32_t end = 0;
  std::int32_t node = -1;
};
using SegmentMap = std::map<std::uint32_t, Segment>;

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw Error(SourceLocation::of_file(path), what);
}

std::string take_message(llvm::Error error) { return llvm::toString(std::move(error)); }

// What llvm-symbolizer's default (demangling) output shows for a name:
// MSVC-mangled names ('?') and Itanium ones ("_Z") demangled, others as they are.
std::string demangle(llvm::StringRef name) {
  const std::string text = name.str();
  char* out = nullptr;
  int status = -1;
  if (!text.empty() && text.front() == '?') {
    out = llvm::microsoftDemangle(text.c_str(), nullptr, nullptr, nullptr, &status,
                                  llvm::MSDemangleFlags(llvm::MSDF_NoAccessSpecifier | llvm::MSDF_NoCallingConvention |
                                                        llvm::MSDF_NoMemberType | llvm::MSDF_NoReturnType));
  } else if (text.size() > 2 && text.compare(0, 2, "_Z") == 0) {
    out = llvm::itaniumDemangle(text.c_str(), nullptr, nullptr, &status);
  }
  if (out == nullptr) return text;
  std::string result = status == 0 ? std::string(out) : text;
  std::free(out);
  return result;
}

bool is_proc(cv::SymbolKind kind) {
  switch (kind) {
    case cv::S_GPROC32:
    case cv::S_LPROC32:
    case cv::S_GPROC32_ID:
    case cv::S_LPROC32_ID:
    case cv::S_LPROC32_DPC:
    case cv::S_LPROC32_DPC_ID:
      return true;
    default:
      return false;
  }
}

// Records that open a scope closed by S_END / S_PROC_ID_END / S_INLINESITE_END.
bool opens_scope(cv::SymbolKind kind) {
  switch (kind) {
    case cv::S_BLOCK32:
    case cv::S_THUNK32:
    case cv::S_SEPCODE:
    case cv::S_WITH32:
    case cv::S_INLINESITE:
    case cv::S_INLINESITE2:
      return true;
    default:
      return is_proc(kind);
  }
}

bool closes_scope(cv::SymbolKind kind) {
  return kind == cv::S_END || kind == cv::S_PROC_ID_END || kind == cv::S_INLINESITE_END;
}

// The code ranges of an inline site, relative to the start of the function
// it is (ultimately) inlined into. Same reading as LLVM's
// NativeFunctionSymbol (what llvm-symbolizer does): each code-offset change
// opens a range unless one is open, ChangeCodeLength closes it;
// ChangeCodeLengthAndCodeOffset is a whole range. A range left open at the
// end has no known end and is dropped, as LLVM does.
std::vector<std::pair<std::uint64_t, std::uint64_t>> inline_site_ranges(const cv::InlineSiteSym& site) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> ranges;
  std::uint64_t offset = 0;
  bool open = false;
  std::uint64_t open_at = 0;
  for (const auto& annotation : site.annotations()) {
    switch (annotation.OpCode) {
      case cv::BinaryAnnotationsOpCode::CodeOffset:
      case cv::BinaryAnnotationsOpCode::ChangeCodeOffset:
      case cv::BinaryAnnotationsOpCode::ChangeCodeOffsetAndLineOffset:
        offset += annotation.U1;
        if (!open) {
          open = true;
          open_at = offset;
        }
        break;
      case cv::BinaryAnnotationsOpCode::ChangeCodeLength:
        offset += annotation.U1;
        if (open && open_at < offset) ranges.emplace_back(open_at, offset);
        open = false;
        break;
      case cv::BinaryAnnotationsOpCode::ChangeCodeLengthAndCodeOffset:
        offset += annotation.U2;
        if (annotation.U1 > 0) ranges.emplace_back(offset, offset + annotation.U1);
        offset += annotation.U1;
        open = false;
        break;
      default:
        break;
    }
  }
  return ranges;
}

}  // namespace

struct PdbTableBuilder {
  explicit PdbTableBuilder(PdbSymbolTable& t) : table(t) {}
  PdbSymbolTable& table;
  std::vector<Section> sections;
  std::vector<Node> nodes;
  std::unordered_map<std::string, std::uint32_t> name_ids;
  std::map<std::uint32_t, std::uint32_t> public_names;  // rva -> name, first record wins
  struct Span {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    std::int32_t node = -1;
  };
  std::vector<Span> procs;
  struct SiteSpan {
    std::uint32_t begin = 0;
    std::uint32_t end = 0;
    std::int32_t node = -1;
    std::int32_t parent = -1;
  };
  std::vector<SiteSpan> site_spans;  // record order: parents before children
  SegmentMap segments;

  std::uint32_t name_id(std::string name) {
    auto [it, inserted] = name_ids.try_emplace(std::move(name), static_cast<std::uint32_t>(table.names_.size()));
    if (inserted) table.names_.push_back(it->first);
    return it->second;
  }
  std::int32_t add_node(std::uint32_t name, std::int32_t parent) {
    nodes.push_back(Node{name, parent});
    return static_cast<std::int32_t>(nodes.size() - 1);
  }

  std::optional<std::uint32_t> rva_of(std::uint16_t segment, std::uint32_t offset) const {
    if (segment == 0 || segment > sections.size()) return std::nullopt;
    const std::uint64_t rva = std::uint64_t{sections[segment - 1].va} + offset;
    if (rva > std::numeric_limits<std::uint32_t>::max()) return std::nullopt;
    return static_cast<std::uint32_t>(rva);
  }
  static std::uint32_t clamp32(std::uint64_t value) {
    return static_cast<std::uint32_t>(std::min<std::uint64_t>(value, std::numeric_limits<std::uint32_t>::max()));
  }

  void read_sections(llvm::pdb::DbiStream& dbi) {
    for (const llvm::object::coff_section& header : dbi.getSectionHeaders()) {
      Section s;
      s.va = header.VirtualAddress;
      s.size = header.VirtualSize != 0 ? static_cast<std::uint32_t>(header.VirtualSize)
                                       : static_cast<std::uint32_t>(header.SizeOfRawData);
      s.executable = (header.Characteristics & (llvm::COFF::IMAGE_SCN_CNT_CODE | llvm::COFF::IMAGE_SCN_MEM_EXECUTE)) != 0;
      sections.push_back(s);
    }
  }

  void read_publics(llvm::pdb::PDBFile& file) {
    if (!file.hasPDBSymbolStream()) return;
    auto records = file.getPDBSymbolStream();
    if (!records) {
      llvm::consumeError(records.takeError());
      table.stats_.publics_unreadable = true;
      return;
    }
    bool had_error = false;
    const cv::CVSymbolArray& array = records->getSymbolArray();
    for (auto it = array.begin(&had_error), end = array.end(); it != end; ++it) {
      if (it->kind() != cv::S_PUB32) continue;
      auto pub = cv::SymbolDeserializer::deserializeAs<cv::PublicSym32>(*it);
      if (!pub) {
        llvm::consumeError(pub.takeError());
        continue;
      }
      const auto rva = rva_of(pub->Segment, pub->Offset);
      if (!rva || !sections[pub->Segment - 1].executable) continue;
      if (public_names.try_emplace(*rva, name_id(demangle(pub->Name))).second) ++table.stats_.publics;
    }
    if (had_error) table.stats_.publics_unreadable = true;
  }

  // The name llvm-symbolizer gives an inlinee: LF_FUNC_ID's name, after its
  // scope (an LF_STRING_ID) and "::"; LF_MFUNC_ID's name after its class's.
  std::string inlinee_name(cv::TypeIndex inlinee, cv::LazyRandomTypeCollection* ids,
                           cv::LazyRandomTypeCollection* types) {
    if (ids == nullptr || inlinee.isSimple() || inlinee.isNoneType()) return "??";
    auto record = ids->tryGetType(inlinee);
    if (!record) return "??";
    std::string name;
    auto scope_name = [&](cv::LazyRandomTypeCollection* from, cv::TypeIndex index) -> std::string {
      if (from == nullptr || index.isSimple() || index.isNoneType()) return "??";
      auto scope = from->tryGetType(index);
      if (!scope) return "??";
      switch (scope->kind()) {
        case cv::LF_STRING_ID: {
          cv::StringIdRecord s(cv::TypeRecordKind::StringId);
          if (auto error = cv::TypeDeserializer::deserializeAs(*scope, s)) {
            llvm::consumeError(std::move(error));
            break;
          }
          return s.getString().str();
        }
        case cv::LF_CLASS:
        case cv::LF_STRUCTURE:
        case cv::LF_INTERFACE: {
          cv::ClassRecord c(cv::TypeRecordKind::Class);
          if (auto error = cv::TypeDeserializer::deserializeAs(*scope, c)) {
            llvm::consumeError(std::move(error));
            break;
          }
          return c.getName().str();
        }
        case cv::LF_UNION: {
          cv::UnionRecord u(cv::TypeRecordKind::Union);
          if (auto error = cv::TypeDeserializer::deserializeAs(*scope, u)) {
            llvm::consumeError(std::move(error));
            break;
          }
          return u.getName().str();
        }
        case cv::LF_ENUM: {
          cv::EnumRecord e(cv::TypeRecordKind::Enum);
          if (auto error = cv::TypeDeserializer::deserializeAs(*scope, e)) {
            llvm::consumeError(std::move(error));
            break;
          }
          return e.getName().str();
        }
        default:
          break;
      }
      return "??";
    };
    if (record->kind() == cv::LF_FUNC_ID) {
      cv::FuncIdRecord f(cv::TypeRecordKind::FuncId);
      if (auto error = cv::TypeDeserializer::deserializeAs(*record, f)) {
        llvm::consumeError(std::move(error));
        return "??";
      }
      if (!f.getParentScope().isNoneType()) name = scope_name(ids, f.getParentScope()) + "::";
      return name + f.getName().str();
    }
    if (record->kind() == cv::LF_MFUNC_ID) {
      cv::MemberFuncIdRecord m(cv::TypeRecordKind::MemberFuncId);
      if (auto error = cv::TypeDeserializer::deserializeAs(*record, m)) {
        llvm::consumeError(std::move(error));
        return "??";
      }
      return scope_name(types, m.getClassType()) + "::" + m.getName().str();
    }
    return "??";
  }

  void read_module(llvm::pdb::PDBFile& file, const llvm::pdb::DbiModuleDescriptor& module,
                   cv::LazyRandomTypeCollection* ids, cv::LazyRandomTypeCollection* types) {
    const std::uint16_t stream_index = module.getModuleStreamIndex();
    if (stream_index == llvm::pdb::kInvalidStreamIndex) return;  // no symbols (e.g. "* Linker *" sometimes)
    auto stream = file.safelyCreateIndexedStream(stream_index);
    if (!stream) {
      llvm::consumeError(stream.takeError());
      ++table.stats_.modules_skipped;
      return;
    }
    llvm::pdb::ModuleDebugStreamRef debug(module, std::move(*stream));
    if (auto error = debug.reload()) {
      llvm::consumeError(std::move(error));
      ++table.stats_.modules_skipped;
      return;
    }
    ++table.stats_.modules;

    // The open scopes: a function, an inline site, or another scope (-1).
    struct Scope {
      std::int32_t node = -1;
      bool is_proc = false;
      std::optional<std::uint32_t> proc_rva;  // functions with a valid address
      std::uint32_t proc_end = 0;
      bool blocked = false;  // an inline site with no usable range: its children are unreachable
    };
    std::vector<Scope> stack;
    bool had_error = false;
    for (const cv::CVSymbol& symbol : debug.symbols(&had_error)) {
      const cv::SymbolKind kind = symbol.kind();
      if (closes_scope(kind)) {
        if (!stack.empty()) stack.pop_back();
        continue;
      }
      if (!opens_scope(kind)) continue;
      Scope scope;
      if (is_proc(kind)) {
        scope.is_proc = true;
        auto proc = cv::SymbolDeserializer::deserializeAs<cv::ProcSym>(symbol);
        if (!proc) {
          llvm::consumeError(proc.takeError());
        } else if (const auto rva = rva_of(proc->Segment, proc->CodeOffset); rva && proc->CodeSize > 0) {
          const auto found = public_names.find(*rva);
          const std::uint32_t name = found != public_names.end() ? found->second : name_id(demangle(proc->Name));
          scope.node = add_node(name, -1);
          scope.proc_rva = *rva;
          scope.proc_end = clamp32(std::uint64_t{*rva} + proc->CodeSize);
          procs.push_back(Span{*rva, scope.proc_end, scope.node});
          ++table.stats_.procs;
        }
      } else if (kind == cv::S_INLINESITE || kind == cv::S_INLINESITE2) {
        // Parent: the nearest enclosing function or inline site; offsets are
        // relative to the enclosing function's start.
        std::int32_t parent = -1;
        std::optional<std::uint32_t> base;
        bool blocked = false;
        for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
          if (parent < 0 && it->blocked) blocked = true;
          if (parent < 0 && it->node >= 0) parent = it->node;
          if (it->is_proc) {
            base = it->proc_rva;
            break;
          }
        }
        if (kind == cv::S_INLINESITE && !blocked && parent >= 0 && base) {  // S_INLINESITE2 (rare): scope only
          auto site = cv::SymbolDeserializer::deserializeAs<cv::InlineSiteSym>(symbol);
          if (!site) {
            llvm::consumeError(site.takeError());
          } else if (const auto ranges = inline_site_ranges(*site); !ranges.empty()) {
            scope.node = add_node(name_id(inlinee_name(site->Inlinee, ids, types)), parent);
            for (const auto& [begin, end] : ranges)
              site_spans.push_back(SiteSpan{clamp32(*base + begin), clamp32(*base + end), scope.node, parent});
            ++table.stats_.inline_sites;
          }
        }
        scope.blocked = scope.node < 0;
      }
      stack.push_back(scope);
    }
    if (had_error) ++table.stats_.modules_skipped;
  }

  // Gives the parts of [begin, end) now owned by `parent` to `node`.
  void paint(std::uint32_t begin, std::uint32_t end, std::int32_t node, std::int32_t parent) {
    if (begin >= end) return;
    auto it = segments.upper_bound(begin);
    if (it != segments.begin()) --it;
    while (it != segments.end() && it->first < end) {
      const std::uint32_t seg_begin = it->first;
      const std::uint32_t seg_end = it->second.end;
      if (seg_end <= begin || it->second.node != parent) {
        ++it;
        continue;
      }
      const std::uint32_t from = std::max(seg_begin, begin);
      const std::uint32_t to = std::min(seg_end, end);
      if (seg_begin < from) {
        it->second.end = from;
        it = segments.emplace_hint(std::next(it), from, Segment{to, node});
      } else {
        it->second = Segment{to, node};
      }
      if (to < seg_end) it = segments.emplace_hint(std::next(it), to, Segment{seg_end, parent});
      ++it;
    }
  }

  // Gives the unowned parts of [begin, end) to `node`.
  void fill_gaps(std::uint32_t begin, std::uint32_t end, std::int32_t node) {
    std::uint32_t at = begin;
    auto it = segments.upper_bound(begin);
    if (it != segments.begin() && std::prev(it)->second.end > at) at = std::prev(it)->second.end;
    while (at < end) {
      const std::uint32_t next = it == segments.end() ? end : std::min(end, it->first);
      if (at < next) it = std::next(segments.emplace_hint(it, at, Segment{next, node}));
      if (it == segments.end() || it->first >= end) break;
      at = std::max(at, it->second.end);
      ++it;
    }
  }

  void build_table() {
    // Functions: address order; where two overlap, the earlier keeps its bytes.
    std::stable_sort(procs.begin(), procs.end(), [](const Span& a, const Span& b) { return a.begin < b.begin; });
    std::uint32_t covered = 0;
    for (const Span& p : procs) {
      const std::uint32_t begin = std::max(p.begin, covered);
      if (begin < p.end) segments.emplace_hint(segments.end(), begin, Segment{p.end, p.node});
      covered = std::max(covered, p.end);
    }
    // Inline sites, parents first: a site owns only bytes its parent owns
    // (as llvm-symbolizer descends: first matching site, then its children).
    for (const SiteSpan& s : site_spans) paint(s.begin, s.end, s.node, s.parent);
    // Publics, where no function is known: from the public up to the next
    // public or function start, never past the end of its section.
    std::vector<std::uint32_t> starts;
    starts.reserve(public_names.size() + procs.size());
    for (const auto& [rva, name] : public_names) starts.push_back(rva);
    for (const Span& p : procs) starts.push_back(p.begin);
    std::sort(starts.begin(), starts.end());
    std::unordered_map<std::uint32_t, std::int32_t> public_nodes;
    for (const auto& [rva, name] : public_names) {
      const Section* section = nullptr;
      for (const Section& s : sections)
        if (s.executable && rva >= s.va && std::uint64_t{rva} < std::uint64_t{s.va} + s.size) section = &s;
      if (section == nullptr) continue;
      std::uint32_t end = clamp32(std::uint64_t{section->va} + section->size);
      const auto next = std::upper_bound(starts.begin(), starts.end(), rva);
      if (next != starts.end()) end = std::min(end, *next);
      auto [node, inserted] = public_nodes.try_emplace(name, -1);
      if (inserted) node->second = add_node(name, -1);
      fill_gaps(rva, end, node->second);
    }
    // Flatten: one chain per node, adjacent equal segments merged.
    std::vector<std::int32_t> chain_of(nodes.size(), -1);
    table.chain_offsets_.push_back(0);
    for (const auto& [begin, segment] : segments) {
      if (segment.node < 0 || begin >= segment.end) continue;
      std::int32_t& chain = chain_of[static_cast<std::size_t>(segment.node)];
      if (chain < 0) {
        for (std::int32_t n = segment.node; n >= 0; n = nodes[static_cast<std::size_t>(n)].parent)
          table.chain_names_.push_back(nodes[static_cast<std::size_t>(n)].name);
        chain = static_cast<std::int32_t>(table.chain_offsets_.size() - 1);
        table.chain_offsets_.push_back(static_cast<std::uint32_t>(table.chain_names_.size()));
      }
      auto& ranges = table.ranges_;
      if (!ranges.empty() && ranges.back().end == begin && ranges.back().chain == static_cast<std::uint32_t>(chain)) {
        ranges.back().end = segment.end;
      } else {
        ranges.push_back(PdbSymbolTable::Range{begin, segment.end, static_cast<std::uint32_t>(chain)});
      }
    }
    table.stats_.ranges = table.ranges_.size();
  }
};

PdbSymbolTable::PdbSymbolTable(const std::string& path) : path_(path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!buffer) fail(path, "cannot read: " + buffer.getError().message());
  const llvm::StringRef bytes = (*buffer)->getBuffer();
  if (bytes.size() < sizeof(llvm::msf::Magic) || std::memcmp(bytes.data(), llvm::msf::Magic, sizeof(llvm::msf::Magic)) != 0)
    fail(path, "not a PDB (no MSF 7.00 signature)");

  llvm::BumpPtrAllocator allocator;
  auto stream = std::make_unique<llvm::MemoryBufferByteStream>(std::move(*buffer), llvm::support::little);
  llvm::pdb::PDBFile file(path, std::move(stream), allocator);
  if (auto error = file.parseFileHeaders()) fail(path, "unreadable PDB: " + take_message(std::move(error)));
  if (auto error = file.parseStreamData()) fail(path, "unreadable PDB: " + take_message(std::move(error)));

  auto info = file.getPDBInfoStream();
  if (!info) fail(path, "unreadable PDB info stream: " + take_message(info.takeError()));
  const cv::GUID guid = info->getGuid();
  std::copy(std::begin(guid.Guid), std::end(guid.Guid), identity_.guid.begin());
  identity_.age = info->getAge();
  identity_.pdb_name = utf8_from_path(path_from_utf8(path).filename());

  PdbTableBuilder builder(*this);
  if (!file.hasPDBDbiStream()) return;  // identity only: no functions known
  auto dbi = file.getPDBDbiStream();
  if (!dbi) fail(path, "unreadable PDB DBI stream: " + take_message(dbi.takeError()));
  identity_.age = dbi->getAge();
  builder.read_sections(*dbi);
  builder.read_publics(file);

  cv::LazyRandomTypeCollection* ids = nullptr;
  cv::LazyRandomTypeCollection* types = nullptr;
  if (file.hasPDBIpiStream()) {
    if (auto ipi = file.getPDBIpiStream()) ids = &ipi->typeCollection();
    else llvm::consumeError(ipi.takeError());
  }
  if (file.hasPDBTpiStream()) {
    if (auto tpi = file.getPDBTpiStream()) types = &tpi->typeCollection();
    else llvm::consumeError(tpi.takeError());
  }
  const llvm::pdb::DbiModuleList& modules = dbi->modules();
  for (std::uint32_t i = 0; i < modules.getModuleCount(); ++i)
    builder.read_module(file, modules.getModuleDescriptor(i), ids, types);
  builder.build_table();
}

bool PdbSymbolTable::lookup(std::uint32_t rva, std::vector<std::string>& frames_innermost_first) const {
  frames_innermost_first.clear();
  auto it = std::upper_bound(ranges_.begin(), ranges_.end(), rva,
                             [](std::uint32_t value, const Range& r) { return value < r.begin; });
  if (it == ranges_.begin()) return false;
  --it;
  if (rva >= it->end) return false;
  for (std::uint32_t i = chain_offsets_[it->chain]; i < chain_offsets_[it->chain + 1]; ++i)
    frames_innermost_first.push_back(names_[chain_names_[i]]);
  return true;
}

}  // namespace heapql
