// The command line has one definition (lua/heapql/commands.lua): `heapql
// help`, `heapql help COMMAND` and the options each command's parser accepts
// are made from it (docs/cli.md's synopsis too: tests/lua/recipes_doc_test.lua).
// These tests hold the parser to the help: every option a command's help lists
// is accepted by that command, and every other option is refused as unknown.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

constexpr int kBadQuery = 3;

// The commands `heapql help` lists: "  heapql NAME ..." lines.
std::vector<std::string> listed_commands() {
  const CommandResult help = run_heapql("help");
  std::vector<std::string> names;
  for (const std::string& line : lines_of(help.out)) {
    if (!line.starts_with("  heapql ") || line.starts_with("  heapql --")) continue;
    const std::string rest = line.substr(9);
    names.push_back(rest.substr(0, rest.find(' ')));
  }
  return names;
}

struct ListedOption {
  bool takes_value = false;
};

// The options `heapql help COMMAND` lists, under "options:" and "query
// options": "  -o, --output FILE   doc" gives -o and --output, taking a value.
std::map<std::string, ListedOption> listed_options(const std::string& command) {
  const CommandResult help = run_heapql("help " + command);
  EXPECT_EQ(help.exit_code, 0) << help.err;
  std::map<std::string, ListedOption> options;
  bool in_options = false;
  for (const std::string& line : lines_of(help.out)) {
    if (line == "options:" || line.starts_with("query options")) {
      in_options = true;
      continue;
    }
    if (line.empty()) in_options = false;
    if (!in_options || !line.starts_with("  -")) continue;
    std::string head = line.substr(2, line.find("  ", 2) - 2);
    bool takes_value = false;
    std::vector<std::string> names;
    for (std::size_t at = 0; at < head.size();) {
      const std::size_t comma = head.find(", ", at);
      std::string word = head.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
      if (const std::size_t space = word.find(' '); space != std::string::npos) {
        takes_value = true;
        word.resize(space);
      }
      names.push_back(word);
      at = comma == std::string::npos ? head.size() : comma + 2;
    }
    for (const std::string& name : names) options[name].takes_value = takes_value;
  }
  return options;
}

// Words before the option under test that get its parser to read it (a
// missing trace: nothing is read, the parse is all that runs).
std::string before_options(const std::string& command) {
  if (command == "run") return "leaks no-such.zst";
  if (command == "diff") return "no-such.zst no-such.zst";
  if (command == "xperf") return "-stacks so --run no-such.zst";
  if (command == "list" || command == "record") return "";
  return "no-such.zst";
}

TEST(CommandLine, EveryCommandAcceptsExactlyTheOptionsItsHelpLists) {
  TempDir dir;  // where an -o would go
  const std::vector<std::string> commands = listed_commands();
  for (const char* expected : {"query", "import", "diff", "info", "ingest", "export", "run", "list", "help", "xperf",
                               "record"}) {
    EXPECT_NE(std::find(commands.begin(), commands.end(), expected), commands.end()) << expected;
  }
  std::map<std::string, std::map<std::string, ListedOption>> by_command;
  std::set<std::string> every_option = {"--bogus", "-x"};
  for (const std::string& command : commands) {
    by_command[command] = listed_options(command);
    for (const auto& [name, listed] : by_command[command]) every_option.insert(name);
  }
  EXPECT_GT(every_option.size(), 40u);
  for (const std::string& command : commands) {
    if (command == "help") continue;  // its argument is a command's or a recipe's name
#ifdef _WIN32
    if (command == "serve" || command == "top") continue;  // not on Windows: each says so and exits 2 whatever follows
#endif
    for (const std::string& option : every_option) {
      if (command == "xperf" && !option.starts_with("--") && option != "-o") continue;  // an xperf flag
      const auto listed = by_command[command].find(option);
      const bool accepted = listed != by_command[command].end();
      const std::string words =
          command + " " + before_options(command) + " " + option + (accepted && listed->second.takes_value ? " 1" : "");
      SCOPED_TRACE("heapql " + words);
      const CommandResult r = run_heapql(words, "cd " + shell_quote(dir.path().string()) + " &&");
      if (accepted) {
        EXPECT_EQ(r.err.find("unknown option"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("is an option of heapql query"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("needs a value"), std::string::npos) << r.err;
      } else {
        // Refused by name: as unknown (with the near options, or what
        // --param is for), or as a query option this command does not take.
        EXPECT_EQ(r.exit_code, kBadQuery) << r.err;
        const bool unknown = r.err.find("unknown option '" + option + "' (") != std::string::npos &&
                             r.err.find("see heapql help " + command + ")") != std::string::npos;
        const bool a_query_option = r.err.find("'" + option + "' is an option of heapql query") != std::string::npos;
        EXPECT_TRUE(unknown || a_query_option) << r.err;
      }
    }
  }
}

// Options that were accepted but missing from the help, and commands and
// formats missing from the synopsis.
TEST(CommandLine, TheHelpListsWhatTheCommandsAccept) {
  const CommandResult help = run_heapql("help");
  EXPECT_EQ(help.exit_code, 0) << help.err;
  for (const auto& [command, option] : std::vector<std::pair<std::string, std::string>>{
           {"ingest", "--no-progress"}, {"info", "-o"}, {"info", "--strict"}, {"run", "--no-raw"}, {"run", "--strict"},
           {"list", "--trusted"}, {"xperf", "--timeout"}, {"diff", "--window-a"}}) {
    SCOPED_TRACE(command + " " + option);
    EXPECT_TRUE(listed_options(command).contains(option));
  }
  std::string query_synopsis;
  bool in_query = false;
  for (const std::string& line : lines_of(help.out)) {
    if (line.starts_with("  heapql ")) in_query = line.starts_with("  heapql query ");
    if (in_query) query_synopsis += line;
  }
  EXPECT_NE(query_synopsis.find("--format table|json|csv|html|folded|pprof"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("  heapql diff   A B [query options]"), std::string::npos) << help.out;
}

TEST(CommandLine, HelpOfACommandIsItsOptionsNotARecipe) {
  for (const std::string& command : listed_commands()) {
    SCOPED_TRACE(command);
    const CommandResult r = run_heapql("help " + command);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_TRUE(r.out.starts_with("usage:\n  heapql " + command + " ")) << r.out;
  }
  const CommandResult query = run_heapql("help query");
  EXPECT_NE(query.out.find("  --no-progress"), std::string::npos) << query.out;
  EXPECT_NE(query.out.find("  --window A..B"), std::string::npos) << query.out;
  const CommandResult recipe = run_heapql("help leaks");
  EXPECT_EQ(recipe.exit_code, 0) << recipe.err;
  EXPECT_EQ(recipe.out.find("usage:\n  heapql "), std::string::npos) << recipe.out;
  const CommandResult neither = run_heapql("help frobnicate");
  EXPECT_EQ(neither.exit_code, kBadQuery);
  EXPECT_NE(neither.err.find("no command or recipe 'frobnicate'"), std::string::npos) << neither.err;
}

TEST(CommandLine, AnUnknownOptionOfXperfIsSaidToBeUnknown) {
  const CommandResult r = run_heapql("xperf -stacks so --run no-such.zst --bogus");
  EXPECT_EQ(r.exit_code, kBadQuery);
  EXPECT_NE(r.err.find("unknown option '--bogus' (see heapql help xperf)"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("needs a value"), std::string::npos) << r.err;
  // A switch given a value is refused, not taken as the switch.
  const CommandResult valued = run_heapql("query no-such.zst --strict=yes");
  EXPECT_EQ(valued.exit_code, kBadQuery);
  EXPECT_NE(valued.err.find("--strict takes no value (got '--strict=yes')"), std::string::npos) << valued.err;
  // An alias is its option: --output is -o.
  TempDir dir;
  const CommandResult aliased = run_heapql("run leaks no-such.zst --output " + shell_quote(dir.file("r.txt")));
  EXPECT_EQ(aliased.err.find("unknown option"), std::string::npos) << aliased.err;
}

}  // namespace
}  // namespace heapql::test
