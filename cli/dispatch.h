// heapql's command line as one function: the subcommand named by the first
// word, run with the rest, its errors turned into messages (stderr) and
// exit codes (exit_codes.h). main runs it; so does each worker `heapql
// serve` forks for an API request (cli/serve/forked_worker.h), so that a
// request is answered by the command line's own code.
#pragma once

#include <string>
#include <vector>

#include "lua/host/command_definitions.h"

namespace heapql::cli {

// `words` is the command line after the program's name ("query", TRACE, ...).
// `loaded`: the command line's definitions, loaded already (a server's
// worker inherits them from the server, which saves loading them again for
// each request); null: loaded here. Nothing throws out of it.
int run_command_line(std::vector<std::string> words, lua::CommandDefinitions* loaded = nullptr);

}  // namespace heapql::cli
