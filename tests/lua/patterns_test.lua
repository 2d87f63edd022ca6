-- heapql.patterns: pattern sets as values: coercion, union, difference,
-- de-duplication, the defaults flag, cull list files and the errors.
local testlib = require "testlib"
local patterns = testlib.sandbox_require "heapql.patterns"
local t = testlib.new("patterns_test")

local DEFAULTS = { "ntdll.dll!RtlAllocateHeap", "malloc", "operator new(*" }

t:case("coercion", function()
  local one = patterns.set "malloc"
  t:ok(patterns.is_set(one), "a string becomes a set")
  t:eq(one:texts(), { "malloc" })
  t:eq(#one, 1)
  t:eq(one.includes_defaults, false)
  t:ok(patterns.set(one) == one and rawequal(patterns.set(one), one), "a set is returned as it is")
  local mixed = patterns.set { "a!b", patterns.set { "c", "d!" }, "e" }
  t:eq(mixed:texts(), { "a!b", "c", "d!", "e" }, "lists may hold strings and sets, in order")
  t:eq(patterns.set({}):texts(), {}, "an empty list is the empty set")
  t:eq(#patterns.set {}, 0)
  t:ok(not patterns.is_set { "a" }, "a plain table is not a set")
  t:ok(not patterns.is_set "a", "a string is not a set")
  t:ok(not patterns.is_set(nil), "nil is not a set")
end)

t:case("de-duplication is case-insensitive and keeps the first spelling", function()
  local s = patterns.set { "Malloc", "malloc", "MALLOC", "ntdll.dll!", "NTDLL.DLL!", "malloc " }
  t:eq(s:texts(), { "Malloc", "ntdll.dll!", "malloc " })
  t:ok(s:contains "mAlLoC", "contains ignores case")
  t:ok(not s:contains "calloc", "contains says no")
  t:ok(s:contains "malloc ", "contains compares the exact text")
  t:ok(not s:contains(42), "contains of a non-string is false")
end)

t:case("texts() is a copy", function()
  local s = patterns.set { "a", "b" }
  local texts = s:texts()
  texts[1] = "changed"
  t:eq(s:texts(), { "a", "b" })
end)

t:case("sets cannot be changed", function()
  local s = patterns.set "a"
  t:fails(function() s.extra = 1 end, "a pattern set cannot be changed; build a new one with + or -")
  t:fails(function() s[2] = "b" end, "a pattern set cannot be changed; build a new one with + or -")
end)

t:case("union", function()
  local a = patterns.set { "a", "b" }
  local b = patterns.set { "B", "c" }
  t:eq((a + b):texts(), { "a", "b", "c" }, "a's patterns, then b's new ones")
  t:eq((b + a):texts(), { "B", "c", "a" })
  t:eq((a + "d"):texts(), { "a", "b", "d" }, "a string on the right")
  t:eq(("d" + a):texts(), { "d", "a", "b" }, "a string on the left")
  t:eq((a + { "e", "a" }):texts(), { "a", "b", "e" }, "a table on the right")
  t:eq(({ "e" } + a):texts(), { "e", "a", "b" }, "a table on the left")
  t:eq((a + {}):texts(), { "a", "b" })
  t:eq(a:texts(), { "a", "b" }, "operands are unchanged")
  t:eq(#(a + b + "x" + { "y", "z" }), 6)
end)

t:case("difference", function()
  local a = patterns.set { "a!b", "Malloc", "c" }
  t:eq((a - "malloc"):texts(), { "a!b", "c" }, "case-insensitive")
  t:eq((a - "  MALLOC\t"):texts(), { "a!b", "c" }, "after trimming")
  t:eq((a - { "c", "A!B" }):texts(), { "Malloc" })
  t:eq((a - patterns.set "zzz"):texts(), { "a!b", "Malloc", "c" }, "removing what is absent")
  t:eq((a - a):texts(), {})
  t:eq(({ "x", "y" } - a):texts(), { "x", "y" }, "a table on the left")
  t:eq(("c" - a):texts(), {}, "a string on the left")
  local spaced = patterns.set { " p " }
  t:eq((spaced - "p"):texts(), {}, "the left side is trimmed too")
end)

t:case("the defaults flag", function()
  local d = patterns.defaults(DEFAULTS)
  t:eq(d.includes_defaults, true)
  t:eq(d:texts(), DEFAULTS)
  t:eq((d + "x").includes_defaults, true, "a union with the defaults includes them")
  t:eq(("x" + d).includes_defaults, true, "on either side")
  t:eq((patterns.set "x" + { d }).includes_defaults, true, "inside a list too")
  t:eq(patterns.set { "y", d }.includes_defaults, true, "a list holding the defaults includes them")
  t:eq((d - "x").includes_defaults, false, "a difference is always fully explicit")
  t:eq((d - "x"):texts(), DEFAULTS, "... though it holds the same patterns")
  t:eq((d - "malloc"):texts(), { "ntdll.dll!RtlAllocateHeap", "operator new(*" })
  t:eq(patterns.defaults({}).includes_defaults, true)
  t:fails(function() patterns.defaults { "ok", "!" } end,
    "item 2: frame pattern '!': at column 1: expected a module name before '!' (write 'symbol' for any module)")
end)

t:case("origin: the named lists a set was made of, and its loose patterns counted", function()
  local d = patterns.defaults(DEFAULTS)
  local stl = patterns.from_file("std::allocator*\nstd::vector*\n", "cull/stl.txt", "shipped stl")
  t:eq(patterns.origin(d), "defaults")
  t:eq(patterns.origin(d + {}), "defaults")
  t:eq(patterns.origin(d + stl), "defaults + shipped stl")
  t:eq(patterns.origin(d + stl + { "mine!alloc", "mine!grow" }), "defaults + shipped stl + 2 patterns")
  t:eq(patterns.origin(d + { "malloc" }), "defaults", "a pattern the defaults hold adds nothing")
  t:eq(patterns.origin(patterns.set { "a!", d, "b!" }), "defaults + 2 patterns", "sets inside a list")
  t:eq(patterns.origin(d + stl + "x" - "malloc"), "defaults + shipped stl - 1 pattern + 1 pattern")
  t:eq(patterns.origin(d + "x" - "x"), "defaults", "a loose pattern taken out is not counted")
  t:eq(patterns.origin(patterns.from_file("a\n", "my.txt")), "file my.txt")
  t:eq(patterns.origin(patterns.set "a!"), "1 pattern")
  t:eq(patterns.origin(patterns.set {}), "no patterns")
  t:eq(patterns.origin(stl + d), "shipped stl + defaults", "in the order they were added")
end)

t:case("equality is by content", function()
  t:ok(patterns.set { "a", "b" } == patterns.set { "b", "A" }, "same patterns in any order and case")
  t:ok(patterns.set { "a", "b" } ~= patterns.set { "a" }, "different patterns")
  t:ok(patterns.set { "a" } ~= patterns.set { "a", "b" }, "different patterns, other side")
  t:ok(patterns.defaults { "a" } ~= patterns.set { "a" }, "the defaults flag counts")
  t:ok(patterns.defaults { "a" } == patterns.set { "a" } + patterns.defaults {}, "a built-up equal set")
  t:ok(patterns.set { "a" } ~= { "a" }, "a plain table is never equal to a set")
  t:ok(patterns.set {} == patterns.set {}, "empty sets")
end)

t:case("tostring", function()
  t:eq(tostring(patterns.set {}), "PatternSet(0)")
  t:eq(tostring(patterns.set { "a!b", 'q"\n' }), 'PatternSet(2: "a!b", "q\\"\\n")')
  t:eq(tostring(patterns.defaults { "malloc" }), 'PatternSet(1, includes defaults: "malloc")')
end)

t:case("from_file", function()
  local s = patterns.from_file("\239\187\191# crt\r\n  demo!make_node(Node*)  \r\n\nnew_buf\nNEW_BUF\n", "crt.txt")
  t:eq(s:texts(), { "demo!make_node(Node*)", "new_buf" })
  t:eq(s.includes_defaults, false)
  t:fails(function() patterns.from_file("ok\n\n!x\n", "crt.txt") end,
    "crt.txt:3: frame pattern '!x': at column 1: expected a module name before '!' (write 'symbol' for any module)")
  t:eq(patterns.from_file("", "empty.txt"):texts(), {})
end)

t:case("errors name the bad pattern and its column", function()
  t:fails(function() patterns.set "!" end,
    "frame pattern '!': at column 1: expected a module name before '!' (write 'symbol' for any module)")
  t:fails(function() patterns.set "" end, "frame pattern '': empty pattern")
  t:fails(function() patterns.set { "a", "b\\" } end,
    "item 2: frame pattern 'b\\': at column 2: '\\' at the end escapes nothing (write '\\\\' for a backslash)")
  t:fails(function() patterns.set(42) end, "expected a frame pattern string, a list of them or a pattern set, got number")
  t:fails(function() patterns.set(nil) end, "expected a frame pattern string, a list of them or a pattern set, got nil")
  t:fails(function() patterns.set { "a", true } end,
    "item 2: expected a frame pattern string, a list of them or a pattern set, got boolean")
  t:fails(function() patterns.set { { "nested" } } end,
    "item 1: expected a frame pattern string or a pattern set, got a table")
  t:fails(function() patterns.set { x = "a" } end, "expected a list of frame patterns, found the key x")
  t:fails(function() patterns.set { "a", [1.5] = "c" } end, "expected a list of frame patterns, found the key 1.5")
  t:fails(function() local _ = patterns.set "a" + "!" end,
    "frame pattern '!': at column 1: expected a module name before '!' (write 'symbol' for any module)")
  t:fails(function() local _ = patterns.set "a" - 7 end,
    "expected a frame pattern string, a list of them or a pattern set, got number")
end)

t:case("errors point at the caller's line", function()
  local ok, err = pcall(function()
    local s = patterns.set "!" -- this line
    return s
  end)
  local line = debug.getinfo(1, "l").currentline - 3
  t:ok(not ok and err:find(":" .. line .. ": frame pattern '!'", 1, true), "set() blames its caller: " .. tostring(err))
  ok, err = pcall(function()
    local s = patterns.set "a" + { "!" } -- this line
    return s
  end)
  line = debug.getinfo(1, "l").currentline - 3
  t:ok(not ok and err:find(":" .. line .. ": item 1: frame pattern '!'", 1, true), "+ blames the expression: " .. tostring(err))
end)

t:done()
