#include "cli/record_arguments.h"

#include <fmt/format.h>

#include "engine/session/file_kind.h"

namespace heapql::cli {

RecordArguments parse_record_arguments(Arguments& args) {
  RecordArguments parsed;
  while (!args.done() && !args.at_separator() && args.at_option()) {
    const std::string option = args.take_option();
    if (option == "-o" || option == "--output") {
      parsed.output_name = args.take_value(option);
    } else if (option == "--keep-raw") {
      parsed.keep_raw = true;
    } else if (option == "--pid") {
      parsed.pid = args.take_value(option);
      if (parsed.pid.empty() || parsed.pid.find_first_not_of("0123456789") != std::string::npos ||
          parsed.pid.find_first_not_of('0') == std::string::npos || parsed.pid.size() > 9) {
        throw UsageError{fmt::format("--pid takes a process id (a whole number above 0), not '{}'", parsed.pid)};
      }
    } else {
      throw UsageError{fmt::format("unknown option '{}' (usage: {})", option, kRecordUsage)};
    }
  }
  parsed.program = args.take_rest();
  if (!parsed.pid.empty() && !parsed.program.empty()) {
    throw UsageError{fmt::format("--pid {} attaches to a running process: give no program with it (usage: {})",
                                 parsed.pid, kRecordUsage)};
  }
  // A trace where the program belongs: the user meant to read it.
  if (!parsed.program.empty()) {
    const std::string& first = parsed.program.front();
    if (const FileKind kind = sniff_file_kind(first); kind != FileKind::kOther) {
      throw UsageError{fmt::format("'{}' is {}, not a program: heapql record runs a program "
                                   "(heapql record -- ./PROGRAM ARGS...); read a trace with heapql query {}",
                                   first, file_kind_phrase(kind), first)};
    }
  }
  return parsed;
}

std::string recording_name(std::string output_name, const std::string& what, const std::string& id) {
  if (output_name.empty()) return fmt::format("heaptrack.{}.{}", what, id);
  for (std::string_view suffix : {".zst", ".gz"}) {
    if (output_name.size() > suffix.size() && output_name.ends_with(suffix)) {
      output_name.resize(output_name.size() - suffix.size());
    }
  }
  return output_name;
}

}  // namespace heapql::cli
