#include "tests/support/flat_json.h"

#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "tests/support/strict_json_reader.h"
#include "tests/support/test_support.h"

namespace heapql::test {

namespace {
constexpr const char* kFlattenScript = R"PY(
import json, sys
def walk(path, v):
    if isinstance(v, dict):
        for k, x in v.items():
            walk(path + [k], x)
    elif isinstance(v, list):
        print(".".join(path + ["length"]) + "\t" + str(len(v)))
        if path[-1:] == ["rows"]:
            for r in v:
                key = " > ".join(str(k) for k in r.get("key", []))
                walk(path + [key], {k: x for k, x in r.items() if k != "key"})
        else:
            for i, x in enumerate(v):
                walk(path + [str(i)], x)
    else:
        print(".".join(path) + "\t" + (v if isinstance(v, str) else json.dumps(v)))
walk([], json.load(open(sys.argv[1])))
)PY";
}  // namespace

FlatJson flatten_json(const std::string& json_text) {
#ifdef _WIN32
  try {
    return read_json_strictly(json_text);
  } catch (const std::runtime_error& e) {
    ADD_FAILURE() << "heapql's JSON is not JSON: " << e.what() << "\nJSON was:\n" << json_text;
    return {};
  }
#endif
  TempDir dir;
  const std::string path = dir.file("report.json");
  write_file(path, json_text);
  const CommandResult r = run_command("python3 -c " + shell_quote(kFlattenScript) + " " + shell_quote(path));
  FlatJson out;
  if (r.exit_code != 0) {
    ADD_FAILURE() << "python3 could not read heapql's JSON: " << r.err << "\nJSON was:\n" << json_text;
    return out;
  }
  std::istringstream lines(r.out);
  std::string line;
  while (std::getline(lines, line)) {
    const auto tab = line.find('\t');
    if (tab != std::string::npos) out[line.substr(0, tab)] = line.substr(tab + 1);
  }
  return out;
}

std::string json_get(const FlatJson& json, const std::string& key) {
  const auto it = json.find(key);
  return it == json.end() ? "<missing " + key + ">" : it->second;
}

}  // namespace heapql::test
