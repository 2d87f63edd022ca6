// One query answered from a trace, or from its store, for the commands that
// answer queries: the result with what it was read from.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "engine/ingest/open_trace.h"
#include "engine/ingest/trace_store_file.h"
#include "engine/query/stack_plan.h"
#include "engine/query/result.h"
#include "engine/store/trace_store.h"
#include "cli/query_options.h"

namespace heapql::cli {

struct Answer {
  Result result;
  SourceInfo source;
  std::unique_ptr<TraceStore> store;  // with --store / --load
  std::unique_ptr<TraceTables> tables;
  std::optional<StoreFileInfo> store_file;  // answered from this store file
};

// Query errors (patterns, cull files) are found before the trace is read, so
// they are told apart from trace errors by exit code: UsageError. Returns the
// query's patterns compiled (its files read), for answer().
StackFilters validate_query(const Query& query);

// From a fresh store of `path` when there is one; else by reading the trace
// (loaded into a store with --store, `keep_store`, or embedded suppressions).
// `filters` are validate_query's for this query.
Answer answer(const std::string& path, const Query& query, StackFilters filters, const CommonOptions& common,
              bool keep_store);
// The same, validating the query first.
Answer answer(const std::string& path, const Query& query, const CommonOptions& common, bool keep_store);

}  // namespace heapql::cli
