// A strict JSON reader of our own, flattening as flat_json.h describes. The
// Windows tests use it: under Wine a test cannot start the host's python3.
// On Linux, flatten_json stays python3's (a real parser checks heapql's
// JSON), and a unit test checks that this reader agrees with it.
#pragma once

#include <string>

#include "tests/support/flat_json.h"

namespace heapql::test {

// Throws std::runtime_error naming the byte offset where the text stops
// being JSON (RFC 8259: no trailing commas, comments or bare words).
FlatJson read_json_strictly(const std::string& json_text);

}  // namespace heapql::test
