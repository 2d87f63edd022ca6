#include "engine/query/aggregator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "engine/error.h"
#include "engine/query/cull_list.h"

namespace heapql {

namespace {

constexpr std::int64_t kAutoSeriesStartNs = 1'000'000;  // open windows start at 1 ms buckets

bool iequals(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                    [](char x, char y) { return std::tolower(static_cast<unsigned char>(x)) ==
                                                std::tolower(static_cast<unsigned char>(y)); });
}

std::optional<std::uint64_t> parse_number(std::string_view text) {
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

bool matches_id_or_name(const std::vector<std::string>& wanted, std::uint64_t id, std::string_view name) {
  for (const std::string& w : wanted) {
    if (auto n = parse_number(w); n && *n == id) return true;
    if (iequals(w, name)) return true;
  }
  return false;
}

}  // namespace

void Measures::add(const Measures& o) {
  so += o.so;
  soc += o.soc;
  st += o.st;
  stc += o.stc;
  src += o.src;
  count += o.count;
  size += o.size;
  impacting += o.impacting;
  blocks += o.blocks;
}

std::uint64_t Measures::value(Measure m) const {
  switch (m) {
    case Measure::kSo: return so;
    case Measure::kSoc: return soc;
    case Measure::kSt: return st;
    case Measure::kStc: return stc;
    case Measure::kSrc: return src;
  }
  return 0;
}

FramePatternSet compile_cull_set(const Query& query) {
  FramePatternSet set;
  if (query.default_cull) set.add_all(default_cull_patterns());
  for (const std::string& text : query.cull) set.add(FramePattern::parse(text));
  for (const std::string& path : query.cull_files) set.add_all(read_cull_list(path));
  return set;
}

FramePatternSet compile_require_set(const Query& query) {
  FramePatternSet set;
  for (const std::string& text : query.require) set.add(FramePattern::parse(text));
  return set;
}

Aggregator::Aggregator(const TraceTables& tables, Query query)
    : tables_(tables),
      query_(std::move(query)),
      t1_(query_.window.begin_ns),
      t2_(query_.window.end_ns.value_or(kNeverNs)),
      impacting_mode_(query_.uses_impacting()),
      impacting_level_(std::find(query_.by.begin(), query_.by.end(), GroupBy::kImpacting) != query_.by.end()),
      stack_plan_(tables, compile_cull_set(query_), compile_require_set(query_)) {
  if (t2_ < t1_) throw Error(fmt::format("window ends ({} ns) before it begins ({} ns)", t2_, t1_));
  for (Impacting t : query_.impacting) impacting_mask_ |= 1u << static_cast<unsigned>(t);
  if (query_.series_buckets > 0) {
    series_bucket_ns_ = query_.window.end_ns
                            ? std::max<std::int64_t>(1, (t2_ - t1_ + query_.series_buckets - 1) / query_.series_buckets)
                            : kAutoSeriesStartNs;
  }
}

bool Aggregator::bucket_passes(const Bucket& bucket, StackId full_stack) {
  if (bucket.size < query_.size_min) return false;
  if (query_.size_end && bucket.size >= *query_.size_end) return false;
  if (!query_.kinds.empty() && std::find(query_.kinds.begin(), query_.kinds.end(), bucket.kind) == query_.kinds.end()) {
    return false;
  }
  if (!query_.threads.empty() &&
      std::find(query_.threads.begin(), query_.threads.end(), bucket.thread) == query_.threads.end()) {
    return false;
  }
  if (!query_.processes.empty()) {
    if (!bucket.process.valid()) return false;
    const Process& p = tables_.process(bucket.process);
    if (!matches_id_or_name(query_.processes, p.pid, tables_.string(p.name))) return false;
  }
  if (!query_.heaps.empty()) {
    if (!bucket.heap.valid()) return false;
    const Heap& h = tables_.heap(bucket.heap);
    if (!matches_id_or_name(query_.heaps, h.handle, tables_.string(h.name))) return false;
  }
  return stack_plan_.required(full_stack);
}

std::int32_t Aggregator::intern_key(const Bucket& bucket, StackId culled) {
  std::vector<std::uint64_t> values;
  values.reserve(query_.by.size());
  for (GroupBy level : query_.by) {
    std::uint64_t v = 0;
    switch (level) {
      case GroupBy::kStack: v = culled.value; break;
      case GroupBy::kFrame: v = culled.valid() ? tables_.stack(culled).frame.value : FrameId().value; break;
      case GroupBy::kImage:
        v = culled.valid() ? tables_.frame(tables_.stack(culled).frame).module.value : StringId().value;
        break;
      case GroupBy::kProcess: v = bucket.process.value; break;
      case GroupBy::kHeap: v = bucket.heap.value; break;
      case GroupBy::kKind: v = static_cast<std::uint64_t>(bucket.kind); break;
      case GroupBy::kThread: v = bucket.thread; break;
      case GroupBy::kImpacting: v = 0; break;  // decided per block
    }
    values.push_back(v);
  }
  std::string bytes(reinterpret_cast<const char*>(values.data()), values.size() * sizeof(std::uint64_t));
  auto [it, inserted] = key_ids_.try_emplace(std::move(bytes), static_cast<std::int32_t>(key_values_.size()));
  if (inserted) {
    key_values_.push_back(std::move(values));
    rows_.resize(key_values_.size() * (impacting_level_ ? 4 : 1));
  }
  return it->second;
}

Aggregator::BucketState& Aggregator::plan(BucketId id) {
  if (buckets_.size() <= id.index()) buckets_.resize(std::max(tables_.bucket_count(), std::size_t{id.index()} + 1));
  BucketState& state = buckets_[id.index()];
  if (state.key != kUnplanned) return state;
  const Bucket& bucket = tables_.bucket(id);
  state.size = bucket.size;
  state.is_realloc = bucket.is_realloc;
  state.key = bucket_passes(bucket, bucket.stack) ? intern_key(bucket, stack_plan_.culled(bucket.stack)) : kFilteredOut;
  return state;
}

Measures& Aggregator::row_measures(std::int32_t key, Impacting type) {
  const std::size_t index = impacting_level_ ? std::size_t(key) * 4 + static_cast<std::size_t>(type) : std::size_t(key);
  return rows_[index];
}

void Aggregator::note_level(std::int64_t now_ns) {
  if (peak_seen_ && level_bytes_ <= peak_.bytes) return;
  peak_seen_ = true;
  peak_ = Peak{level_bytes_, level_blocks_, now_ns};
  ++peak_epoch_;
}

void Aggregator::enter_window(std::int64_t now_ns) {
  in_window_ = true;
  // The level carried into the window is the outstanding size at T1.
  if (t1_ < t2_) note_level(t1_);
  (void)now_ns;
}

void Aggregator::series_advance(std::int64_t now_ns) {
  if (series_bucket_ns_ == 0 || now_ns < t1_ || now_ns >= t2_) return;
  auto index = static_cast<std::size_t>((now_ns - t1_) / series_bucket_ns_);
  while (index >= std::size_t{query_.series_buckets}) {
    // Open window: halve the resolution; maxima merge exactly.
    for (std::size_t i = 0; i < series_.size(); ++i) {
      series_[i / 2] = (i % 2 == 0) ? series_[i] : std::max(series_[i / 2], series_[i]);
    }
    series_.resize((series_.size() + 1) / 2);
    series_bucket_ns_ *= 2;
    index = static_cast<std::size_t>((now_ns - t1_) / series_bucket_ns_);
  }
  if (series_.size() <= index) series_.resize(index + 1, level_bytes_);
}

void Aggregator::change_live(BucketState& state, bool up, std::int64_t now_ns) {
  if (!in_window_ && now_ns >= t1_) enter_window(now_ns);
  series_advance(now_ns);
  if (state.saved_epoch != peak_epoch_) {
    state.live_at_peak = state.live;
    state.saved_epoch = peak_epoch_;
  }
  if (up) {
    ++state.live;
    ++level_blocks_;
    level_bytes_ += state.size;
  } else {
    --state.live;
    --level_blocks_;
    level_bytes_ -= state.size;
  }
  if (now_ns >= t1_ && now_ns < t2_) {
    note_level(now_ns);
    if (series_bucket_ns_ != 0) {
      auto& slot = series_[static_cast<std::size_t>((now_ns - t1_) / series_bucket_ns_)];
      slot = std::max(slot, level_bytes_);
    }
  }
}

void Aggregator::on_alloc(const LiveBlock& block) {
  BucketState& state = plan(block.bucket);
  if (state.key >= 0) change_live(state, true, block.alloc_ns);
}

void Aggregator::on_free(const LiveBlock& block, std::uint64_t, std::int64_t free_ns, bool temporary) {
  BucketState& state = plan(block.bucket);
  if (state.key >= 0) change_live(state, false, free_ns);
  complete(block, free_ns, temporary);
}

void Aggregator::on_still_alive(const LiveBlock& block) { complete(block, kNeverNs, false); }

void Aggregator::complete(const LiveBlock& block, std::int64_t free_ns, bool temporary) {
  if (query_.block_set == BlockSet::kAtPeak) return;
  const BucketState& state = plan(block.bucket);
  const bool alloc_in = block.alloc_ns >= t1_ && block.alloc_ns < t2_;
  const auto exclude = [&] {
    if (alloc_in) {
      ++excluded_blocks_;
      excluded_bytes_ += state.size;
    }
  };
  if (state.key == kFilteredOut) return exclude();
  const bool freed_in = free_ns < t2_;
  Impacting type;
  if (alloc_in) {
    type = freed_in ? Impacting::kAifi : Impacting::kAifo;
  } else {
    // Allocated before T1 (or after T2): only WPA's set looks at it, and only
    // if it was still alive when the window opened (§7).
    if (!impacting_mode_ || block.alloc_ns >= t2_ || free_ns < t1_) return;
    type = freed_in ? Impacting::kAofi : Impacting::kAofo;
  }
  if (impacting_mask_ != 0 && (impacting_mask_ & (1u << static_cast<unsigned>(type))) == 0) return exclude();
  if (query_.temporary_only && !temporary) return exclude();
  if (query_.lifetime_min_ns || query_.lifetime_end_ns) {
    // Outstanding blocks lived at least until T2; with an open window, for ever (§4).
    const std::int64_t lifetime = freed_in ? free_ns - block.alloc_ns : (t2_ == kNeverNs ? kNeverNs : t2_ - block.alloc_ns);
    if (query_.lifetime_min_ns && lifetime < *query_.lifetime_min_ns) return exclude();
    if (query_.lifetime_end_ns && lifetime >= *query_.lifetime_end_ns) return exclude();
  }
  Measures delta;
  delta.blocks = 1;
  if (alloc_in) {
    delta.stc = 1;
    delta.st = state.size;
    delta.src = state.is_realloc ? 1 : 0;
    if (!freed_in) {
      delta.so = state.size;
      delta.soc = 1;
    }
    if (temporary) ++temporary_blocks_;
  }
  if (impacting_mode_) {
    delta.count = 1;
    delta.size = state.size;
    const auto signed_size = static_cast<std::int64_t>(state.size);
    delta.impacting = type == Impacting::kAifo ? signed_size : type == Impacting::kAofi ? -signed_size : 0;
  }
  row_measures(state.key, type).add(delta);
  totals_.add(delta);
}

void Aggregator::on_finish(std::int64_t end_ns) {
  end_ns_ = end_ns;
  if (!in_window_ && t1_ <= end_ns) enter_window(t1_);
  if (end_ns >= t1_) {
    const std::int64_t last = std::min(end_ns, t2_ == kNeverNs ? end_ns : t2_ - 1);
    series_advance(last);
  }
  if (query_.block_set != BlockSet::kAtPeak) return;
  for (const BucketState& state : buckets_) {
    if (state.key < 0) continue;
    const std::uint64_t n = state.saved_epoch == peak_epoch_ ? state.live_at_peak : state.live;
    if (n == 0) continue;
    Measures delta;
    delta.blocks = n;
    delta.soc = delta.stc = n;
    delta.so = delta.st = n * state.size;
    delta.src = state.is_realloc ? n : 0;
    row_measures(state.key, Impacting::kAifo).add(delta);
    totals_.add(delta);
  }
}

KeyValue Aggregator::render_level(GroupBy level, std::uint64_t value) const {
  KeyValue kv;
  kv.level = level;
  const auto id32 = static_cast<std::uint32_t>(value);
  switch (level) {
    case GroupBy::kStack: {
      kv.stack = StackId(id32);
      std::vector<FrameId> frames;
      tables_.stack_frames(kv.stack, frames);
      for (FrameId f : frames) kv.frames.push_back(tables_.frame_text(f));
      break;
    }
    case GroupBy::kFrame: kv.text = FrameId(id32).valid() ? tables_.frame_text(FrameId(id32)) : "[no stack]"; break;
    case GroupBy::kImage: kv.text = StringId(id32).valid() ? std::string(tables_.string(StringId(id32))) : "[no stack]"; break;
    case GroupBy::kProcess: {
      if (!ProcessId(id32).valid()) {
        kv.text = "[unknown]";
        break;
      }
      const Process& p = tables_.process(ProcessId(id32));
      kv.text = fmt::format("{} ({})", tables_.string(p.name), p.pid);
      break;
    }
    case GroupBy::kHeap: kv.text = HeapId(id32).valid() ? std::string(tables_.string(tables_.heap(HeapId(id32)).name)) : "[unknown]"; break;
    case GroupBy::kKind: kv.text = block_kind_name(static_cast<BlockKind>(value)); break;
    case GroupBy::kThread: kv.text = fmt::format("{}", value); break;
    case GroupBy::kImpacting: kv.text = impacting_name(static_cast<Impacting>(value)); break;
  }
  return kv;
}

namespace {
// Ties break by the key, ascending, level by level; stacks frame by frame
// (a prefix first); strings by their bytes (§3).
bool key_less(const std::vector<KeyValue>& a, const std::vector<KeyValue>& b) {
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].level == GroupBy::kStack) {
      if (a[i].frames != b[i].frames) return a[i].frames < b[i].frames;
    } else if (a[i].text != b[i].text) {
      return a[i].text < b[i].text;
    }
  }
  return a.size() < b.size();
}
}  // namespace

Result Aggregator::result(const SourceInfo& source) {
  Result r;
  r.query = query_;
  r.realloc_known = source.realloc_marked;
  r.impacting_measures = impacting_mode_;
  r.totals = totals_;
  r.temporary_blocks = temporary_blocks_;
  r.excluded_blocks = excluded_blocks_;
  r.excluded_bytes = excluded_bytes_;
  r.peak = peak_;
  r.trace_end_ns = end_ns_;
  if (series_bucket_ns_ != 0) r.series = Series{t1_, series_bucket_ns_, series_};
  if (query_.totals_only || query_.by.empty()) return r;

  const std::size_t per_key = impacting_level_ ? 4 : 1;
  for (std::size_t index = 0; index < rows_.size(); ++index) {
    if (rows_[index].blocks == 0) continue;
    const std::vector<std::uint64_t>& values = key_values_[index / per_key];
    Row row;
    row.measures = rows_[index];
    for (std::size_t level = 0; level < query_.by.size(); ++level) {
      const GroupBy by = query_.by[level];
      row.key.push_back(render_level(by, by == GroupBy::kImpacting ? index % per_key : values[level]));
    }
    r.rows.push_back(std::move(row));
  }
  const Measure sort = query_.sort;
  std::sort(r.rows.begin(), r.rows.end(), [sort](const Row& a, const Row& b) {
    const std::uint64_t va = a.measures.value(sort), vb = b.measures.value(sort);
    if (va != vb) return va > vb;
    return key_less(a.key, b.key);
  });
  if (r.rows.size() > query_.top) {
    Measures other;
    for (std::size_t i = query_.top; i < r.rows.size(); ++i) other.add(r.rows[i].measures);
    r.other_rows = r.rows.size() - query_.top;
    r.other = other;
    r.rows.resize(query_.top);
  }
  return r;
}

}  // namespace heapql
