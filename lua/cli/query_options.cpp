#include "lua/cli/query_options.h"

#include <fmt/format.h>

#include <charconv>
#include <filesystem>

#include <sys/ioctl.h>
#include <unistd.h>

#include "engine/error.h"
#include "engine/units.h"
#include "lua/host/recipe_runner.h"

namespace heapql::cli {

namespace {

// A file, or the name of one heapql ships (queries/suppressions/NAME.txt)
// when no file of that name is here.
std::string suppressions_path(const std::string& value) {
  std::error_code ignored;
  if (value.find('/') != std::string::npos || std::filesystem::exists(value, ignored)) return value;
  const std::filesystem::path shipped = lua::queries_folder() / "suppressions" / (value + ".txt");
  return std::filesystem::exists(shipped, ignored) ? shipped.string() : value;
}

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (true) {
    const auto comma = text.find(',', start);
    parts.push_back(text.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return parts;
}

std::uint64_t parse_count(std::string_view option, const std::string& text) {
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
    throw UsageError{fmt::format("{} '{}': expected a whole number", option, text)};
  }
  return value;
}

// Engine parse errors become usage errors that name the option.
template <class F>
auto with_option(std::string_view option, F&& parse) {
  try {
    return parse();
  } catch (const Error& e) {
    throw UsageError{fmt::format("{}: {}", option, e.message())};
  }
}

}  // namespace

std::string take_symbol_path(Arguments& args) {
  std::string path = args.take_value("--symbols");
  std::error_code error;
  if (!std::filesystem::is_directory(path, error)) {
    throw UsageError{fmt::format("--symbols '{}': expected a folder of PDBs or a symbol store", path)};
  }
  return path;
}

DisplayOptions display_options_of(const CommonOptions& common) {
  DisplayOptions display;
  display.full_names = common.full_names;
  winsize size{};
  if (!common.output_file && isatty(STDOUT_FILENO) == 1 && ioctl(STDOUT_FILENO, TIOCGWINSZ, &size) == 0) {
    display.width = size.ws_col;
  }
  return display;
}

OpenOptions open_options_of(const CommonOptions& common) {
  OpenOptions open;
  open.show_progress = common.progress;
  open.use_raw_twin = common.use_raw_twin;
  open.strict = common.strict;
  open.symbol_paths = common.symbol_paths;
  open.format = common.trace_format;
  open.use_store = common.use_store;
  return open;
}

bool parse_common_option(const std::string& option, Arguments& args, CommonOptions& common) {
  if (option == "--format") {
    const std::string v = args.take_value(option);
    if (v == "table") {
      common.format = OutputFormat::kTable;
    } else if (v == "json") {
      common.format = OutputFormat::kJson;
    } else if (v == "csv") {
      common.format = OutputFormat::kCsv;
    } else if (v == "html") {
      common.format = OutputFormat::kHtml;
    } else if (v == "folded") {
      common.format = OutputFormat::kFolded;
    } else if (v == "pprof") {
      common.format = OutputFormat::kPprof;
    } else {
      throw UsageError{fmt::format("--format '{}': expected one of table|json|csv|html|folded|pprof", v)};
    }
  } else if (option == "-o" || option == "--output") {
    common.output_file = args.take_value(option);
  } else if (option == "--full-names") {
    common.full_names = true;
  } else if (option == "--no-progress") {
    common.progress = false;
  } else if (option == "--no-raw") {
    common.use_raw_twin = false;
  } else if (option == "--strict") {
    common.strict = true;
  } else if (option == "--store") {
    common.via_store = true;
  } else if (option == "--no-store") {
    common.use_store = false;
  } else if (option == "--symbols") {
    common.symbol_paths.push_back(take_symbol_path(args));
  } else {
    return false;
  }
  return true;
}

TimeWindow parse_window_option(const std::string& option, const std::string& value) {
  const DurationRange r = with_option(option, [&] { return parse_duration_range(value); });
  return TimeWindow{r.begin_ns, r.end_ns};
}

bool parse_query_option(const std::string& option, Arguments& args, Query& q) {
  if (option == "--window") {
    q.window = parse_window_option(option, args.take_value(option));
  } else if (option == "--by") {
    q.by.clear();
    for (const std::string& part : split_commas(args.take_value(option))) {
      auto g = parse_group_by(part);
      if (!g) {
        throw UsageError{fmt::format("--by '{}': expected stack|frame|image|process|heap|kind|thread|impacting", part)};
      }
      q.by.push_back(*g);
    }
  } else if (option == "--sort") {
    const std::string v = args.take_value(option);
    auto m = parse_measure(v);
    if (!m) throw UsageError{fmt::format("--sort '{}': expected one of so|soc|st|stc|src", v)};
    q.sort = *m;
  } else if (option == "--top") {
    q.top = parse_count(option, args.take_value(option));
    if (q.top < 1) throw UsageError{"--top: expected a whole number of at least 1"};
  } else if (option == "--totals") {
    q.totals_only = true;
  } else if (option == "--size") {
    const std::string v = args.take_value(option);
    const SizeRange r = with_option(option, [&] { return parse_size_range(v); });
    q.size_min = r.begin;
    q.size_end = r.end;
  } else if (option == "--lifetime") {
    const std::string v = args.take_value(option);
    const DurationRange r = with_option(option, [&] { return parse_duration_range(v); });
    q.lifetime_min_ns = r.begin_ns;
    q.lifetime_end_ns = r.end_ns;
  } else if (option == "--process") {
    for (const std::string& p : split_commas(args.take_value(option))) q.processes.push_back(p);
  } else if (option == "--heap") {
    for (const std::string& h : split_commas(args.take_value(option))) q.heaps.push_back(h);
  } else if (option == "--kind") {
    for (const std::string& k : split_commas(args.take_value(option))) {
      if (k == "heap") {
        q.kinds.push_back(BlockKind::kHeap);
      } else if (k == "virtual") {
        q.kinds.push_back(BlockKind::kVirtual);
      } else {
        throw UsageError{fmt::format("--kind '{}': expected heap|virtual", k)};
      }
    }
  } else if (option == "--thread") {
    for (const std::string& t : split_commas(args.take_value(option))) {
      const std::uint64_t id = parse_count(option, t);
      if (id > 0xFFFFFFFFu) throw UsageError{fmt::format("--thread '{}': thread ids are 32-bit", t)};
      q.threads.push_back(static_cast<std::uint32_t>(id));
    }
  } else if (option == "--impacting") {
    for (const std::string& t : split_commas(args.take_value(option))) {
      auto type = parse_impacting(t);
      if (!type) throw UsageError{fmt::format("--impacting '{}': expected AIFI|AIFO|AOFI|AOFO", t)};
      q.impacting.push_back(*type);
    }
  } else if (option == "--require") {
    q.require.push_back(args.take_value(option));
  } else if (option == "--exclude") {
    q.exclude.push_back(args.take_value(option));
  } else if (option == "--suppressions") {
    q.suppression_files.push_back(suppressions_path(args.take_value(option)));
  } else if (option == "--embedded-suppressions") {
    q.embedded_suppressions = true;
  } else if (option == "--cull") {
    q.cull.push_back(args.take_value(option));
  } else if (option == "--cull-list") {
    q.cull_files.push_back(args.take_value(option));
  } else if (option == "--no-default-cull") {
    q.default_cull = false;
  } else if (option == "--at-peak") {
    q.block_set = BlockSet::kAtPeak;
  } else if (option == "--temporary") {
    q.temporary_only = true;
  } else if (option == "--series") {
    const std::uint64_t n = parse_count(option, args.take_value(option));
    if (n > kMaxSeriesBuckets) throw UsageError{"--series: expected a bucket count from 0 to 100000 (0: none)"};
    q.series_buckets = static_cast<std::uint32_t>(n);
  } else {
    return false;
  }
  return true;
}

}  // namespace heapql::cli
