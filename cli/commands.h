// The `heapql` subcommands. Each returns the process exit code (exit_codes.h).
#pragma once

#include <string>

#include "engine/session/ingest_into_store.h"
#include "cli/arguments.h"
#include "lua/host/command_definitions.h"

namespace heapql::cli {

int run_info(Arguments& args);
int run_query(Arguments& args);
// `heapql import EVENTS.csv [query options]`: a query of an event CSV (docs/import.md).
int run_import(Arguments& args);
int run_record(Arguments& args);
int run_top(Arguments& args);
// `heapql ingest TRACE [-o FILE.hqdb]`: the trace's store file (docs/store.md).
int run_ingest(Arguments& args);
// `heapql export TRACE --to sqlite|csv|jsonl OUT` (docs/export.md).
int run_export(Arguments& args);
int run_run(Arguments& args);
// `heapql diff A B [query options]`: one query on two inputs, rows matched (semantics.md §10).
int run_diff(Arguments& args);
// `heapql list [--recipes DIR] [--format text|json]`: the recipes, as `heapql run NAME` finds them.
int run_list(Arguments& args);
int run_xperf(Arguments& args);
// `heapql help [COMMAND|RECIPE] [--format text|json]`: the usage, a command's
// options (heapql.commands) or a recipe's params.
int run_help(Arguments& args, lua::CommandDefinitions& definitions);
// `heapql serve TRACE...`: the traces in the browser, and an HTTP API whose
// every answer is a command's (docs/serve.md); exits 3 saying so when this
// heapql was built without its HTTP library.
int run_serve(Arguments& args);

// "heapql: wrote FILE.hqdb (size: blocks, frees, bytes a block) from TRACE" on stderr.
void print_ingested(const heapql::IngestResult& result, const std::string& trace_path);

}  // namespace heapql::cli
