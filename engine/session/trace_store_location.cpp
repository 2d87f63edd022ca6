// A trace's store: where it lives, whether it is fresh, opening it
// (trace_store_location.h).
#include "engine/session/trace_store_location.h"

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <xxhash.h>

#include <cstdlib>
#include <filesystem>
#include <span>
#include <string_view>
#include <vector>

#include "engine/error.h"
#include "engine/path_kind.h"
#include "engine/ingest/anomaly_report.h"
#include "engine/ingest/open_trace.h"
#include "engine/ingest/side_file.h"
#include "engine/ingest/trace_cut.h"
#include "engine/ingest/trace_is_a_file.h"
#include "engine/binary_file/source_identity.h"
#include "engine/store/store_file_info.h"
#include "engine/store_file/store_reader.h"
#include "engine/warnings.h"
#include "engine/platform/environment.h"
#include "engine/platform/utf8_wide.h"

namespace heapql {

namespace {

void warn(const OpenOptions& options, const std::string& text) { emit_warning(options.warnings, text + "\n"); }

// A reading key (reading_key) in its parts: "no raw twin, as ETL, symbols A,
// symbols B" is {false, "ETL", {"A", "B"}}.
struct ReadingParts {
  bool raw_twin = true;
  std::string forced_format;
  std::vector<std::string> symbols;
};

constexpr std::string_view kForcedFormat = ", as ";
constexpr std::string_view kSymbols = ", symbols ";

ReadingParts reading_parts(std::string_view key) {
  ReadingParts parts;
  if (key.starts_with(kReadingNoRawTwin)) {
    parts.raw_twin = false;
    key.remove_prefix(kReadingNoRawTwin.size());
  } else if (key.starts_with(kReadingRawTwin)) {
    key.remove_prefix(kReadingRawTwin.size());
  }
  const std::size_t symbols_at = key.find(kSymbols);
  if (const std::string_view format = key.substr(0, symbols_at); format.starts_with(kForcedFormat)) {
    parts.forced_format = format.substr(kForcedFormat.size());
  }
  for (std::size_t at = symbols_at; at != std::string_view::npos;) {
    const std::size_t next = key.find(kSymbols, at + kSymbols.size());
    const std::size_t from = at + kSymbols.size();
    parts.symbols.emplace_back(key.substr(from, next == std::string_view::npos ? next : next - from));
    at = next;
  }
  return parts;
}

std::string symbols_in_words(const std::vector<std::string>& symbols) {
  if (symbols.empty()) return "no --symbols";
  std::string words;
  for (const std::string& path : symbols) words += (words.empty() ? "--symbols " : " --symbols ") + path;
  return words;
}

// What the reading that ingested a store and this command's reading (both
// reading keys) differ in, as options, and only that: "ingested with
// --no-raw; this command reads with its raw twin where there is one".
std::string reading_change(const std::string& then, const std::string& now) {
  const ReadingParts a = reading_parts(then);
  const ReadingParts b = reading_parts(now);
  std::vector<std::string> was;
  std::vector<std::string> is;
  const auto raw_in_words = [](bool raw_twin) { return raw_twin ? "its raw twin where there is one" : "--no-raw"; };
  if (a.raw_twin != b.raw_twin) {
    was.emplace_back(raw_in_words(a.raw_twin));
    is.emplace_back(raw_in_words(b.raw_twin));
  }
  const auto format_in_words = [](const std::string& forced) {
    return forced.empty() ? std::string("the format its bytes say") : "the " + forced + " reader";
  };
  if (a.forced_format != b.forced_format) {
    was.push_back(format_in_words(a.forced_format));
    is.push_back(format_in_words(b.forced_format));
  }
  if (a.symbols != b.symbols) {
    was.push_back(symbols_in_words(a.symbols));
    is.push_back(symbols_in_words(b.symbols));
  }
  if (was.empty()) return fmt::format("{}, not {}", then, now);  // a key no heapql of this version writes
  return fmt::format("ingested with {}; this command reads with {}", fmt::join(was, ", "), fmt::join(is, ", "));
}

// The command that writes a store for `trace_path` read as `options` say,
// with the options that matter to the store: `heapql ingest` itself reads
// every trace as found, so a forced format has none.
std::string ingest_advice(const std::string& trace_path, const OpenOptions& options) {
  const ReadingParts parts = reading_parts(reading_key(options, trace_path));
  if (!parts.forced_format.empty()) return "--no-store reads the trace without looking for a store";
  return fmt::format("heapql ingest {}{}{}{} writes one for this reading", trace_path,
                     parts.raw_twin ? "" : " --no-raw", parts.symbols.empty() ? "" : " ",
                     parts.symbols.empty() ? "" : symbols_in_words(parts.symbols));
}

// Why a store does not answer for the trace at `trace_path` read as
// `options` say, or empty when it does.
std::string why_not_fresh(const StoreFileInfo& info, const std::string& trace_path,
                          const OpenOptions& options) {
  if (info.files.empty()) return "it records no trace";
  // A folder moved or copied whole (mv, cp -a, rsync -a) keeps its store:
  // the trace is compared where it is now, and its other files (a raw twin,
  // a block-identity file) where they are beside it.
  const FileIdentity& trace_then = info.files.front();
  const FileIdentity trace_now = store_file::identify_file(trace_path);
  if (const std::string why = store_file::identity_change(trace_then, trace_now); !why.empty()) {
    return trace_then.path != trace_now.path
               ? fmt::format("it is the store of {}, and this trace differs from it ({})", trace_then.path, why)
               : fmt::format("{} has changed since it was ingested ({})", trace_now.path, why);
  }
  const std::filesystem::path folder_now = path_from_utf8(trace_now.path).parent_path();
  for (FileIdentity file : std::span(info.files).subspan(1)) {
    file.path = store_file::relocated(file.path, trace_then.path, trace_now.path);
    // heapql records only files beside the trace; a header that says
    // otherwise is not followed elsewhere.
    if (path_from_utf8(file.path).parent_path() != folder_now) {
      return fmt::format("it records {} as a file of the trace, which is not beside it", file.path);
    }
    const std::string why = store_file::identity_mismatch(file, !options.confined);
    if (!why.empty()) return fmt::format("{} has changed since it was ingested ({})", file.path, why);
  }
  if (const std::string wanted = reading_key(options, trace_path); info.reading != wanted) {
    return fmt::format("it was read with other options ({})", reading_change(info.reading, wanted));
  }
  return {};
}

// The files a store named on the command line was ingested from, where they
// are now: beside it when its trace's name is there (TRACE.hqdb beside
// TRACE, as after `cp -a` or `mv` of their folder, which keeps the recorded
// paths of the old place), else where they were recorded. So a named store
// is judged against the trace beside it, as a store found beside it is.
std::vector<FileIdentity> sources_where_they_are(std::vector<FileIdentity> files, const std::string& store_path) {
  namespace fs = std::filesystem;
  constexpr std::string_view kStoreSuffix = ".hqdb";  // store_beside's
  if (files.empty() || !store_path.ends_with(kStoreSuffix)) return files;
  const std::string beside = store_path.substr(0, store_path.size() - kStoreSuffix.size());
  std::error_code ec;
  const fs::path trace_now = fs::absolute(path_from_utf8(beside), ec).lexically_normal();
  const std::string trace_then = files.front().path;
  if (ec || utf8_from_path(trace_now) == trace_then || trace_now.filename() != path_from_utf8(trace_then).filename() ||
      !fs::is_regular_file(trace_now, ec)) {
    return files;
  }
  for (FileIdentity& file : files) file.path = store_file::relocated(file.path, trace_then, utf8_from_path(trace_now));
  return files;
}

std::string cache_folder() {
#ifdef _WIN32
  // Windows' per-user place for data a program can make again.
  if (const std::optional<std::string> local = environment_variable("LOCALAPPDATA"); local && !local->empty()) {
    return *local + "/heapql/cache";
  }
#else
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/') {
    return std::string(xdg) + "/heapql";
  }
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    return std::string(home) + "/.cache/heapql";
  }
#endif
  return {};
}

}  // namespace

std::string reading_key(const OpenOptions& options, const std::string& trace_path) {
  // Only what changes the events read parts a store from a reading: the raw
  // twin is heaptrack's, the symbol paths are ETL's (docs/cli.md: other
  // sources ignore them), and a format forced to the one the bytes say
  // changes nothing.
  const TraceFormat found = detect_trace_format(trace_path);
  const TraceFormat format = options.format == TraceFormat::kAuto ? found : options.format;
  std::string key(options.use_raw_twin || format != TraceFormat::kHeaptrack ? kReadingRawTwin : kReadingNoRawTwin);
  if (format != found) {
    switch (format) {
      case TraceFormat::kAuto: break;
      case TraceFormat::kHeaptrack: key += ", as heaptrack"; break;
      case TraceFormat::kEtl: key += ", as ETL"; break;
      case TraceFormat::kEventCsv: key += ", as event CSV"; break;
    }
  }
  if (format == TraceFormat::kEtl) {
    for (const std::string& symbols : options.symbol_paths) key += std::string(kSymbols) + symbols;
  }
  return key;
}

std::string store_beside(const std::string& trace_path) { return trace_path + ".hqdb"; }

std::string store_in_cache(const std::string& trace_path) {
  const std::string folder = cache_folder();
  if (folder.empty()) return {};
  std::error_code ec;
  const std::string absolute = utf8_from_path(std::filesystem::absolute(path_from_utf8(trace_path), ec).lexically_normal());
  // XXH3, not std::hash: a cached store must keep its name across heapql
  // builds and toolchains, or it is orphaned and the trace read again.
  return fmt::format("{}/{:016x}-{}.hqdb", folder, XXH3_64bits(absolute.data(), absolute.size()),
                     utf8_from_path(path_from_utf8(trace_path).filename()));
}

std::optional<FoundStore> store_answering(const std::string& path, const OpenOptions& options) {
  require_trace_file(path);
  if (store_file::is_store_file(path) || path.ends_with(".hqdb")) return FoundStore{path, false};
  if (!options.use_store) return std::nullopt;
  for (const std::string& candidate : {store_beside(path), store_in_cache(path)}) {
    if (candidate.empty() || !side_file_present(candidate, options.confined)) continue;
    try {
      const std::string why = why_not_fresh(store_file::peek_store_file(candidate), path, options);
      if (why.empty()) return FoundStore{candidate, true};
      warn(options, fmt::format("{}: not used, {}; reading the trace ({})", candidate, why, ingest_advice(path, options)));
    } catch (const Error& e) {
      warn(options, fmt::format("{}; reading the trace ({})", e.what(), ingest_advice(path, options)));
    }
  }
  return std::nullopt;
}

std::optional<FoundStore> fresh_store_quietly(const std::string& trace_path, const OpenOptions& options) {
  if (path_kind(trace_path) != PathKind::kFile) return std::nullopt;
  for (const std::string& candidate : {store_beside(trace_path), store_in_cache(trace_path)}) {
    if (candidate.empty() || !side_file_present(candidate, options.confined)) continue;
    try {
      if (why_not_fresh(store_file::peek_store_file(candidate), trace_path, options).empty()) {
        return FoundStore{candidate, true};
      }
    } catch (const Error&) {
    }
  }
  return std::nullopt;
}

store_file::OpenedStore open_store(const FoundStore& store, const OpenOptions& options) {
  const std::string& store_path = store.path;
  store_file::OpenedStore opened = store_file::read_store_file(store_path);
  // A store may travel without its trace; but where its trace is, the two
  // must agree. Not in a recipe's run: the paths its header records may be
  // anywhere, and looking at them would tell the recipe what is there.
  const bool check_sources = !store.sources_checked && !options.confined;
  if (!store.sources_checked && options.confined && !opened.info.files.empty()) {
    warn(options, fmt::format("{}: answered as it is: a recipe's run does not check that the trace it records is "
                              "unchanged ({} does)",
                              store_path, "heapql query"));
  }
  const std::vector<FileIdentity> sources =
      check_sources ? sources_where_they_are(opened.info.files, store_path) : std::vector<FileIdentity>{};
  for (const FileIdentity& file : sources) {
    const std::string why = store_file::identity_mismatch(file);
    if (!why.empty() && why != "it is gone") {
      // The store is the input here, so --no-store would not help: the
      // trace itself is read by naming it.
      const std::string& trace = sources.front().path;
      throw Error(SourceLocation::of_file(store_path),
                  fmt::format("stale: {} has changed since it was ingested ({}); run heapql ingest {} again, or "
                              "name the trace instead of its store (heapql query {})",
                              &file == &sources.front() ? "its trace " + trace : file.path + ", beside its trace,",
                              why, trace, trace));
    }
  }
  const SourceInfo& source = opened.store->source();
  if (source.cut) report_cut(*source.cut, source.end_ns, options.strict, options.warnings);
  // Their warnings were given when the trace was read; --strict still refuses them.
  report_anomaly_counts(source.anomalies, store_path, options.strict, false, options.warnings);
  return opened;
}

}  // namespace heapql
