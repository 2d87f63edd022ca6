// The packaged heapql.exe, as a user unpacks it from the zip of
// scripts/package-windows.sh (tests/windows/package_test.sh unpacks it and
// runs this program under Wine with HEAPQL_PACKAGED_HEAPQL naming the exe):
// it finds its queries/ beside itself, reads every ETL sample, runs the
// canned recipes, writes an HTML report and an SQLite export, names frames
// from a folder of PDBs, and its recipe sandbox refuses Windows' path tricks.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "engine/symbols/pdb_symbol_table.h"
#include "tests/support/symbol_trace.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;
constexpr int kRecipeError = 3;

std::string environment(const char* name) {
  const char* value = std::getenv(name);
  return value != nullptr ? value : "";
}

class PackagedHeapql : public ::testing::Test {
 protected:
  void SetUp() override {
    exe_ = environment("HEAPQL_PACKAGED_HEAPQL");
    if (exe_.empty()) GTEST_SKIP() << "HEAPQL_PACKAGED_HEAPQL is not set: run through tests/windows/package_test.sh";
    ASSERT_TRUE(fs::exists(exe_)) << exe_;
  }
  // The packaged exe with `arguments` (shell words), from `folder` when given.
  CommandResult packaged(const std::string& arguments, const std::string& folder = "") const {
    const std::string cd = folder.empty() ? "" : "cd " + shell_quote(folder) + " && ";
    CommandResult r = run_command(cd + shell_quote(exe_) + " " + arguments);
    expect_no_crash(r);
    return r;
  }
  fs::path unpacked() const { return fs::path(exe_).parent_path(); }
  std::string exe_;
};

TEST_F(PackagedHeapql, FindsItsQueriesBesideItself) {
  const CommandResult r = packaged("list");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::vector<std::string> lines = lines_of(r.out);
  ASSERT_FALSE(lines.empty());
  // "recipes in FOLDER (...)": the unpacked queries/, not the source tree it was built from.
  const std::string first = lines.front();
  const std::size_t from = first.find("recipes in "), to = first.find(" (");
  ASSERT_TRUE(from != std::string::npos && to != std::string::npos) << first;
  const std::string folder = first.substr(from + 11, to - from - 11);
  std::error_code error;
  EXPECT_TRUE(fs::equivalent(folder, unpacked() / "queries", error)) << folder << " is not " << unpacked() / "queries";
  for (const char* shipped : {"queries/windows/heapql-heap.wprp", "queries/cull/crt-windows.txt",
                              "queries/suppressions/heaptrack-builtin.txt", "README.md"}) {
    EXPECT_TRUE(fs::exists(unpacked() / shipped)) << shipped << " is not in the zip";
  }
}

// Every ETL sample of ../shared/data/etw, and those the driver unzipped from its .etl.zip files.
TEST_F(PackagedHeapql, ReadsEveryEtlSample) {
  std::vector<fs::path> samples;
  for (const std::string& folder : {shared_data("etw"), environment("HEAPQL_PACKAGE_SAMPLES")}) {
    std::error_code error;
    if (folder.empty()) continue;
    for (const auto& entry : fs::recursive_directory_iterator(folder, error)) {
      if (entry.is_regular_file() && entry.path().extension() == ".etl") samples.push_back(entry.path());
    }
  }
  if (samples.empty()) GTEST_SKIP() << "../shared/data/etw is absent: no ETL samples to read";
  for (const fs::path& sample : samples) {
    const CommandResult info = packaged("info " + shell_quote(sample.string()) + " --format json --no-progress");
    EXPECT_EQ(info.exit_code, 0) << sample << ": " << info.err;
    expect_contains(info.out, "\"source\":\"etw\"");
    const CommandResult query = packaged("query " + shell_quote(sample.string()) + " --by stack --no-progress");
    EXPECT_EQ(query.exit_code, 0) << sample << ": " << query.err;
  }
}

TEST_F(PackagedHeapql, RunsEveryCannedRecipe) {
  const CommandResult list = packaged("list");
  ASSERT_EQ(list.exit_code, 0) << list.err;
  std::vector<std::string> names;  // "  NAME   what it answers", one a line after the header
  for (const std::string& line : lines_of(list.out)) {
    if (line.rfind("  ", 0) == 0 && line.size() > 2 && line[2] != ' ') names.push_back(line.substr(2, line.find(' ', 2) - 2));
  }
  ASSERT_GE(names.size(), 10u) << list.out;
  const std::string trace = example_trace();
  for (const std::string& name : names) {
    // regression compares with a baseline: the same trace, so nothing grew (exit 0).
    const std::string params = name == "regression" ? " --param baseline=" + shell_quote(trace) : "";
    const CommandResult r = packaged("run " + name + " " + shell_quote(trace) + params + " --no-progress");
    EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
    EXPECT_FALSE(r.out.empty()) << name;
  }
}

TEST_F(PackagedHeapql, WritesAnHtmlReport) {
  TempDir dir;
  const CommandResult html =
      packaged("query " + shell_quote(worked_example()) + " --by frame --format html -o " + shell_quote(dir.file("r.html")));
  ASSERT_EQ(html.exit_code, 0) << html.err;
  const std::string page = read_file(dir.file("r.html"));
  EXPECT_EQ(page.rfind("<!DOCTYPE html>", 0), 0u) << page.substr(0, 200);
  expect_contains(page, "id=\"heapql-data\"");
  expect_contains(page, "demo!make_node(Node*)");  // a frame of the answer, in the embedded JSON
}

TEST_F(PackagedHeapql, WritesAnSqliteExport) {
  TempDir dir;
  const CommandResult db =
      packaged("export " + shell_quote(example_trace()) + " --to sqlite " + shell_quote(dir.file("t.db")) + " --no-progress");
  ASSERT_EQ(db.exit_code, 0) << db.err;
  const std::string bytes = read_file(dir.file("t.db"));
  EXPECT_EQ(bytes.substr(0, 16), std::string("SQLite format 3\0", 16));
  EXPECT_GT(bytes.size(), 4096u);
}

TEST_F(PackagedHeapql, NamesFramesFromAFolderOfPdbs) {
  const std::string pdb = heapdemo_pdb("full");
  TempDir dir;
  const SymbolTrace t = write_symbol_trace(dir, PdbSymbolTable(pdb));
  copy_pdb_into(pdb, dir.file("pdbs"));
  const CommandResult r = packaged("query " + shell_quote(t.etl) + " --symbols " + shell_quote(dir.file("pdbs")) +
                                   " --by stack --no-default-cull --format json");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  expect_contains(r.out, "heapdemo.exe!public_work");
  for (std::size_t i = 0; i < t.rvas.size(); ++i) expect_contains(r.out, "\"heapdemo.exe!" + t.expected[i].front() + "\"");
}

// Paths a shared recipe might use to read outside its folder on Windows (issue 49).
// Each would reach ../secret.txt (or a device, a stream) if followed; the sandbox refuses
// them all (exit 3) and nothing secret is printed.
struct Trick {
  const char* name;
  const char* path;  // a Lua string literal's contents; {outside}: the secret's absolute path, {drive}: its drive
};
const Trick kTricks[] = {
    {"parent_with_backslash", "..\\\\secret.txt"},
    {"slashes_mixed", "sub/..\\\\..\\\\secret.txt"},
    {"absolute", "{outside}"},
    {"device_namespace", "\\\\\\\\?\\\\{outside}"},
    {"dot_device_namespace", "\\\\\\\\.\\\\{outside}"},
    {"unc", "\\\\\\\\localhost\\\\C$\\\\windows\\\\win.ini"},
    {"drive_relative", "{drive}secret.txt"},
    {"device_name", "CON"},
    {"device_name_with_extension", "NUL.txt"},
    {"serial_port", "COM1.txt"},
    {"alternate_data_stream", "cull.txt:hidden"},
    {"case_changed_parent", "..\\\\SECRET.TXT"},
};

void PrintTo(const Trick& trick, std::ostream* os) { *os << trick.name << ": " << trick.path; }

class PackagedSandbox : public PackagedHeapql, public ::testing::WithParamInterface<Trick> {};

TEST_P(PackagedSandbox, RefusesTheTrick) {
  TempDir work;
  const fs::path recipes = work.path() / "recipes";
  fs::create_directories(recipes / "sub");
  write_file(work.file("secret.txt"), "SECRET!*\n");
  write_file((recipes / "cull.txt").string(), "app!nothing\n");
  std::string path = replace_all(GetParam().path, "{outside}", replace_all(work.file("secret.txt"), "\\", "\\\\"));
  path = replace_all(path, "{drive}", work.path().root_name().string());
  write_file((recipes / "attack.lua").string(),
             "local hq = require 'heapql'\nlocal s = hq.cull.file '" + path + "'\n"
             "return hq.recipe { name = 'attack', doc = 'd', run = function(trace, p, out) "
             "out:write('ESCAPED ', tostring(s)) end }\n");
  // From the secret's folder: C:secret.txt (drive-relative) would name it.
  const CommandResult r = packaged("run " + shell_quote((recipes / "attack.lua").string()) + " " +
                                   shell_quote(worked_example()) + " --no-progress", work.path().string());
  EXPECT_EQ(r.exit_code, kRecipeError) << r.out << r.err;
  EXPECT_EQ(r.out.find("ESCAPED"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("SECRET"), std::string::npos) << r.out;
  expect_contains(r.err, "a recipe may read files beside it");
}

INSTANTIATE_TEST_SUITE_P(WindowsPathTricks, PackagedSandbox, ::testing::ValuesIn(kTricks),
                         [](const ::testing::TestParamInfo<Trick>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace heapql::test
