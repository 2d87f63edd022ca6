// heapql's JSON reports as flat "a.b.c" -> text maps, for assertions. On
// Linux the reading is done by python3's json module (a declared dependency),
// so the tests check heapql's JSON against a real parser, not against our
// own; under Wine, where python3 cannot be started, by strict_json_reader.h.
#pragma once

#include <map>
#include <string>

namespace heapql::test {

// Every leaf as "a.b.c" -> its text (strings unquoted, null as "null");
// every array also as "path.length". Rows of a query report are keyed by
// their group key joined with " > ", so "rows.app!f().so" is that row's so.
using FlatJson = std::map<std::string, std::string>;

// Empty, with a test failure, when the text is not JSON.
FlatJson flatten_json(const std::string& json_text);

// The value at `key`, or "<missing KEY>" so that a comparison fails readably.
std::string json_get(const FlatJson& json, const std::string& key);

}  // namespace heapql::test
