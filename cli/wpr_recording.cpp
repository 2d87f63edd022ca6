#include "cli/wpr_recording.h"

#include <fmt/format.h>

#include <string_view>

namespace heapql::cli {

namespace {

// A word as cmd.exe and the C runtime split it back: in double quotes when it
// has a space, a tab or a quote (an inner quote doubled backslash-escaped).
std::string cmd_word(const std::string& word) {
  if (!word.empty() && word.find_first_of(" \t\"") == std::string::npos) return word;
  std::string quoted = "\"";
  for (char c : word) {
    if (c == '"') quoted += '\\';
    quoted += c;
  }
  return quoted + "\"";
}

// The file name of a path given with '/' or '\'.
std::string_view base_name(std::string_view path) {
  const std::size_t slash = path.find_last_of("/\\");
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

std::string wpr_recording_instructions(const std::vector<std::string>& program, std::string trace,
                                       const std::string& profile) {
  std::string image = program.empty() ? "PROGRAM.exe" : std::string(base_name(program.front()));
  if (!image.ends_with(".exe") && !image.ends_with(".EXE")) image += ".exe";
  if (trace.empty()) trace = image.substr(0, image.size() - 4);
  if (!trace.ends_with(".etl")) trace += ".etl";
  std::string run;
  if (program.empty()) {
    run = "PROGRAM.exe ARGS...";
  } else {
    for (const std::string& word : program) run += (run.empty() ? "" : " ") + cmd_word(word);
  }
  return fmt::format(
      "heapql record runs a program under heaptrack, which is Linux-only. On Windows, record a heap trace with\n"
      "WPR (Windows Performance Recorder) and heapql's profile, from an elevated prompt:\n"
      "\n"
      "  wpr -heaptracingconfig {0} enable\n"
      "  wpr -start {1} -filemode\n"
      "  {2}\n"
      "  wpr -stop {3}\n"
      "  wpr -heaptracingconfig {0} disable\n"
      "\n"
      "Heap tracing starts with the instances of {0} started after the first command. The profile records\n"
      "heap and VirtualAlloc events with their stacks: {4}\n"
      "Then: heapql query {3}\n"
      "These commands need a real Windows machine (WPR needs Windows 8.1 or later); they do not work under\n"
      "Wine. docs/windows.md, \"Recording a heap trace\".\n",
      cmd_word(image), cmd_word(profile + "!Heap"), run, cmd_word(trace), profile);
}

}  // namespace heapql::cli
