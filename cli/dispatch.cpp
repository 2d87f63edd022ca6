// heapql's dispatcher (dispatch.h): the subcommand, and its errors as
// messages and exit codes.
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
#include "cli/dispatch.h"
#include "cli/commands.h"
#include "cli/exit_codes.h"
#include "cli/report_output.h"
#include "lua/host/command_definitions.h"

namespace heapql::cli {

int run_command_line(std::vector<std::string> words, lua::CommandDefinitions* loaded) {
  const std::string command = words.empty() ? std::string() : words.front();
  try {
    // The one definition of the command line (lua/heapql/commands.lua).
    std::optional<heapql::lua::CommandDefinitions> own;
    heapql::lua::CommandDefinitions& definitions = loaded != nullptr ? *loaded : own.emplace();
    if (words.empty()) {
      std::fputs(definitions.usage().c_str(), stderr);
      return kExitBadQuery;
    }
    Arguments args(std::vector<std::string>(words.begin() + 1, words.end()));
    if (auto accepted = definitions.accepted(command)) args.accept_only(command, std::move(*accepted));
    if (command == "info") return run_info(args);
    if (command == "query") return run_query(args);
    if (command == "import") return run_import(args);
    if (command == "record") return run_record(args);
    if (command == "top") return run_top(args);
    if (command == "ingest") return run_ingest(args);
    if (command == "export") return run_export(args);
    if (command == "run") return run_run(args);
    if (command == "diff") return run_diff(args);
    if (command == "list") return run_list(args);
    if (command == "xperf") return run_xperf(args);
    if (command == "serve") return run_serve(args);
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
        command, {"run", "list", "help", "xperf", "ingest", "export", "info", "query", "import", "diff", "record", "top", "serve"});
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

}  // namespace heapql::cli
