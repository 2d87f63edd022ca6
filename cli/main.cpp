// The heapql command-line host: dispatches subcommands and turns errors into
// messages and exit codes. Nothing here throws past main.
#include <fmt/format.h>

#include <cstdio>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/error.h"
#include "engine/near_names.h"
#include "engine/version.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/report_output.h"
#include "lua/host/command_definitions.h"

int main(int argc, char** argv) {
  using namespace heapql::cli;
  const std::string_view command = argc < 2 ? std::string_view() : argv[1];
  try {
    // The one definition of the command line (lua/heapql/commands.lua).
    heapql::lua::CommandDefinitions definitions;
    if (argc < 2) {
      std::fputs(definitions.usage().c_str(), stderr);
      return kExitBadQuery;
    }
    Arguments args(argc, argv, 2);
    if (auto accepted = definitions.accepted(command)) args.accept_only(std::string(command), std::move(*accepted));
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
    if (command == "help") return run_help(args, definitions);
    if (command == "--help" || command == "-h") {
      emit(definitions.usage(), std::nullopt);
      return kExitOk;
    }
    if (command == "--version") {
      emit(fmt::format("heapql {}\n", heapql::version()), std::nullopt);
      return kExitOk;
    }
    const std::vector<std::string> near = heapql::near_names(
        command, {"run", "list", "help", "xperf", "ingest", "export", "info", "query", "import", "diff", "record"});
    throw UsageError{fmt::format("unknown command '{}' ({}try heapql help)", command,
                                 near.empty() ? "" : "did you mean " + heapql::quoted_alternatives(near) + "? ")};
  } catch (const ReaderGone&) {
    // `heapql query ... | head`: the reader has what it wanted. Quiet, as
    // standard tools are when the pipe's signal ends them (docs/cli.md).
    return kExitReaderGone;
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
