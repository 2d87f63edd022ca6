-- heapql.grammar: every little language, valid and invalid, with its values
-- and messages, as recipes get them: through the engine's parsers (bound from
-- heapql.core; tests/unit/units_test.cpp and frame_pattern_test.cpp test the
-- same parsers from C++), with Lua's int64 limit on sizes.
local testlib = require "testlib"
local g = testlib.sandbox_require "heapql.grammar"
local t = testlib.new("grammar_test")

local MAX = math.maxinteger

-- f(input) must give nil and exactly `message`.
local function rejects(f, input, message)
  local value, err = f(input)
  t:eq({ value = value, err = err }, { err = message }, type(input) == "string" and ("%q"):format(input) or tostring(input))
end

local function gives(f, input, expected)
  local value, err = f(input)
  t:eq(value, expected, ("%q%s"):format(input, err and (" (" .. err .. ")") or ""))
end

t:case("duration: every unit", function()
  for input, ns in pairs {
    ["7ns"] = 7, ["7us"] = 7000, ["7ms"] = 7000000, ["7s"] = 7000000000, ["7m"] = 420000000000,
    ["2h"] = 7200000000000, ["0s"] = 0, ["007ms"] = 7000000,
  } do
    gives(g.duration, input, ns)
  end
end)

t:case("duration: units are case-insensitive", function()
  gives(g.duration, "250MS", 250000000)
  gives(g.duration, "1S", 1000000000)
  gives(g.duration, "3Us", 3000)
  gives(g.duration, "1H", 3600000000000)
end)

t:case("duration: fractions are exact", function()
  gives(g.duration, "1.5s", 1500000000)
  gives(g.duration, "0.1ms", 100000)
  gives(g.duration, "0.001us", 1)
  gives(g.duration, "1.000000000s", 1000000000)
  gives(g.duration, "0.3s", 300000000)
  gives(g.duration, "1.25m", 75000000000)
  gives(g.duration, "1.5000000000000000000000ns", nil) -- still finer than 1 ns after zeros go
  t:eq(math.type(g.duration("0.3s")), "integer", "an integer, never a float")
end)

t:case("duration: largest value and overflow", function()
  gives(g.duration, "9223372036854775807ns", MAX)
  rejects(g.duration, "9223372036854775808ns",
    "'9223372036854775808ns' at column 1: too large: the most is 9223372036854775807ns (about 292 years)")
  rejects(g.duration, "99999999999999999999999s",
    "'99999999999999999999999s' at column 1: too large: the most is 9223372036854775807ns (about 292 years)")
  rejects(g.duration, "3000000h", "'3000000h' at column 1: too large: the most is 9223372036854775807ns (about 292 years)")
  gives(g.duration, "9223372036.854775807s", MAX)
  rejects(g.duration, "9223372036.854775808s",
    "'9223372036.854775808s' at column 1: too large: the most is 9223372036854775807ns (about 292 years)")
end)

t:case("duration: errors quote the input and point at the column", function()
  rejects(g.duration, "1.5xs", "'1.5xs' at column 4: unknown unit 'xs', expected one of ns us ms s m h")
  rejects(g.duration, "10", "'10' at column 3: needs a unit: ns us ms s m h")
  rejects(g.duration, "", "'' at column 1: expected a number")
  rejects(g.duration, "s", "'s' at column 1: expected a number")
  rejects(g.duration, "-1s", "'-1s' at column 1: expected a number; negative values are not allowed")
  rejects(g.duration, "1.s", "'1.s' at column 3: expected a digit after '.'")
  rejects(g.duration, ".5s", "'.5s' at column 1: expected a number")
  rejects(g.duration, "1 s", "'1 s' at column 2: unknown unit ' s', expected one of ns us ms s m h")
  rejects(g.duration, "1.5ns", "'1.5ns' at column 3: finer than 1 ns")
  rejects(g.duration, "0.0000000001s", "'0.0000000001s' at column 3: finer than 1 ns")
  rejects(g.duration, "1.1234567890123456789s", "'1.1234567890123456789s' at column 3: at most 18 digits after the point")
  rejects(g.duration, "1s..", "'1s..' at column 2: unknown unit 's..', expected one of ns us ms s m h")
  rejects(g.duration, "1e3s", "'1e3s' at column 2: unknown unit 'e3s', expected one of ns us ms s m h")
  rejects(g.duration, 5, "duration: expected a string, got number")
end)

t:case("size: bare numbers are bytes", function()
  gives(g.size, "0", 0)
  gives(g.size, "4096", 4096)
  gives(g.size, "12B", 12)
end)

t:case("size: decimal and binary units", function()
  for input, bytes in pairs {
    ["4K"] = 4000, ["4KB"] = 4000, ["4KiB"] = 4096, ["4Ki"] = 4096, ["1M"] = 1000000, ["1MB"] = 1000000,
    ["1MiB"] = 1048576, ["1Mi"] = 1048576, ["2G"] = 2000000000, ["2GB"] = 2000000000, ["2GiB"] = 2147483648,
    ["3T"] = 3000000000000, ["3TB"] = 3000000000000, ["1TiB"] = 1099511627776, ["2Gi"] = 2147483648,
    ["1Ti"] = 1099511627776,
  } do
    gives(g.size, input, bytes)
  end
end)

t:case("size: units are case-insensitive", function()
  gives(g.size, "4kb", 4000)
  gives(g.size, "4kib", 4096)
  gives(g.size, "4KIB", 4096)
  gives(g.size, "1mib", 1048576)
  gives(g.size, "12b", 12)
end)

t:case("size: fractions must come to whole bytes", function()
  gives(g.size, "1.5KB", 1500)
  gives(g.size, "1.5KiB", 1536)
  gives(g.size, "0.25MiB", 262144)
  gives(g.size, "2.0B", 2)
  rejects(g.size, "1.5B", "'1.5B' at column 3: not a whole number of bytes")
  rejects(g.size, "1.0001KB", "'1.0001KB' at column 3: not a whole number of bytes")
  rejects(g.size, "0.3KiB", "'0.3KiB' at column 3: not a whole number of bytes")
end)

-- Documented difference: Lua integers are int64, so the largest size is
-- 2^63 - 1 bytes where C++ takes up to 2^64 - 1.
t:case("size: largest value and overflow (int64 in Lua)", function()
  gives(g.size, "9223372036854775807", MAX)
  rejects(g.size, "9223372036854775808",
    "'9223372036854775808' at column 1: too large: the most is 9223372036854775807 bytes")
  rejects(g.size, "18446744073709551615",
    "'18446744073709551615' at column 1: too large: the most is 9223372036854775807 bytes")
  rejects(g.size, "20000000TB", "'20000000TB' at column 1: too large: the most is 9223372036854775807 bytes")
  gives(g.size, "8388607TiB", 8388607 * 1099511627776)
  rejects(g.size, "8388608TiB", "'8388608TiB' at column 1: too large: the most is 9223372036854775807 bytes")
  gives(g.size, "8589934591.5GiB", 8589934591 * 1073741824 + 536870912) -- 2^63 - 2^29
  rejects(g.size, "8388607.999999999TiB", "'8388607.999999999TiB' at column 9: not a whole number of bytes")
end)

t:case("size: errors quote the input and point at the column", function()
  rejects(g.size, "4XB", "'4XB' at column 2: unknown unit 'XB', expected one of B KB KiB MB MiB GB GiB TB TiB")
  rejects(g.size, "KB", "'KB' at column 1: expected a number")
  rejects(g.size, "-4KB", "'-4KB' at column 1: expected a number; negative values are not allowed")
  rejects(g.size, "", "'' at column 1: expected a number")
  rejects(g.size, "4 KB", "'4 KB' at column 2: unknown unit ' KB', expected one of B KB KiB MB MiB GB GiB TB TiB")
  rejects(g.size, "4.KB", "'4.KB' at column 3: expected a digit after '.'")
end)

t:case("duration range: forms", function()
  gives(g.duration_range, "1s..3s", { first = 1000000000, last = 3000000000 })
  gives(g.duration_range, "1.5s..", { first = 1500000000 })
  gives(g.duration_range, "..250ms", { first = 0, last = 250000000 })
  gives(g.duration_range, "2s..end", { first = 2000000000 })
  gives(g.duration_range, "2s..END", { first = 2000000000 })
  for _, whole in ipairs { "all", "ALL", "All", "..", "..end" } do
    gives(g.duration_range, whole, { first = 0 })
  end
  gives(g.duration_range, "2s..2s", { first = 2000000000, last = 2000000000 })
  gives(g.duration_range, "1m..1.5m", { first = 60000000000, last = 90000000000 })
end)

t:case("duration range: errors", function()
  rejects(g.duration_range, "1s", "'1s' at column 3: expected A..B (or A.., ..B, all): '1s..' is from 1s on, '..1s' is below 1s")
  rejects(g.duration_range, "", "'' at column 1: expected A..B (or A.., ..B, all)")
  rejects(g.duration_range, "3s..1s", "'3s..1s' at column 5: the end '1s' is before the begin '3s'")
  rejects(g.duration_range, "1s..3xs", "'1s..3xs' at column 6: unknown unit 'xs', expected one of ns us ms s m h")
  rejects(g.duration_range, "1..3s", "'1..3s' at column 2: needs a unit: ns us ms s m h")
  rejects(g.duration_range, "1s..2s..3s", "'1s..2s..3s' at column 7: expected A..B with a single '..'")
  rejects(g.duration_range, "end..2s", "'end..2s' at column 1: expected a number")
  rejects(g.duration_range, "1s...5s", "'1s...5s' at column 5: expected a number")
  rejects(g.duration_range, "1x..2s..3s", "'1x..2s..3s' at column 7: expected A..B with a single '..'")
  rejects(g.duration_range, "alls", "'alls' at column 5: expected A..B (or A.., ..B, all)")
  rejects(g.duration_range, "1s..-2s", "'1s..-2s' at column 5: expected a number; negative values are not allowed")
end)

t:case("size range: forms", function()
  gives(g.size_range, "4KB..1MiB", { first = 4000, last = 1048576 })
  gives(g.size_range, "1K..", { first = 1000 })
  gives(g.size_range, "..64", { first = 0, last = 64 })
  gives(g.size_range, "all", { first = 0 })
  gives(g.size_range, "..", { first = 0 })
  gives(g.size_range, "5..5", { first = 5, last = 5 })
end)

t:case("size range: errors", function()
  rejects(g.size_range, "4KB", "'4KB' at column 4: expected A..B (or A.., ..B, all): '4KB..' is from 4KB on, '..4KB' is below 4KB")
  rejects(g.size_range, "1MiB..4KB", "'1MiB..4KB' at column 7: the end '4KB' is before the begin '1MiB'")
  rejects(g.size_range, "1K..end", "'1K..end' at column 5: expected a number")
  rejects(g.size_range, "1.5B..4", "'1.5B..4' at column 3: not a whole number of bytes")
  rejects(g.size_range, "..1.5B", "'..1.5B' at column 5: not a whole number of bytes")
end)

t:case("frame pattern: valid patterns come back as written", function()
  for _, p in ipairs {
    "libc.so.6!", "ntdll.dll!RtlAllocateHeap", "malloc", "NTDLL.dll!Rtl*Heap", "f\\*", "?!", "?!0x1f", "\\?!",
    "fn() -> \\!", "mod!fn() -> !", "operator new[](*", "back\\\\slash", "\\x", "*", "*!free", " spaced ",
    "a!!", "\xC3\xA9t\xC3\xA9!caf\xC3\xA9",
  } do
    gives(g.frame_pattern, p, p)
  end
end)

t:case("frame pattern: bad patterns quote the pattern", function()
  rejects(g.frame_pattern, "", "frame pattern '': empty pattern")
  rejects(g.frame_pattern, "!",
    "frame pattern '!': at column 1: expected a module name before '!' (write 'symbol' for any module)")
  rejects(g.frame_pattern, "!malloc",
    "frame pattern '!malloc': at column 1: expected a module name before '!' (write 'symbol' for any module)")
  rejects(g.frame_pattern, "malloc\\",
    "frame pattern 'malloc\\': at column 7: '\\' at the end escapes nothing (write '\\\\' for a backslash)")
  rejects(g.frame_pattern, "ab\0c", "frame pattern 'ab\\x00c': at column 3: a NUL byte cannot be part of a pattern")
  -- Escapes are checked over the whole text before the module is.
  rejects(g.frame_pattern, "!\\",
    "frame pattern '!\\': at column 2: '\\' at the end escapes nothing (write '\\\\' for a backslash)")
  rejects(g.frame_pattern, "a\\\\\\",
    "frame pattern 'a\\\\\\': at column 4: '\\' at the end escapes nothing (write '\\\\' for a backslash)")
  rejects(g.frame_pattern, "a\n\\",
    "frame pattern 'a\\x0a\\': at column 3: '\\' at the end escapes nothing (write '\\\\' for a backslash)")
  rejects(g.frame_pattern, "!\0", "frame pattern '!\\x00': at column 2: a NUL byte cannot be part of a pattern")
  rejects(g.frame_pattern, {}, "frame pattern: expected a string, got table")
end)

t:case("cull list: the file format", function()
  gives(g.cull_list, "", {})
  gives(g.cull_list, "a\nb", { "a", "b" })
  gives(g.cull_list, "a\nb\n", { "a", "b" })
  gives(g.cull_list, "\239\187\191# comment\r\n  demo!make_node(Node*)   \r\n\n\t\r\nnew_buf\n   # indented\nLOAD_CONFIG()",
    { "demo!make_node(Node*)", "new_buf", "LOAD_CONFIG()" })
  gives(g.cull_list, "a b  c \n", { "a b  c" })
  gives(g.cull_list, "x#y\n", { "x#y" })
  gives(g.cull_list, "\239\187\191", {})
  gives(g.cull_list, "a\n\239\187\191b", { "a", "\239\187\191b" }) -- only a leading mark is skipped
end)

t:case("cull list: errors name the file, line and column", function()
  rejects(function(text) return g.cull_list(text, "crt.txt") end, "# x\n\nmod!\\\n",
    "crt.txt:3: frame pattern 'mod!\\': at column 5: '\\' at the end escapes nothing (write '\\\\' for a backslash)")
  rejects(function(text) return g.cull_list(text, "crt.txt") end, "a\r\n  !b\r\n",
    "crt.txt:2: frame pattern '!b': at column 1: expected a module name before '!' (write 'symbol' for any module)")
  rejects(function(text) return g.cull_list(text, "") end, "!b",
    "frame pattern '!b': at column 1: expected a module name before '!' (write 'symbol' for any module)")
  rejects(function(text) return g.cull_list(text) end, "ok\na\0b",
    "frame pattern 'a\\x00b': at column 2: a NUL byte cannot be part of a pattern")
  rejects(g.cull_list, nil, "cull list: expected a string, got nil")
end)

t:case("list", function()
  gives(g.list, "a", { "a" })
  gives(g.list, "a,b", { "a", "b" })
  gives(g.list, " a , b\t,c ", { "a", "b", "c" })
  gives(g.list, "x y, z", { "x y", "z" })
  rejects(g.list, "a,,b", "'a,,b' at column 3: empty item")
  rejects(g.list, "", "'' at column 1: empty item")
  rejects(g.list, "a,", "'a,' at column 3: empty item")
  rejects(g.list, ",a", "',a' at column 1: empty item")
  rejects(g.list, "a, ,b", "'a, ,b' at column 4: empty item")
end)

t:case("format_duration_ns: shortest exact form", function()
  for ns, text in pairs {
    [0] = "0s", [1] = "1ns", [999] = "999ns", [1000] = "1us", [1500] = "1.5us", [1500000] = "1.5ms",
    [2000000000] = "2s", [90000000000] = "90s", [1234567] = "1234567ns", [250125000] = "250125us", [250125001] = "250125001ns",
    [7200000000000] = "7200s", [MAX] = "9223372036.854775807s", [1000000000000] = "1000s",
  } do
    t:eq(g.format_duration_ns(ns), text, "format_duration_ns(" .. ns .. ")")
  end
  t:eq({ g.format_duration_ns(-1) }, { nil, "format_duration_ns: expected a non-negative integer, got -1" })
  t:eq({ g.format_duration_ns(1.5) }, { nil, "format_duration_ns: expected a non-negative integer, got 1.5" })
end)

t:case("format_duration_ns: parses back exactly", function()
  local ns = 1
  for _ = 1, 62 do
    for _, v in ipairs { ns, ns + 1, ns * 3 // 2 } do
      t:eq(g.duration(g.format_duration_ns(v)), v, "round trip of " .. v)
    end
    ns = ns * 2
  end
end)

t:case("format_size: exact and short", function()
  for bytes, text in pairs {
    [0] = "0", [123] = "123", [1000] = "1KB", [1024] = "1KiB", [4096] = "4KiB", [4000] = "4KB", [1500] = "1500",
    [1048576] = "1MiB", [3000000000000] = "3TB", [128000] = "128KB", [MAX] = "9223372036854775807",
  } do
    t:eq(g.format_size(bytes), text, "format_size(" .. bytes .. ")")
  end
  for _, bytes in ipairs { 0, 1, 999, 1000, 1024, 1536, 65536, 1000000000000, MAX } do
    t:eq(g.size(g.format_size(bytes)), bytes, "size round trip of " .. bytes)
  end
end)

t:case("quote and printable", function()
  local hostile = 'a"b\\c\nd\re\tf\0g\127h]]=]' .. "'"
  t:eq(load("return " .. g.quote(hostile))(), hostile, "quote reads back")
  t:ok(not g.quote(hostile):find("[\0-\31\127]"), "quote leaves no control byte")
  t:eq(g.quote("\0" .. "1"), '"\\0001"', "numeric escapes are three digits")
  t:eq(g.printable("a\tb\127"), "a\\x09b\\x7f")
end)

t:done()
