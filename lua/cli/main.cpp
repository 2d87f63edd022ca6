// The heapql command-line host: dispatches subcommands and turns errors into
// messages and exit codes. Nothing here throws past main.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <string_view>

#include "engine/error.h"
#include "lua/cli/commands.h"
#include "lua/cli/exit_codes.h"
#include "lua/cli/report_output.h"
#include "lua/host/query_flags.h"

namespace {

constexpr std::string_view kUsageHead = R"(heapql - ask heap traces where the memory went

usage:
  heapql run    RECIPE TRACE [--param NAME=VALUE]... [--format table|json|csv|html] [-o FILE]
                [--timeout 60s] [--memory 4GiB] [--trusted] [--verbose] [--symbols PATH]
  heapql list                      the shipped recipes, one line each
  heapql help   RECIPE             a recipe's params, defaults and report
  heapql xperf  XPERF-HEAP-FLAGS... [--run TRACE [--format F] [-o FILE]]
                                   print (or run) the recipe equivalent to xperf -a heap flags
  heapql ingest TRACE [-o FILE.hqdb] [--no-raw] [--symbols PATH] [--strict]
                                   read the trace once into its store file (docs/store.md);
                                   later commands answer from it
  heapql export TRACE|STORE --to sqlite FILE.db | --to csv DIR | --to jsonl DIR
                                   the trace's tables for SQL and data frames (docs/export.md)
  heapql info   TRACE|STORE [--format table|json] [--load]
  heapql query  TRACE [options]
  heapql import EVENTS.csv [options]  a query of a plain event CSV (docs/import.md)
  heapql diff   A B [options]      the same query on two traces, rows matched, B - A
                                   (--window-a R --window-b R: two windows, of one trace or of A and B;
                                   --format table|json|csv|folded|html)
  heapql record [-o NAME] -- PROGRAM [ARGS...]
  heapql help | --help | --version

TRACE is a heaptrack file (.zst, .gz, plain, with its raw twin), an ETW .etl file, an event CSV,
or a store file (.hqdb) written by heapql ingest. A trace with a fresh store beside it
(TRACE.hqdb) is answered from the store.
RECIPE is a .lua file or the name of a shipped recipe (heapql list).

query options (semantics in docs/semantics.md):
)";

// After the query options, which the query schema lists (lua/heapql/schema.lua).
constexpr std::string_view kUsageTail = R"(
reading and output options:
  --format F           table|json|csv|html|folded|pprof (default table; docs/reports.md)
  -o FILE              write the report to FILE
  --full-names         tables and HTML show frames exactly, not shortened (std::vector<…>::push_back)
  --no-progress        no progress bar
  --no-raw             ignore a raw twin: read the interpreted file alone
  --strict             refuse a trace that ends early (a killed recording) or has an
                       anomaly (exit 2) instead of answering with a warning
  --store              load the trace into the store and replay it (same answers)
  --no-store           read the trace itself, not a store file of it
  --symbols PATH       ETL: a folder of PDBs or a symbol store (repeatable; docs/windows.md)

exit codes: 0 ok, 1 a recipe's gate failed, 2 unreadable trace or unwritable output, 3 bad query,
            options or recipe (including its time or memory limit), 4 recording failed
)";

std::string usage() {
  return std::string(kUsageHead) + heapql::lua::QueryFlags().usage() + std::string(kUsageTail);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace heapql::cli;
  if (argc < 2) {
    std::fputs(usage().c_str(), stderr);
    return kExitBadQuery;
  }
  const std::string_view command = argv[1];
  try {
    Arguments args(argc, argv, 2);
    if (command == "info") return run_info(args);
    if (command == "query") return run_query(args);
    if (command == "import") return run_import(args);
    if (command == "record") return run_record(args);
    if (command == "ingest") return run_ingest(args);
    if (command == "export") return run_export(args);
    if (command == "run") return run_run(args);
    if (command == "diff") return run_diff(args);
    if (command == "list") return run_list(args);
    if (command == "xperf") return run_xperf(args);
    if (command == "help" && argc > 2) {
      if (print_recipe_help(argv[2])) return kExitOk;
      throw UsageError{fmt::format("no recipe '{}' (see heapql list)", argv[2])};
    }
    if (command == "help" || command == "--help" || command == "-h") {
      emit(usage(), std::nullopt);
      return kExitOk;
    }
    if (command == "--version") {
      emit("heapql 0.1.0\n", std::nullopt);
      return kExitOk;
    }
    throw UsageError{fmt::format("unknown command '{}' (try heapql help)", command)};
  } catch (const UsageError& e) {
    fmt::print(stderr, "heapql {}: {}\n", command, e.message);
    return kExitBadQuery;
  } catch (const heapql::Error& e) {
    // Errors that escape a command are about the trace being read.
    fmt::print(stderr, "heapql: {}\n", e.what());
    return kExitBadTrace;
  } catch (const std::bad_alloc&) {
    fmt::print(stderr, "heapql: out of memory\n");
    return kExitBadTrace;
  } catch (const std::exception& e) {
    fmt::print(stderr, "heapql: {}\n", e.what());
    return kExitBadTrace;
  }
}
