-- json: a small JSON reader for the Lua tests (heapql's JSON read back as
-- Lua values: objects and arrays as tables, null as json.null).
local M = {}

M.null = setmetatable({}, { __tostring = function() return "null" end })

local escapes = { ['"'] = '"', ["\\"] = "\\", ["/"] = "/", b = "\b", f = "\f", n = "\n", r = "\r", t = "\t" }

local function decode_at(text, pos)
  pos = text:find("%S", pos) or #text + 1
  local c = text:sub(pos, pos)
  if c == "{" then
    local object = {}
    pos = text:find("%S", pos + 1)
    if text:sub(pos, pos) == "}" then return object, pos + 1 end
    while true do
      local key
      key, pos = decode_at(text, pos)
      local colon = text:find("%S", pos)
      assert(colon and text:sub(colon, colon) == ":", "json: expected ':' at " .. pos)
      object[key], pos = decode_at(text, colon + 1)
      pos = text:find("%S", pos)
      local sep = pos and text:sub(pos, pos)
      if sep == "}" then return object, pos + 1 end
      assert(sep == ",", "json: expected ',' or '}' at " .. pos)
      pos = pos + 1
    end
  elseif c == "[" then
    local array = {}
    pos = text:find("%S", pos + 1)
    if text:sub(pos, pos) == "]" then return array, pos + 1 end
    while true do
      array[#array + 1], pos = decode_at(text, pos)
      pos = text:find("%S", pos)
      local sep = pos and text:sub(pos, pos)
      if sep == "]" then return array, pos + 1 end
      assert(sep == ",", "json: expected ',' or ']' at " .. pos)
      pos = pos + 1
    end
  elseif c == '"' then
    local parts, i = {}, pos + 1
    while true do
      local ch = text:sub(i, i)
      assert(ch ~= "", "json: unterminated string")
      if ch == '"' then return table.concat(parts), i + 1 end
      if ch == "\\" then
        local e = text:sub(i + 1, i + 1)
        if e == "u" then
          local code = tonumber(text:sub(i + 2, i + 5), 16)
          i = i + 6
          if code >= 0xD800 and code < 0xDC00 and text:sub(i, i + 1) == "\\u" then
            code = 0x10000 + (code - 0xD800) * 0x400 + (tonumber(text:sub(i + 2, i + 5), 16) - 0xDC00)
            i = i + 6
          end
          parts[#parts + 1] = utf8.char(code)
        else
          parts[#parts + 1] = assert(escapes[e], "json: bad escape")
          i = i + 2
        end
      else
        parts[#parts + 1] = ch
        i = i + 1
      end
    end
  elseif text:sub(pos, pos + 3) == "null" then
    return M.null, pos + 4
  elseif text:sub(pos, pos + 3) == "true" then
    return true, pos + 4
  elseif text:sub(pos, pos + 4) == "false" then
    return false, pos + 5
  end
  local number = text:match("^-?%d+%.?%d*[eE]?[-+]?%d*", pos)
  assert(number and #number > 0, "json: unexpected '" .. c .. "' at " .. pos)
  return math.tointeger(tonumber(number)) or tonumber(number), pos + #number
end

-- The value of a JSON text; raises on malformed text or trailing bytes.
function M.decode(text)
  local value, pos = decode_at(text, 1)
  assert(not text:find("%S", pos), "json: trailing text at " .. pos)
  return value
end

return M
