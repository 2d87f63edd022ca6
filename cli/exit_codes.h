// The exit codes of `heapql`, one meaning each (docs/cli.md).
#pragma once

namespace heapql::cli {

constexpr int kExitOk = 0;
constexpr int kExitGateFailed = 1;  // a recipe's gate failed (recipes issue)
constexpr int kExitBadTrace = 2;    // the trace could not be read: missing, malformed, truncated
constexpr int kExitBadQuery = 3;    // the query (options, patterns, cull lists) or recipe is wrong
constexpr int kExitRecordFailed = 4;  // `heapql record`: the tracer or the program could not run
// A command this system cannot run: `heapql record` and `heapql serve` on
// Windows (docs/windows.md, "What differs"). 2, as an unreadable trace: the
// command cannot do its work here, however it was asked.
constexpr int kExitNotOnThisSystem = 2;
// The report's reader closed the pipe (`heapql query ... | head`): the code a
// shell shows for a tool the pipe's signal ends (128 + SIGPIPE), no message.
constexpr int kExitReaderGone = 141;

}  // namespace heapql::cli
