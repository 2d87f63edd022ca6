#include "cli/record_arguments.h"

#include <fmt/format.h>

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
  return parsed;
}

}  // namespace heapql::cli
