// CRLF line endings (a file saved by a Windows editor, or checked out with
// git's autocrlf) read exactly as LF, on both systems: a recipe, the Lua
// files it includes, and the cull lists and suppression files it reads
// give the same report, the same help and the same errors at the same
// lines (issue 49).
#include <gtest/gtest.h>

#include <string>

#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

std::string with_crlf(const std::string& text) {
  std::string out;
  for (const char c : text) {
    if (c == '\n') out += '\r';
    out += c;
  }
  return out;
}

struct Files {
  std::string recipe, cull, suppressions, included;
};

class CrlfFiles : public ::testing::Test {
 protected:
  // Writes the files with LF or CRLF line endings at the same paths and runs `command` (RECIPE is the recipe's path).
  CommandResult run(const Files& files, bool crlf, const std::string& command) {
    const auto text = [&](const std::string& lf) { return crlf ? with_crlf(lf) : lf; };
    write_file(dir_.file("recipe.lua"), text(files.recipe));
    write_file(dir_.file("cull.txt"), text(files.cull));
    write_file(dir_.file("supp.txt"), text(files.suppressions));
    write_file(dir_.file("part.lua"), text(files.included));
    std::string line = command;
    line.replace(line.find("RECIPE"), 6, shell_quote(dir_.file("recipe.lua")));
    CommandResult r = run_command(line);
    expect_no_crash(r);
    return r;
  }
  // Both endings give the same exit code, output and errors; returns the LF run's.
  CommandResult same_both_ways(const Files& files, const std::string& command) {
    const CommandResult lf = run(files, false, command);
    const CommandResult crlf = run(files, true, command);
    EXPECT_EQ(crlf.exit_code, lf.exit_code) << crlf.err;
    EXPECT_EQ(crlf.out, lf.out);
    EXPECT_EQ(crlf.err, lf.err);
    return lf;
  }
  TempDir dir_;
};

const Files kRecipe{
    "-- a recipe saved on Windows\n"
    "local hq = require 'heapql'\n"
    "local part = hq.include 'part.lua'\n"
    "local cull = hq.cull.defaults + hq.cull.file 'cull.txt'\n"
    "local supp = hq.suppressions.file 'supp.txt'\n"
    "return hq.recipe {\n"
    "  name = 'crlf',\n"
    "  doc = [[Two lines\n"
    "of doc]],\n"
    "  params = { top = { default = 3, doc = 'rows\\\n"
    "to show' } },\n"
    "  run = function(trace, p, out)\n"
    "    out:write(part.text, '|', table.concat(hq.cull.file('cull.txt'):texts(), ','), '|', #supp, '|', p.top, '\\n')\n"
    "    local rows = trace:query { by = 'frame', cull = cull, top = p.top }:rows()\n"
    "    out:write(#rows, '\\n')\n"
    "  end }\n",
    "# crt frames\n  app!alloc_wrapper  \n\nlibfoo.so!*\n",
    "# leaks we accept\nleak:libfoo.so\nleak:app!intentional\nnot a suppression\n",
    "return { text = [[included\n"
    "text]] }\n"};

TEST_F(CrlfFiles, ARecipeItsIncludeCullListAndSuppressionsReadAsWithLf) {
  const CommandResult r = same_both_ways(kRecipe, heapql() + " run RECIPE " + shell_quote(worked_example()));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // The long string's line break is one "\n"; the patterns have no "\r".
  EXPECT_EQ(r.out.substr(0, r.out.find("|3\n") + 3), "included\ntext|app!alloc_wrapper,libfoo.so!*|2|3\n");
  expect_contains(r.err, "supp.txt:4: ignored, not a leak suppression: not a suppression\n");
}

TEST_F(CrlfFiles, HelpShowsTheSameDoc) {
  const CommandResult r = same_both_ways(kRecipe, heapql() + " help RECIPE");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  expect_contains(r.out, "Two lines\nof doc");
}

TEST_F(CrlfFiles, ErrorsNameTheSameLines) {
  Files runtime = kRecipe;
  runtime.recipe = "local hq = require 'heapql'\n\n\nreturn hq.recipe { name = 'x', doc = 'd',\n"
                   "  run = function()\n    error('boom')\n  end }\n";
  expect_contains(same_both_ways(runtime, heapql() + " run RECIPE " + shell_quote(worked_example())).err,
                  "recipe.lua:6: boom");
  Files declaration = runtime;
  declaration.recipe = "-- one\n-- two\nlocal hq = require 'heapql'\nreturn hq.recipe {\n  name = 'x', doc = 'd',\n"
                       "  colour = 1 }\n";
  expect_contains(same_both_ways(declaration, heapql() + " help RECIPE").err,
                  "recipe.lua:4: hq.recipe: unknown field 'colour'");
  Files syntax = runtime;
  syntax.recipe = "local hq = require 'heapql'\n\nreturn hq.recipe {\n  name = 'x' doc = 'y'\n}\n";
  expect_contains(same_both_ways(syntax, heapql() + " help RECIPE").err, "recipe.lua:4:");
  Files cull = kRecipe;
  cull.cull = "# fine\nmalloc\n!bad\n";
  expect_contains(same_both_ways(cull, heapql() + " run RECIPE " + shell_quote(worked_example())).err,
                  "cull.txt:3: frame pattern '!bad'");
}

}  // namespace
}  // namespace heapql::test
