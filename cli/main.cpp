// The heapql command-line host: the dispatcher (dispatch.h) on the words after
// the program's name.
#include <string>
#include <vector>

#include "cli/dispatch.h"

int main(int argc, char** argv) {
  std::vector<std::string> words;
  for (int i = 1; i < argc; ++i) words.emplace_back(argv[i]);
  return heapql::cli::run_command_line(std::move(words));
}
