// `heapql ingest TRACE [-o FILE.hqdb]`: reads a trace once into its store
// file (docs/store.md), which later commands answer from.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>

#include "engine/session/ingest_into_store.h"
#include "engine/units.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/output_not_input.h"
#include "cli/query_options.h"
#include "engine/platform/utf8_wide.h"

namespace heapql::cli {

void print_ingested(const IngestResult& r, const std::string& trace_path) {
  fmt::print(stderr, "heapql: wrote {} ({}: {}, {}, {:.2f} bytes a block) from {}\n", r.store_path,
             format_bytes_human(r.file_bytes), format_count(r.blocks, "block", "blocks"), format_count(r.frees, "free", "frees"),
             r.blocks ? double(r.column_bytes) / double(r.blocks) : 0.0, trace_path);
  if (!r.block_identity_path.empty()) {
    std::error_code ec;
    fmt::print(stderr, "heapql: wrote {} ({}: exact readings without the raw twin)\n", r.block_identity_path,
               format_bytes_human(std::filesystem::file_size(path_from_utf8(r.block_identity_path), ec)));
  }
}

int run_ingest(Arguments& args) {
  CommonOptions common;
  std::string path;
  while (!args.done()) {
    if (!args.at_option()) {
      const std::string word = args.take_positional();
      if (!path.empty()) throw UsageError{fmt::format("one trace at a time (got '{}' and '{}')", path, word)};
      path = word;
      continue;
    }
    const std::string option = args.take_option();
    if (option == "--format" || option == "--store" || option == "--no-store" ||
        !parse_common_option(option, args, common)) {
      throw UsageError{fmt::format("unknown option '{}' (ingest takes -o FILE, --no-raw, --symbols PATH, --strict, "
                                   "--no-progress)",
                                   option)};
    }
  }
  if (path.empty()) throw UsageError{"needs a trace file"};
  refuse_output_over_input(common.output_file, {path});
  const IngestResult result = ingest_trace(path, common.output_file.value_or(""), open_options_of(common));
  print_ingested(result, path);
  return kExitOk;
}

}  // namespace heapql::cli
