#include "engine/ingest/heaptrack_record_parser.h"

#include <fmt/format.h>

#include <algorithm>
#include <filesystem>

#include "engine/ingest/heaptrack_fields.h"
#include "engine/ingest/trace_cut.h"
#include "engine/binary_file/source_identity.h"
#include "engine/warnings.h"
#include "engine/platform/utf8_wide.h"

namespace heapql::heaptrack {

namespace {

constexpr std::uint32_t kNewestFormatVersion = 3;
constexpr std::int64_t kNsPerMs = kTimeResolutionNs;  // a timestamp counts milliseconds
constexpr std::size_t kMaxCommandBytes = 1 << 20;

std::string_view base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

RecordParser::RecordParser(const HeaptrackFiles& files, const std::string& user_path, std::string_view compression,
                           TraceTables& tables, EventConsumer& consumer, const HeaptrackReadOptions& options)
    : tables_(tables),
      options_(options),
      anomaly_report_(options.strict, options.warnings),
      path_(files.interpreted),
      consumer_(consumer) {
  info_.compression = std::string(compression);
  if (files.raw) {
    if (files.raw_stream) {
      raw_.emplace(*files.raw, *files.raw_stream, anomaly_report_);
    } else if (files.raw_bytes) {
      raw_.emplace(*files.raw, *files.raw_bytes, anomaly_report_);
    } else {
      raw_.emplace(*files.raw, options.show_progress, anomaly_report_);
    }
    if (options.write_block_identity && !files.interpreted_bytes) {
      const std::string identity = block_identity_beside(files.interpreted);
      try {
        // A file still being written is identified once it is whole (finish).
        identify_interpreted_at_finish_ = files.interpreted_stream != nullptr;
        identity_writer_ = std::make_unique<BlockIdentityWriter>(
            identity, identify_interpreted_at_finish_ ? FileIdentity{} : store_file::identify_file(files.interpreted));
      } catch (const Error& e) {
        emit_warning(options.warnings,
                     fmt::format("{}: not written, {}; the trace is read without it (later readings read the raw "
                                 "twin again)\n",
                                 identity, e.what()));
      }
    }
  } else if (files.identity) {
    if (files.identity_bytes) {
      identity_.emplace(*files.identity, *files.identity_bytes);
    } else {
      identity_.emplace(*files.identity);
    }
  }
  info_.path = user_path;
  info_.files = files.paths();
  info_.source = "heaptrack";
  info_.format = files.raw || files.identity ? "raw+interpreted" : "interpreted";
  info_.time_resolution_ns = kTimeResolutionNs;
  strings_.push_back(StringId());  // index 0: no string
  traces_.push_back(StackId().value);  // index 0: the empty stack
  ips_.emplace_back();             // index 0: no instruction pointer
}

void RecordParser::no_whole_line(const std::optional<TraceCut>& cut, std::string_view left_over_start) const {
  if (!cut) throw Error(SourceLocation::of_file(path_), "no records: the file holds no text");
  const SourceLocation at{path_, {}, {}, cut->at_byte};
  // Text without a newline that is no start of a heaptrack file is not a
  // cut trace, whatever holds it (a .zst of a word).
  if (!left_over_start.empty() && !left_over_start.starts_with("v ") && !left_over_start.starts_with("#")) {
    throw Error(SourceLocation::of_file(path_),
                fmt::format("not a heaptrack file: expected the 'v' record first, got {} ({} bytes without a newline)",
                            excerpt(left_over_start), cut->left_over_bytes));
  }
  std::string how = cut->what;
  if (how.find("zstd") != std::string::npos) how += " (its zstd frame is incomplete)";
  if (cut->left_over_bytes > 0) how += fmt::format(", {} bytes of a line left over", cut->left_over_bytes);
  throw Error(at, fmt::format("the trace is cut short before its first whole line: {}; nothing complete remains to "
                              "answer",
                              how));
}

SourceInfo RecordParser::finish(std::optional<TraceCut> cut, std::uint64_t end_byte,
                                std::string_view left_over_start) {
  if (line_ == 0) no_whole_line(cut, left_over_start);
  if (!matcher_) throw Error(SourceLocation::of_file(path_), "not a heaptrack file: no 'v' record");
  if (command_.open()) {
    throw Error(location(), "the 'X' record's command line runs on to the end of the file without the 'I' "
                                "record that heaptrack writes after it");
  }
  // A last line cut off says more than the closing lines it lacks.
  if (!cut) cut = closing_.cut(path_, end_byte, closing_counts());
  if (!cut && raw_) cut = raw_->cut();
  info_.lines = line_;
  info_.block_identity = matcher_->identity();
  info_.end_ns = matcher_->time();
  info_.anomalies = matcher_->anomalies();
  if (identity_) {
    if (next_end_seq_ != kNoEnd && !cut) {
      identity_disagrees(fmt::format("it ends a block as event {}, after the trace's last event", next_end_seq_));
    }
    // The twin's frees of addresses not alive, as counted when the file was
    // written: their places are the twin's, which this reading has not.
    info_.anomalies.unmatched_frees = identity_->unmatched_frees();
    info_.anomalies.double_frees = identity_->double_frees();
    if (identity_->unmatched_frees() + identity_->double_frees() > 0) {
      anomaly_report_.note(SourceLocation::of_file(identity_->path()),
                           fmt::format("the raw twin it was written from frees {} addresses where no block is alive "
                                       "(unmatched_frees) and {} twice (double_frees)",
                                       identity_->unmatched_frees(), identity_->double_frees()));
    }
  }
  anomaly_report_.finish(path_);
  info_.anomalies.decreasing_timestamps = decreasing_timestamps_;
  info_.anomalies.skipped_records = skipped_records_;
  info_.peak_rss_bytes = peak_rss_pages_ * page_size_;
  info_.details = details();
  info_.cut = std::move(cut);
  if (info_.cut) report_cut(*info_.cut, info_.end_ns, options_.strict, options_.warnings);
  ensure_process();
  matcher_->finish();
  if (identity_writer_ && !info_.cut) {
    if (identify_interpreted_at_finish_) identity_writer_->set_interpreted(store_file::identify_file(path_));
    if (options_.block_identity_committed) {
      *options_.block_identity_committed =
          identity_writer_->commit_in_background(info_.anomalies.unmatched_frees, info_.anomalies.double_frees);
    } else {
      identity_writer_->commit(info_.anomalies.unmatched_frees, info_.anomalies.double_frees);
    }
  }
  return info_;
}

void RecordParser::read_next_end() {
  next_end_seq_ = identity_->next(next_end_) ? next_end_.seq : kNoEnd;
}

void RecordParser::identity_disagrees(const std::string& what) const {
  throw Error(location(), fmt::format("the block-identity file {} disagrees with this file: {} (delete it to read the "
                                      "raw twin, or read with --no-raw)",
                                      identity_->path(), what));
}

bool RecordParser::take_out_of_order_ends(BucketId bucket, bool is_free) {
  while (next_end_seq_ == matcher_->event_count()) {
    const OutOfOrderEndRecord end = next_end_;
    read_next_end();
    if (end.id_back >= matcher_->block_count() || end.seq_back >= end.seq ||
        end.ns_back > matcher_->time() || (!end.is_free && end.bucket >= tables_.bucket_count())) {
      identity_disagrees(fmt::format("it ends, as event {}, a block the trace has not allocated", end.seq));
    }
    if (end.is_free && !is_free) identity_disagrees(fmt::format("it frees a block as event {}, an allocation", end.seq));
    const LiveBlock block{BlockId(static_cast<std::uint32_t>(matcher_->block_count() - 1 - end.id_back)),
                          end.is_free ? bucket : BucketId(end.bucket), end.seq - 1 - end.seq_back,
                          matcher_->time() - end.ns_back};
    if (!matcher_->end_out_of_order(block, end.temporary)) {
      identity_disagrees(fmt::format("it ends block {} as event {}, which is not alive then as it says",
                                     block.id.value, end.seq));
    }
    if (end.is_free) return true;
    ++matcher_->anomalies().alloc_over_live;
    anomaly_report_.note(location(), fmt::format("allocates where block {} is still alive, as {} tells: the earlier "
                                                 "block ends here (alloc_over_live)",
                                                 block.id.value, identity_->path()));
  }
  return false;
}

SourceDetails RecordParser::details() const {
  SourceDetails details;
  details.source_line = fmt::format("format version {}, heaptrack {}", format_version_, tracer_version_);
  InfoValue heaptrack = InfoValue::object();
  heaptrack.set("version", InfoValue::string(tracer_version_));
  heaptrack.set("format_version", InfoValue::whole(format_version_));
  heaptrack.set("command", InfoValue::string(info_.command));
  heaptrack.set("page_size", InfoValue::whole(page_size_));
  heaptrack.set("peak_rss_bytes", InfoValue::whole(info_.peak_rss_bytes));
  heaptrack.set("attached", InfoValue::boolean(attached_));
  InfoValue& suppressions = heaptrack.set("embedded_suppressions", InfoValue::array());
  for (const std::string& line : info_.embedded_suppressions) suppressions.push(InfoValue::string(line));
  details.json.emplace_back("heaptrack", std::move(heaptrack));
  return details;
}

void RecordParser::handle_decoded_event(std::uint32_t index, bool is_free) {
  const std::string text = fmt::format("{} {:x}", is_free ? '-' : '+', index);
  handle(text);
}

void RecordParser::handle(std::string_view line) {
  if (command_.continues(line)) {
    if (info_.command.size() > kMaxCommandBytes) {
      throw Error(location(), "the 'X' record's command line runs on without the 'I' record that ends it");
    }
    info_.command += '\n';
    info_.command += line;
    return;
  }
  if (line.empty()) {  // the interpreter writes one before its closing lines
    ++quiet_lines_;
    return;
  }
  const char type = line[0];
  if (!saw_version_ && type != '#' && line.rfind("v ", 0) != 0) {
    throw Error(location(), fmt::format("not a heaptrack file: expected the 'v' record first, got {}",
                                            excerpt(line)));
  }
  Fields f(line, path_, line_);
  switch (type) {
    case 'v': return on_version(f);
    case 'X': return on_command(f);
    case 'I':
      page_size_ = f.hex("page size");
      f.hex("physical pages");
      return;
    case 'S': info_.embedded_suppressions.emplace_back(f.rest()); return;
    case 'A': attached_ = true; return;
    case '#':
      ++quiet_lines_;
      return closing_.comment(line, closing_counts(), location());
    case 's': return on_string(f);
    case 'i': return on_ip(f);
    case 't': return on_trace(f);
    case 'a': return on_alloc_info(f);
    case '+': return on_alloc(f);
    case '-': return on_free(f);
    case 'c': return on_clock(f);
    case 'R': peak_rss_pages_ = std::max(peak_rss_pages_, f.hex("RSS pages")); return;
    case 'x':
    case 'm':
      f.fail(fmt::format("this is a raw heaptrack file (written by heaptrack --raw); heapql reads it together with "
                         "its interpreted twin (run heaptrack_interpret on it, or record with `heapql record`)"));
    default: return on_unknown(type, f);
  }
}

void RecordParser::on_unknown(char type, Fields& f) {
  // heaptrack skips record types it does not know (newer writers may add
  // some); we do that for letters only. Anything else is not a heaptrack
  // record at all: the file is damaged.
  const bool letter = (type >= 'a' && type <= 'z') || (type >= 'A' && type <= 'Z');
  if (!letter) f.fail("unknown record type: the line does not start with a heaptrack record type");
  ++skipped_records_;
  anomaly_report_.note(location(), fmt::format("skipped unknown record type {} (as heaptrack does; skipped_records)",
                                               record_name(type)));
}

void RecordParser::on_version(Fields& f) {
  if (saw_version_) f.fail("a second 'v' record");
  saw_version_ = true;
  const std::uint64_t version = f.hex("heaptrack version");
  tracer_version_ = fmt::format("{}.{}.{}", version >> 16, (version >> 8) & 0xff, version & 0xff);
  if (f.more()) {
    const std::uint64_t format = f.hex("file format version");
    if (format > kNewestFormatVersion) {
      f.fail(fmt::format("file format version {} is newer than this reader knows ({})", format, kNewestFormatVersion));
    }
    format_version_ = static_cast<std::uint32_t>(format);
  } else {
    format_version_ = version == 0x10200 ? 1 : 0;
  }
  f.expect_end();
  // Version 0 files carry addresses, and so does a raw twin: exact identity;
  // and so is a block-identity file's bucket LIFO with its exceptions.
  if (identity_ && format_version_ == 0) {
    f.fail(fmt::format("a format-version-0 file carries its addresses: its block-identity file {} is not for it",
                       identity_->path()));
  }
  matcher_.emplace(raw_ || format_version_ == 0 ? FreePairing::kByAddress
                   : identity_                  ? FreePairing::kBucketLifoWithExceptions
                                                : FreePairing::kBucketLifo,
                   consumer_);
  if (identity_) {
    matcher_->set_exceptions_file(identity_->path());
    // Counting needs no block's own numbers, and the whole trace's counts
    // not even the allocation times: those columns are never read then.
    const bool counting = matcher_->counting();
    ends_join_runs_ = counting && consumer_.frees_ignore_allocation_time();
    identity_->decode(!ends_join_runs_, !counting);
    read_next_end();
  }
  if (identity_writer_) {
    matcher_->report_out_of_order_ends(*identity_writer_);
    identity_writer_->follow(*matcher_);
  }
}

void RecordParser::on_command(Fields& f) {
  if (saw_command_) f.fail("a second 'X' record (heaptrack rejects such files too)");
  saw_command_ = true;
  info_.command = std::string(f.rest());
  command_.start(format_version_);
}

std::string_view RecordParser::string_field(Fields& f, std::string_view what) {
  return format_version_ >= 3 ? f.length_prefixed(what) : f.rest();
}

void RecordParser::on_string(Fields& f) {
  const std::string_view text = string_field(f, "string");
  f.expect_end();
  strings_.push_back(tables_.intern_string(text));
}

std::uint32_t RecordParser::string_index(Fields& f, std::string_view what) {
  const std::uint32_t index = f.index(what);
  if (index >= strings_.size()) {
    f.fail(fmt::format("{}: string index {:x} points nowhere ({} strings defined)", what, index, strings_.size() - 1));
  }
  return index;
}

void RecordParser::on_ip(Fields& f) {
  InstructionPointer ip;
  ip.address = f.hex("instruction pointer");
  ip.module_path = string_index(f, "module");
  ip.first_symbol = static_cast<std::uint32_t>(symbols_.size());
  if (f.more()) {
    symbols_.push_back(string_index(f, "function"));
    if (f.more()) {
      string_index(f, "file");
      f.hex("line");
      while (f.more()) {
        symbols_.push_back(string_index(f, "inlined function"));
        string_index(f, "inlined file");
        f.hex("inlined line");
      }
    }
  }
  ip.symbol_count = static_cast<std::uint32_t>(symbols_.size()) - ip.first_symbol;
  ips_.push_back(ip);
}

void RecordParser::build_frames(InstructionPointer& ip) {
  ip.first_frame = static_cast<std::uint32_t>(frames_.size());
  StringId module = tables_.unknown_module();
  std::uint64_t address = ip.address;
  if (ip.module_path != 0) {
    const std::string_view path = tables_.string(strings_[ip.module_path]);
    module = tables_.intern_string(base_name(path));
    const auto ip_index = static_cast<std::uint32_t>(&ip - ips_.data());
    if (raw_) {
      if (const auto base = raw_->module_base(path); base && address >= *base) {
        address -= *base;
        if (identity_writer_) identity_writer_->add_module_base(ip_index, *base);
      }
    } else if (identity_) {
      if (const auto base = identity_->module_base(ip_index); base && address >= *base) address -= *base;
    }
  }
  if (ip.symbol_count == 0) {
    frames_.push_back(tables_.intern_frame(module, StringId(), address));
  } else {
    for (std::uint32_t i = 0; i < ip.symbol_count; ++i) {
      const std::uint32_t symbol = symbols_[ip.first_symbol + i];
      frames_.push_back(tables_.intern_frame(module, symbol ? strings_[symbol] : StringId(), address));
    }
  }
  ip.frames_built = true;
}

void RecordParser::on_trace(Fields& f) {
  const std::uint32_t ip_index = f.index("instruction pointer index");
  const std::uint32_t parent = f.index("parent trace index");
  f.expect_end();
  if (ip_index == 0 || ip_index >= ips_.size()) {
    f.fail(fmt::format("instruction pointer index {:x} points nowhere ({} defined)", ip_index, ips_.size() - 1));
  }
  if (parent >= traces_.size()) {
    f.fail(fmt::format("parent trace index {:x} points nowhere ({} traces defined)", parent, traces_.size() - 1));
  }
  if (raw_) raw_->next_trace(*matcher_, asker());
  add_trace(ip_index, parent);
}

void RecordParser::add_trace(std::uint32_t ip_index, std::uint32_t parent) {
  auto [frames, count] = frames_of(ips_[ip_index]);
  StackId node = trace_stack(parent);
  // The IP's outermost (real) function is called from the parent; its
  // inlined callees stack on top of it.
  for (std::size_t i = count; i-- > 0;) node = tables_.intern_stack(frames[i], node);
  traces_.push_back(node.value);
}

void RecordParser::ensure_process() {
  if (process_.valid()) return;
  std::string name;
  std::uint64_t pid = 0;
  const std::string file = utf8_from_path(path_from_utf8(info_.path).filename());
  // heaptrack's default name: heaptrack.<program>.<pid>[.raw].<zst|gz>
  if (file.rfind("heaptrack.", 0) == 0) {
    const std::string rest = file.substr(10);
    const auto dot = rest.find('.');
    if (dot != std::string::npos) {
      name = rest.substr(0, dot);
      const std::string digits = rest.substr(dot + 1, rest.find('.', dot + 1) - dot - 1);
      if (!digits.empty() && digits.find_first_not_of("0123456789") == std::string::npos && digits.size() < 19) {
        pid = std::stoull(digits);
      }
    }
  }
  if (!info_.command.empty()) name = std::string(base_name(info_.command.substr(0, info_.command.find(' '))));
  if (name.empty()) name = "?";
  process_ = tables_.intern_process(pid, name);
  heap_ = tables_.intern_heap(process_, 0, "default");
}

BucketId RecordParser::bucket_for(std::uint64_t size, std::uint32_t trace) {
  ensure_process();
  return tables_.intern_bucket(heap_bucket(size, trace_stack(trace)));
}

std::uint32_t RecordParser::trace_index(Fields& f, std::string_view what) {
  const std::uint32_t trace = f.index(what);
  if (trace >= traces_.size()) {
    f.fail(fmt::format("{}: trace index {:x} points nowhere ({} traces defined)", what, trace, traces_.size() - 1));
  }
  return trace;
}

void RecordParser::on_alloc_info(Fields& f) {
  const std::uint64_t size = f.hex("size");
  const std::uint32_t trace = trace_index(f, "trace");
  f.expect_end();
  add_alloc_info(size, trace);
}

void RecordParser::add_alloc_info(std::uint64_t size, std::uint32_t trace) {
  alloc_infos_.push_back(bucket_for(size, trace).value);
}

std::uint32_t RecordParser::alloc_info_index(Fields& f) {
  const std::uint32_t index = f.index("allocation-info index");
  if (index >= alloc_infos_.size()) {
    f.fail(fmt::format("allocation-info index {:x} points nowhere ({} 'a' records so far)", index,
                       alloc_infos_.size()));
  }
  return index;
}

void RecordParser::on_alloc(Fields& f) {
  if (format_version_ == 0) {
    const std::uint64_t size = f.hex("size");
    const std::uint32_t trace = trace_index(f, "trace");
    const std::uint64_t address = f.hex("address");
    f.expect_end();
    const Anomalies before = matcher_->anomalies();
    matcher_->alloc(bucket_for(size, trace), address);
    return note_counted(before, address);
  }
  const std::uint32_t index = alloc_info_index(f);
  f.expect_end();
  if (raw_) return alloc_with_twin(index);
  if (next_end_seq_ == matcher_->event_count()) take_out_of_order_ends(alloc_info_bucket(index), false);
  matcher_->alloc(alloc_info_bucket(index), 0);
}

// An allocation of a known allocation info, its address from the raw twin.
void RecordParser::alloc_with_twin(std::uint32_t index) {
  const BucketId bucket = alloc_info_bucket(index);
  const heaptrack::RawTwin::Alloc raw = raw_->next_alloc(*matcher_, asker());
  // The twin's trace must be the allocation info's stack: what a bucket is
  // made of (two trace indices are one stack only when their frames are).
  const Bucket& expected = tables_.bucket(bucket);
  if (raw.size != expected.size || raw.trace >= traces_.size() || trace_stack(raw.trace) != expected.stack) {
    raw_->mismatch(asker(), fmt::format("an allocation of {} bytes of allocation-info {:x}", expected.size, index),
                   fmt::format("a '+' of {} bytes from trace {:x}", raw.size, raw.trace));
  }
  const Anomalies before = matcher_->anomalies();
  matcher_->alloc(bucket, raw.address);
  note_counted(before, raw.address);
}

void RecordParser::on_free(Fields& f) {
  if (format_version_ == 0) {
    const std::uint64_t address = f.hex("address");
    f.expect_end();
    const Anomalies before = matcher_->anomalies();
    matcher_->free_address(address);
    return note_counted(before, address);
  }
  const std::uint32_t index = alloc_info_index(f);
  f.expect_end();
  if (raw_) return free_with_twin(index);
  const BucketId bucket = alloc_info_bucket(index);
  if (next_end_seq_ == matcher_->event_count() && take_out_of_order_ends(bucket, true)) return;
  if (!matcher_->free_bucket(bucket)) free_without_block(index, bucket);
}

void RecordParser::free_without_block(std::uint32_t index, BucketId bucket) {
  const std::string what = fmt::format("'-' record: frees a block of allocation-info {:x} ({} bytes), which has no "
                                       "live block",
                                       index, tables_.bucket(bucket).size);
  // The block-identity file was written from a reading that paired every
  // free: this one cannot be the trace it describes.
  if (identity_) identity_disagrees(what);
  // As heaptrack_interpret drops a free of an address it does not know.
  ++matcher_->anomalies().unmatched_frees;
  anomaly_report_.note(location(), what + ": not paired (unmatched_frees)");
}

void RecordParser::note_counted(const Anomalies& before, std::uint64_t address) {
  const Anomalies& now = matcher_->anomalies();
  if (now.total() == before.total()) [[likely]] return;
  if (now.alloc_over_live != before.alloc_over_live) {
    anomaly_report_.note(location(), fmt::format("allocation at 0x{:x}, where a block is still alive: the earlier "
                                                 "block ends here (alloc_over_live)",
                                                 address));
  } else if (now.double_frees != before.double_frees) {
    anomaly_report_.note(location(),
                         fmt::format("free of 0x{:x}, freed before and not allocated since (double_frees)", address));
  } else {
    anomaly_report_.note(location(), fmt::format("free of 0x{:x}, where no block is alive (unmatched_frees)", address));
  }
}

// A free of a known allocation info: the raw twin's next free of a live
// block, which must be of the same bucket.
void RecordParser::free_with_twin(std::uint32_t index) {
  LiveBlock block;
  const std::uint64_t address = raw_->next_live_free(*matcher_, block, asker());
  if (block.bucket != alloc_info_bucket(index)) {
    raw_->mismatch(asker(), fmt::format("a free of a block of allocation-info {:x}", index),
                   fmt::format("a '-' of address 0x{:x}, a block of another bucket", address));
  }
  matcher_->end_taken(address, block);
}

void RecordParser::on_clock(Fields& f) {
  const std::uint64_t ms = f.hex("milliseconds");
  f.expect_end();
  if (ms > static_cast<std::uint64_t>(kNeverNs / kNsPerMs)) f.fail("timestamp out of range");
  const auto ns = static_cast<std::int64_t>(ms) * kNsPerMs;
  if (ns < matcher_->time()) {
    ++decreasing_timestamps_;  // kept at the previous time, as heaptrack's newer reader does
    anomaly_report_.note(location(), fmt::format("the clock goes back from {} ms to {} ms; the events after it keep "
                                                 "{} ms (decreasing_timestamps)",
                                                 matcher_->time() / kNsPerMs, ms, matcher_->time() / kNsPerMs));
    return;
  }
  matcher_->set_time(ns);
  consumer_.on_clock(ns);
}

}  // namespace heapql::heaptrack
