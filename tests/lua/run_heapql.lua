-- run_heapql: runs the heapql binary under test (HEAPQL_BINARY, as
-- run_test.sh sets it) from a Lua test, and says what it printed.
local testlib = require "testlib"

local M = {}

M.binary = os.getenv("HEAPQL_BINARY") or (testlib.build_dir .. "/heapql")

-- A word for /bin/sh: in single quotes.
function M.quote(word)
  return "'" .. word:gsub("'", "'\\''") .. "'"
end

-- Runs `heapql WORDS...`: {code = exit code, out = stdout, err = stderr}.
function M.run(words)
  local quoted = { M.quote(M.binary) }
  for i, word in ipairs(words) do quoted[i + 1] = M.quote(word) end
  local err_file = os.tmpname()
  local pipe = assert(io.popen(table.concat(quoted, " ") .. " 2>" .. M.quote(err_file)))
  local out = pipe:read("a")
  local _, _, code = pipe:close()
  local file = assert(io.open(err_file, "rb"))
  local err = file:read("a")
  file:close()
  os.remove(err_file)
  return { code = code, out = out, err = err }
end

-- The names of the files FOLDER/*.EXT without the extension, sorted.
function M.file_stems(folder, ext)
  local pipe = assert(io.popen("ls " .. M.quote(folder)))
  local names = {}
  for line in pipe:lines() do
    local stem = line:match("^(.*)%." .. ext .. "$")
    if stem then names[#names + 1] = stem end
  end
  pipe:close()
  table.sort(names)
  return names
end

return M
