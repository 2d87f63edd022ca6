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
    } else {
      throw UsageError{fmt::format("unknown option '{}' (usage: {})", option, kRecordUsage)};
    }
  }
  parsed.program = args.take_rest();
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

}  // namespace heapql::cli
