// `heapql serve`'s API over real sockets on loopback (docs/serve.md): each
// relayed endpoint answers exactly what the command line prints (every query
// option of the schema, run, both forms of diff); the token, Host, method and
// forbidden options are refused; a failing query, a recipe over its time or
// memory limit and a superseded view answer errors while the server goes on
// serving; two clients at once; the URL line, the loopback default, SIGTERM.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <thread>
#include <tuple>

#include <lua.hpp>

#include "lua/host/lua_state.h"
#include "lua/host/sandbox.h"
#include "tests/serve/served_heapql.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

namespace fs = std::filesystem;
using Pairs = std::vector<std::pair<std::string, std::string>>;

// A query option of the schema (lua/heapql/schema.lua's flags).
struct SchemaFlag {
  std::string option;  // "--by"
  bool takes_value = false;
};

std::vector<SchemaFlag> schema_flags() {
  lua::LuaState state;
  lua_State* L = state.get();
  lua::open_sandbox(L, lua::SandboxOptions{});
  lua_getglobal(L, "require");
  lua_pushliteral(L, "heapql.schema");
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) throw std::runtime_error(lua_tostring(L, -1));
  lua_getfield(L, -1, "flags");
  if (lua_pcall(L, 0, 1, 0) != LUA_OK) throw std::runtime_error(lua_tostring(L, -1));
  std::vector<SchemaFlag> flags;
  for (lua_Integer i = 1; lua_rawgeti(L, -1, i) == LUA_TTABLE; ++i) {
    lua_getfield(L, -1, "option");
    lua_getfield(L, -2, "value");
    flags.push_back(SchemaFlag{lua_tostring(L, -2), !lua_isnil(L, -1)});
    lua_pop(L, 3);
  }
  return flags;
}

// A valid value of each query option for the example trace. A new option of
// the schema fails the test until it is given one here.
const std::map<std::string, std::string>& option_values() {
  static const std::map<std::string, std::string> values = {
      {"--window", "0.5s..2s"},    {"--size", "16..1MiB"},          {"--lifetime", "1ms.."},
      {"--process", "1"},          {"--heap", "1"},                 {"--kind", "heap"},
      {"--thread", "1"},           {"--impacting", "AIFO"},         {"--require", "main"},
      {"--exclude", "GrowSteady*"}, {"--suppressions", "heaptrack-builtin"}, {"--cull", "main"},
      {"--cull-list", "stl"},      {"--by", "frame,stack"},         {"--sort", "st"},
      {"--top", "3"},              {"--series", "5"},               {"--detail", "1"},
  };
  return values;
}

std::string status_and_body(const httplib::Result& r) {
  if (!r) return "no answer: " + httplib::to_string(r.error());
  return std::to_string(r->status) + " " + r->body;
}

// The example trace and its raw twin, copied into `dir` (stores may be written there).
std::string example_in(const TempDir& dir, const std::string& name = "app.zst") {
  const fs::path from = example_trace();
  fs::copy_file(from, dir.file(name));
  fs::copy_file(from.parent_path() / "memory_test_app.raw.zst", dir.file(fs::path(name).stem().string() + ".raw.zst"));
  return dir.file(name);
}

class ServeApi : public ::testing::Test {
 protected:
  // The CLI's answer: `heapql WORDS` (shell-quoted here).
  static CommandResult cli(const std::vector<std::string>& words) {
    std::string command;
    for (const std::string& w : words) command += " " + shell_quote(w);
    return run_heapql(command);
  }
};

TEST_F(ServeApi, TheUrlLineIsTheFirstLineAndTheSocketListensOnLoopbackOnly) {
  TempDir dir;
  ServedHeapql server({example_in(dir)});
  ASSERT_TRUE(server.started());
  EXPECT_EQ(server.url_line(),
            "heapql serve: http://127.0.0.1:" + std::to_string(server.port()) + "/?token=" + server.token());
  // The listening socket, in the kernel's table: 127.0.0.1 (0100007F), state LISTEN (0A).
  std::ifstream tcp("/proc/net/tcp");
  std::string line, local;
  char port_hex[8];
  std::snprintf(port_hex, sizeof port_hex, "%04X", server.port());
  while (std::getline(tcp, line)) {
    std::istringstream fields(line);
    std::string slot, address, remote, state;
    fields >> slot >> address >> remote >> state;
    if (address.ends_with(std::string(":") + port_hex) && state == "0A") local = address;
  }
  EXPECT_EQ(local, std::string("0100007F:") + port_hex);
}

TEST_F(ServeApi, TracesListsEachTraceWithItsInfo) {
  TempDir dir;
  const std::string a = example_in(dir, "a.zst");
  const std::string b = example_in(dir, "b.zst");
  ServedHeapql server({a, b});
  ASSERT_TRUE(server.started());
  const httplib::Result r = server.get("/api/traces");
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  const CommandResult info_a = cli({"info", a, "--format", "json"});
  const CommandResult info_b = cli({"info", b, "--format", "json"});
  auto trimmed = [](std::string s) {
    while (!s.empty() && s.back() == '\n') s.pop_back();
    return s;
  };
  EXPECT_EQ(r->body, "{\"traces\":[{\"key\":\"1\",\"path\":\"" + a + "\",\"name\":\"a.zst\",\"info\":" +
                         trimmed(info_a.out) + "},{\"key\":\"2\",\"path\":\"" + b + "\",\"name\":\"b.zst\",\"info\":" +
                         trimmed(info_b.out) + "}]}\n");
  EXPECT_EQ(r->get_header_value("Content-Type"), "application/json; charset=utf-8");
  EXPECT_EQ(r->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(r->get_header_value("Cache-Control"), "no-store");
  EXPECT_EQ(r->get_header_value("Referrer-Policy"), "no-referrer");
  EXPECT_EQ(r->get_header_value("Server-Timing"), "engine;dur=0");
  // HEAD too: the headers without the body.
  httplib::Client client("127.0.0.1", server.port());
  const httplib::Result head = client.Head(("/api/traces?token=" + server.token()).c_str());
  ASSERT_TRUE(head);
  EXPECT_EQ(head->status, 200);
  EXPECT_EQ(head->body, "");
}

TEST_F(ServeApi, QueryEqualsTheCommandLineForEveryOptionOfTheSchema) {
  TempDir dir;
  const std::string trace = example_in(dir);
  ServedHeapql server({trace});
  ASSERT_TRUE(server.started());
  const std::vector<SchemaFlag> flags = schema_flags();
  ASSERT_GT(flags.size(), 15u);
  for (const SchemaFlag& flag : flags) {
    std::string value;
    if (flag.takes_value) {
      const auto found = option_values().find(flag.option);
      if (found == option_values().end()) {
        ADD_FAILURE() << "no test value for the schema's option " << flag.option << ": add one to option_values()";
        continue;
      }
      value = found->second;
    }
    const CommandResult expected =
        flag.takes_value ? cli({"query", trace, "--format", "json", flag.option, value})
                         : cli({"query", trace, "--format", "json", flag.option});
    ASSERT_EQ(expected.exit_code, 0) << flag.option << ": " << expected.err;
    const httplib::Result r = server.get("/api/query" + query_string({{"trace", "1"}, {flag.option.substr(2), value}}));
    ASSERT_TRUE(r) << flag.option;
    EXPECT_EQ(r->status, 200) << flag.option << ": " << r->body;
    EXPECT_EQ(r->body, expected.out) << flag.option;
    EXPECT_TRUE(r->get_header_value("Server-Timing").starts_with("engine;dur=")) << flag.option;
  }
  // Several at once, in order, a repeatable one repeated, a flag given as 1 and as true.
  const CommandResult expected = cli({"query", trace, "--format", "json", "--by", "frame", "--require", "main",
                                      "--require", "memory_test_app*", "--no-default-cull", "--at-peak", "--top",
                                      "2"});
  ASSERT_EQ(expected.exit_code, 0) << expected.err;
  const httplib::Result r = server.get("/api/query" + query_string({{"trace", "1"},
                                                                    {"by", "frame"},
                                                                    {"require", "main"},
                                                                    {"require", "memory_test_app*"},
                                                                    {"no-default-cull", "1"},
                                                                    {"at-peak", "true"},
                                                                    {"top", "2"}}));
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  EXPECT_EQ(r->body, expected.out);
}

TEST_F(ServeApi, RunAndBothFormsOfDiffEqualTheCommandLine) {
  TempDir dir;
  const std::string a = example_in(dir, "a.zst");
  const std::string b = example_in(dir, "b.zst");
  ServedHeapql server({a, b});
  ASSERT_TRUE(server.started());

  const CommandResult run = cli({"run", "leaks", a, "--format", "json", "--param", "top=3"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  httplib::Result r = server.get("/api/run" + query_string({{"trace", "1"}, {"recipe", "leaks"}, {"param", "top=3"}}));
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  EXPECT_EQ(r->body, run.out);

  const CommandResult two = cli({"diff", a, b, "--format", "json", "--by", "frame", "--window", "1s.."});
  ASSERT_EQ(two.exit_code, 0) << two.err;
  r = server.get("/api/diff" + query_string({{"a", "1"}, {"b", "2"}, {"by", "frame"}, {"window", "1s.."}}));
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  EXPECT_EQ(r->body, two.out);

  const CommandResult windows =
      cli({"diff", a, "--format", "json", "--window-a", "0s..1s", "--window-b", "1s..2s", "--top", "4"});
  ASSERT_EQ(windows.exit_code, 0) << windows.err;
  r = server.get("/api/diff" +
                 query_string({{"a", "1"}, {"window-a", "0s..1s"}, {"window-b", "1s..2s"}, {"top", "4"}}));
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  EXPECT_EQ(r->body, windows.out);
}

TEST_F(ServeApi, SchemaRecipesAndRecipeEqualTheCommandLine) {
  TempDir dir, recipes;
  write_file(recipes.file("mine.lua"), "local hq = require \"heapql\"\nreturn hq.recipe { name = \"mine\", doc = "
                                       "\"by frame\", params = { top = { type = \"integer\", default = 3, doc = \"rows\" } }, "
                                       "query = function(p) return { by = \"frame\", top = p.top } end }\n");
  const std::string trace = example_in(dir);
  ServedHeapql server({trace, "--recipes", recipes.path().string()});
  ASSERT_TRUE(server.started());
  const CommandResult schema = cli({"help", "query", "--format", "json"});
  ASSERT_EQ(schema.exit_code, 0) << schema.err;
  httplib::Result r = server.get("/api/schema");
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  EXPECT_EQ(r->body, schema.out);

  const CommandResult listed = cli({"list", "--format", "json", "--recipes", recipes.path().string()});
  ASSERT_EQ(listed.exit_code, 0) << listed.err;
  r = server.get("/api/recipes");
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  EXPECT_EQ(r->body, listed.out);
  expect_contains(r->body, "\"mine\"");

  const CommandResult recipe =
      cli({"query", trace, "--format", "recipe", "--by", "frame", "--window", "1s..", "--cull-list", "stl"});
  ASSERT_EQ(recipe.exit_code, 0) << recipe.err;
  r = server.get("/api/recipe" + query_string({{"trace", "1"}, {"by", "frame"}, {"window", "1s.."}, {"cull-list", "stl"}}));
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  EXPECT_EQ(r->body, recipe.out);
  EXPECT_EQ(r->get_header_value("Content-Type"), "text/x-lua; charset=utf-8");

  // DIR's recipe, by its name.
  const CommandResult mine = cli({"run", recipes.file("mine.lua"), trace, "--format", "json", "--param", "top=2"});
  ASSERT_EQ(mine.exit_code, 0) << mine.err;
  r = server.get("/api/run" + query_string({{"trace", "1"}, {"recipe", "mine"}, {"param", "top=2"}}));
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  EXPECT_EQ(r->body, mine.out);
}

TEST_F(ServeApi, WorkersAnswerFromTheSessionsTheServerOpened) {
  // The trace's files are gone once the server has started: only the
  // session it opened and registered can answer.
  TempDir dir;
  const std::string trace = example_in(dir);
  const CommandResult expected = cli({"query", trace, "--format", "json", "--by", "frame"});
  ASSERT_EQ(expected.exit_code, 0) << expected.err;
  ServedHeapql server({trace, "--no-progress"});
  ASSERT_TRUE(server.started());
  for (const auto& entry : fs::directory_iterator(dir.path())) fs::remove(entry.path());
  httplib::Result r = server.get("/api/query?trace=1&by=frame");
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  EXPECT_EQ(r->body, expected.out);
  r = server.get("/api/run?trace=1&recipe=top-frames");
  EXPECT_TRUE(r && r->status == 200) << status_and_body(r);
}

TEST_F(ServeApi, ATraceWhoseFilesChangeIsOpenedAgainWithItsSummary) {
  // A recording in progress grows while served (docs/serve.md): within a
  // second or two of its files changing, the server answers from them, and
  // /api/traces says so. Here the trace is replaced by another one.
  TempDir dir;
  const std::string trace = example_in(dir);
  ServedHeapql server({trace, "--no-progress"});
  ASSERT_TRUE(server.started());
  httplib::Result before = server.get("/api/traces");
  ASSERT_TRUE(before && before->status == 200) << status_and_body(before);
  fs::remove(dir.file("app.raw.zst"));
  fs::copy_file(worked_example(), dir.file("next"));
  fs::rename(dir.file("next"), trace);
  const CommandResult expected = cli({"query", trace, "--format", "json", "--by", "frame"});
  ASSERT_EQ(expected.exit_code, 0) << expected.err;
  std::string answer;
  for (int tries = 0; tries < 100 && answer != expected.out; ++tries) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const httplib::Result r = server.get("/api/query?trace=1&by=frame");
    ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
    answer = r->body;
  }
  EXPECT_EQ(answer, expected.out);
  const httplib::Result after = server.get("/api/traces");
  ASSERT_TRUE(after && after->status == 200) << status_and_body(after);
  EXPECT_NE(after->body, before->body) << "the summary was not asked again";
  const CommandResult info = cli({"info", trace, "--format", "json"});
  expect_contains(after->body, info.out.substr(0, info.out.find_last_not_of('\n') + 1));
}

TEST_F(ServeApi, RecordServesTheRecordingAsItGrowsThenItsStore) {
  // `serve --record -- PROGRAM`: the recording is served from its first
  // published part; each answer says how far it has come, later ones further;
  // once the program ends, the answers are the store's, as the command line's.
  if (run_command("command -v heaptrack >/dev/null && command -v python3 >/dev/null").exit_code != 0) {
    GTEST_SKIP() << "needs heaptrack and python3";
  }
  const CommandResult exe = run_command("python3 -c 'import sys; print(sys.executable)'");
  ASSERT_EQ(exe.exit_code, 0);
  const std::string python = exe.out.substr(0, exe.out.find('\n'));
  TempDir dir;
  const std::string name = dir.file("served");
  const std::string program =
      "import time\nkeep = []\nfor i in range(40):\n    keep.append(bytearray(100000 + i))\n"
      "    junk = [bytes(64 + j % 100) for j in range(1000)]\n    time.sleep(0.1)\n";
  ServedHeapql server({"--record", "-o", name, "--no-progress", "--", python, "-c", program});
  ASSERT_TRUE(server.started());
  std::vector<std::int64_t> up_to;
  std::string last;
  for (int tries = 0; tries < 300; ++tries) {
    const httplib::Result r = server.get("/api/query?trace=1&by=stack&top=5");
    ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
    last = r->body;
    const std::string key = "\"recording_in_progress\":{\"up_to_ns\":";
    const std::size_t at = last.find(key);
    if (at == std::string::npos) break;
    up_to.push_back(std::stoll(last.substr(at + key.size())));
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  ASSERT_GE(up_to.size(), 2u) << "the recording was never served in progress:\n" << last;
  EXPECT_GT(up_to.back(), up_to.front()) << "the served recording did not grow";
  const CommandResult expected = cli({"query", name + ".zst", "--format", "json", "--by", "stack", "--top", "5"});
  ASSERT_EQ(expected.exit_code, 0) << expected.err;
  EXPECT_EQ(last, expected.out) << "the last answer is not the finished recording's";
  EXPECT_EQ(server.stop(), 0);
  EXPECT_FALSE(fs::exists(name + ".zst.hqlive"));
  EXPECT_NE(read_file(name + ".log").find("heapql: wrote " + name + ".zst.hqdb"), std::string::npos);
}

TEST_F(ServeApi, RecordWantsAProgramAndNoTrace) {
  for (const std::vector<std::string>& words :
       {std::vector<std::string>{"serve", "--record"}, std::vector<std::string>{"serve", "--record", "a.zst", "--", "true"},
        std::vector<std::string>{"serve", "-o", "x", "a.zst"}}) {
    const CommandResult r = cli(words);
    EXPECT_EQ(r.exit_code, 3) << r.err;
    expect_contains(r.err, "heapql serve --record [-o NAME] -- PROGRAM [ARGS...]");
  }
}

TEST_F(ServeApi, TheTokenAndTheHostAreRequired) {
  TempDir dir;
  ServedHeapql server({example_in(dir)});
  ASSERT_TRUE(server.started());
  const std::string port = std::to_string(server.port());
  for (const std::string path : {"/", "/api/traces", "/api/query?trace=1", "/nowhere"}) {
    httplib::Result r = server.get(path, false);
    EXPECT_TRUE(r && r->status == 403) << path << ": " << status_and_body(r);
    const std::string wrong = std::string(path) + (std::string(path).find('?') == std::string::npos ? "?" : "&") +
                              "token=" + std::string(32, '0');
    r = server.get(wrong, false);
    EXPECT_TRUE(r && r->status == 403) << wrong << ": " << status_and_body(r);
    r = server.get(path, true, {{"Host", "evil.example:" + port}});
    EXPECT_TRUE(r && r->status == 403) << path << " with a foreign Host: " << status_and_body(r);
  }
  // The token as a header, and as the cookie the page's load sets.
  httplib::Result r = server.get("/api/traces", false, {{"X-Heapql-Token", server.token()}});
  EXPECT_TRUE(r && r->status == 200) << status_and_body(r);
  r = server.get("/");
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  EXPECT_EQ(r->get_header_value("Set-Cookie"),
            "heapql_token=" + server.token() + "; HttpOnly; SameSite=Strict; Path=/");
  expect_contains(r->get_header_value("Content-Security-Policy"), "connect-src 'self'");
  r = server.get("/api/traces", false, {{"Cookie", "other=1; heapql_token=" + server.token()}});
  EXPECT_TRUE(r && r->status == 200) << status_and_body(r);
  r = server.get("/api/traces", true, {{"Host", "localhost:" + port}});
  EXPECT_TRUE(r && r->status == 200) << status_and_body(r);
}

TEST_F(ServeApi, OnlyGetIsServedAndRequestsAreBounded) {
  TempDir dir;
  ServedHeapql server({example_in(dir)});
  ASSERT_TRUE(server.started());
  httplib::Client client("127.0.0.1", server.port());
  httplib::Result r = client.Post(("/api/query?trace=1&token=" + server.token()).c_str(), "", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  r = client.Delete(("/api/traces?token=" + server.token()).c_str());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
  Pairs many = {{"trace", "1"}};
  for (int i = 0; i < 300; ++i) many.emplace_back("top", "1");
  r = server.get("/api/query" + query_string(many));
  EXPECT_TRUE(r && r->status == 400) << status_and_body(r);
  r = server.get("/api/query" + query_string({{"trace", "1"}, {"require", std::string(5000, 'x')}}));
  EXPECT_TRUE(r && r->status == 400) << status_and_body(r);
}

TEST_F(ServeApi, ABadQueryAnswers400WithTheCommandLinesMessageAndTheServerGoesOn) {
  TempDir dir;
  const std::string trace = example_in(dir);
  ServedHeapql server({trace});
  ASSERT_TRUE(server.started());
  const CommandResult expected = cli({"query", trace, "--format", "json", "--top", "x"});
  ASSERT_EQ(expected.exit_code, 3);
  std::string message = expected.err;
  while (!message.empty() && message.back() == '\n') message.pop_back();
  httplib::Result r = server.get("/api/query?trace=1&top=x");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_EQ(r->body, "{\"error\":\"" + message + "\",\"exit\":3}\n");
  r = server.get("/api/query?trace=1&top=1");
  EXPECT_TRUE(r && r->status == 200) << status_and_body(r);
}

TEST_F(ServeApi, ForbiddenOptionsAndUnknownNamesAreRefused) {
  TempDir dir;
  ServedHeapql server({example_in(dir)});
  ASSERT_TRUE(server.started());
  for (const Pairs& refused :
       std::vector<Pairs>{{{"output", "/tmp/x"}}, {{"symbols", "/tmp"}}, {{"cull-list", "/etc/passwd"}},
                          {{"cull-list", "../x"}}, {{"suppressions", "/etc/passwd"}}, {{"format", "csv"}},
                          {{"store", ""}}, {{"no-store", ""}}, {{"no-raw", ""}}, {{"strict", ""}},
                          {{"trusted", ""}}, {{"timeout", "0"}}, {{"memory", "0"}}, {{"o", "x"}},
                          {{"at-peak", "yes"}}, {{"no-such-option", "1"}}}) {
    Pairs parameters = {{"trace", "1"}};
    parameters.insert(parameters.end(), refused.begin(), refused.end());
    const httplib::Result r = server.get("/api/query" + query_string(parameters));
    ASSERT_TRUE(r) << refused[0].first;
    EXPECT_EQ(r->status, 400) << refused[0].first << ": " << r->body;
    expect_contains(r->body, refused[0].first);
  }
  // A folder of recipes, and a recipe's path-typed param, name files: refused too.
  httplib::Result folder = server.get("/api/run" + query_string({{"trace", "1"}, {"recipe", "leaks"}, {"recipes", "/"}}));
  ASSERT_TRUE(folder);
  EXPECT_EQ(folder->status, 400) << folder->body;
  expect_contains(folder->body, "recipes");
  httplib::Result r = server.get("/api/run" + query_string({{"trace", "1"}, {"recipe", "regression"},
                                                            {"param", "baseline=/etc/passwd"}}));
  EXPECT_TRUE(r && r->status == 400) << status_and_body(r);
  for (const std::string& target : {std::string("/api/query?trace=9"), std::string("/api/run?trace=1&recipe=nope"),
                                    std::string("/api/run?trace=1&recipe=../queries/leaks"),
                                    std::string("/api/diff?a=1&b=7"), std::string("/no/such/path")}) {
    r = server.get(target);
    EXPECT_TRUE(r && r->status == 404) << target << ": " << status_and_body(r);
  }
}

TEST_F(ServeApi, AServedListIsReadEvenWhenAFileOfItsNameIsInTheCurrentFolder) {
  TempDir dir, here;
  const std::string trace = example_in(dir);
  write_file(here.file("stl"), "memory_test_app!main\n");  // what `--cull-list stl` would read in `here`
  ServedHeapql server({trace}, here.path().string());
  ASSERT_TRUE(server.started());
  const CommandResult shipped =
      cli({"query", trace, "--format", "json", "--by", "frame", "--cull-list", std::string(HEAPQL_SOURCE_DIR) +
                                                                                "/queries/cull/stl.txt"});
  const CommandResult local = run_heapql("query " + shell_quote(trace) + " --format json --by frame --cull-list stl",
                                         "cd " + shell_quote(here.path().string()) + " &&");
  ASSERT_EQ(shipped.exit_code, 0) << shipped.err;
  ASSERT_NE(shipped.out, local.out);  // the local file changes the answer
  const httplib::Result r = server.get("/api/query?trace=1&by=frame&cull-list=stl");
  ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  EXPECT_EQ(r->body, shipped.out);
}

// Recipes of --recipes DIR: one that loops, one that allocates without end.
void write_hostile_recipes(const TempDir& dir) {
  const std::string head = "local hq = require \"heapql\"\nreturn hq.recipe { name = \"t\", doc = \"a test\", ";
  write_file(dir.file("loop.lua"), head + "query = function(p) while true do end end }\n");
  write_file(dir.file("hog.lua"), head +
                                      "query = function(p) local t = {} for i = 1, 1e9 do t[i] = "
                                      "string.rep('x', 1 << 20) .. i end end }\n");
  fs::create_directory(dir.path() / "cull");
  write_file(dir.file("cull/mine.txt"), "memory_test_app!main\n");
}

TEST_F(ServeApi, ARecipeOverItsTimeOrMemoryAnswers400AndTheServerGoesOn) {
  TempDir dir, recipes;
  write_hostile_recipes(recipes);
  const std::string trace = example_in(dir);
  const CommandResult expected =
      cli({"query", trace, "--format", "json", "--cull-list", recipes.file("cull/mine.txt"), "--by", "frame"});
  ASSERT_EQ(expected.exit_code, 0) << expected.err;
  // Each limit on a server of its own: the wall-clock one short, and long
  // where memory should end the recipe (a loaded machine is slow to fill it).
  for (const auto& [options, recipe, message] :
       std::vector<std::tuple<std::vector<std::string>, std::string, std::string>>{
           {{"--timeout", "2s"}, "loop", "time limit of 2s"},
           {{"--memory", "64MiB"}, "hog", "memory limit of 64 MiB"}}) {
    std::vector<std::string> arguments = {trace, "--recipes", recipes.path().string()};
    arguments.insert(arguments.end(), options.begin(), options.end());
    ServedHeapql server(arguments);
    ASSERT_TRUE(server.started());
    httplib::Result r = server.get("/api/run?trace=1&recipe=" + recipe);
    ASSERT_TRUE(r) << recipe;
    EXPECT_EQ(r->status, 400) << r->body;
    expect_contains(r->body, message);
    expect_contains(r->body, "\"exit\":3");
    // Still serving, and DIR's cull list is served by its name.
    r = server.get("/api/query?trace=1&cull-list=mine&by=frame");
    ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
    EXPECT_EQ(r->body, expected.out);
  }
}

TEST_F(ServeApi, TwoClientsAtOnceBothGetTheirAnswers) {
  TempDir dir;
  const std::string trace = example_in(dir);
  ServedHeapql server({trace});
  ASSERT_TRUE(server.started());
  const CommandResult by_frame = cli({"query", trace, "--format", "json", "--by", "frame"});
  const CommandResult by_stack = cli({"query", trace, "--format", "json", "--top", "2", "--series", "10"});
  std::string frame_answer, stack_answer;
  std::thread first([&] {
    for (int i = 0; i < 5; ++i) {
      const httplib::Result r = server.get("/api/query?trace=1&by=frame");
      frame_answer += r && r->status == 200 && r->body == by_frame.out ? "ok " : status_and_body(r);
    }
  });
  std::thread second([&] {
    for (int i = 0; i < 5; ++i) {
      const httplib::Result r = server.get("/api/query?trace=1&top=2&series=10");
      stack_answer += r && r->status == 200 && r->body == by_stack.out ? "ok " : status_and_body(r);
    }
  });
  first.join();
  second.join();
  EXPECT_EQ(frame_answer, "ok ok ok ok ok ");
  EXPECT_EQ(stack_answer, "ok ok ok ok ok ");
}

// Workers that report their exit code are answered at once and reaped at a
// later request (docs/serve.md, "Workers"): they must not pile up as zombies.
TEST_F(ServeApi, WorkersAnsweredEarlyAreReapedLater) {
  TempDir dir;
  const std::string trace = example_in(dir);
  ServedHeapql server({trace});
  ASSERT_TRUE(server.started());
  const auto zombie_children = [&] {
    int zombies = 0;
    for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
      std::ifstream stat(entry.path() / "stat");
      std::string line;
      if (!std::getline(stat, line)) continue;
      // pid (comm) state ppid ...: comm may hold spaces, so read after the last ')'.
      const std::size_t close = line.rfind(')');
      if (close == std::string::npos) continue;
      std::istringstream rest(line.substr(close + 1));
      char state = 0;
      pid_t parent = 0;
      rest >> state >> parent;
      if (parent == server.pid() && state == 'Z') ++zombies;
    }
    return zombies;
  };
  for (int i = 0; i < 12; ++i) {
    const httplib::Result r = server.get("/api/query?trace=1&by=frame");
    ASSERT_TRUE(r && r->status == 200) << status_and_body(r);
  }
  // Each request reaps the workers that ended before it: at most the last
  // one (and those still exiting) may be left.
  EXPECT_LE(zombie_children(), 2);
  const httplib::Result bad = server.get("/api/query?trace=1&top=0");
  ASSERT_TRUE(bad);
  EXPECT_EQ(bad->status, 400);  // an exit code other than 0 is reported as well
}

TEST_F(ServeApi, ANewerRequestOfTheSameViewSupersedesTheOlder) {
  TempDir dir, recipes;
  write_hostile_recipes(recipes);
  ServedHeapql server({example_in(dir), "--recipes", recipes.path().string()});
  ASSERT_TRUE(server.started());
  std::optional<httplib::Result> slow;
  std::thread older([&] { slow.emplace(server.get("/api/run?trace=1&recipe=loop&view=main")); });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // the loop is running
  const auto start = std::chrono::steady_clock::now();
  const httplib::Result newer = server.get("/api/query?trace=1&top=1&view=main");
  older.join();
  EXPECT_TRUE(newer && newer->status == 200) << status_and_body(newer);
  ASSERT_TRUE(slow && *slow);
  EXPECT_EQ((*slow)->status, 409) << (*slow)->body;
  EXPECT_EQ((*slow)->body, "{\"error\":\"superseded\"}\n");
  // Killed at once, not at the end of its 60s limit.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  // Another view, or no view, supersedes nothing.
  const httplib::Result other = server.get("/api/query?trace=1&top=1&view=chart");
  EXPECT_TRUE(other && other->status == 200) << status_and_body(other);
}

TEST_F(ServeApi, SigtermEndsTheServerWithExit0AndEndsItsWorkers) {
  TempDir dir, recipes;
  write_hostile_recipes(recipes);
  ServedHeapql server({example_in(dir), "--recipes", recipes.path().string()});
  ASSERT_TRUE(server.started());
  std::optional<httplib::Result> looping;
  std::thread request([&] { looping.emplace(server.get("/api/run?trace=1&recipe=loop")); });
  std::this_thread::sleep_for(std::chrono::milliseconds(700));  // the loop is running
  const auto start = std::chrono::steady_clock::now();
  const int status = server.stop();
  request.join();
  ASSERT_TRUE(WIFEXITED(status)) << status;
  EXPECT_EQ(WEXITSTATUS(status), 0);
  // Not after the loop's 60s limit.
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  ASSERT_TRUE(looping && *looping);
  EXPECT_EQ((*looping)->status, 503) << (*looping)->body;
}

TEST_F(ServeApi, AnUnreadableTraceEndsTheStartWithExit2AndNoUrl) {
  const CommandResult r = cli({"serve", "no-such.zst"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.out, "");
  expect_contains(r.err, "no-such.zst");
}

}  // namespace
}  // namespace heapql::test
