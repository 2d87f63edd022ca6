#include "tests/support/strict_json_reader.h"

#include <cstdint>
#include <stdexcept>
#include <string_view>
#include <vector>

namespace heapql::test {

namespace {

// A JSON value, as much as flattening needs: objects keep their members in
// document order (a later duplicate overwrites, as in python3's dict).
struct Value {
  enum class Kind { kObject, kArray, kString, kLiteral } kind = Kind::kLiteral;
  std::string text;  // a string's value, or a number/true/false/null as written
  std::vector<std::pair<std::string, Value>> members;
  std::vector<Value> items;
};

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  Value document() {
    Value v = value(0);
    skip_space();
    if (at_ < text_.size()) fail("text after the value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw std::runtime_error("byte " + std::to_string(at_) + ": " + what);
  }
  void skip_space() {
    while (at_ < text_.size() && (text_[at_] == ' ' || text_[at_] == '\t' || text_[at_] == '\n' || text_[at_] == '\r')) ++at_;
  }
  char peek() {
    skip_space();
    if (at_ >= text_.size()) fail("unexpected end");
    return text_[at_];
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++at_;
  }

  Value value(int depth) {
    if (depth > 512) fail("nested too deep");
    const char c = peek();
    if (c == '{') return object(depth);
    if (c == '[') return array(depth);
    if (c == '"') return Value{Value::Kind::kString, string(), {}, {}};
    for (std::string_view word : {"true", "false", "null"}) {
      if (text_.substr(at_, word.size()) == word) {
        at_ += word.size();
        return Value{Value::Kind::kLiteral, std::string(word), {}, {}};
      }
    }
    return Value{Value::Kind::kLiteral, number(), {}, {}};
  }

  Value object(int depth) {
    Value v{Value::Kind::kObject, {}, {}, {}};
    expect('{');
    if (peek() == '}') return ++at_, v;
    for (;;) {
      if (peek() != '"') fail("expected a member name");
      std::string name = string();
      expect(':');
      Value member = value(depth + 1);
      bool replaced = false;
      for (auto& [existing, old] : v.members) {
        if (existing == name) old = std::move(member), replaced = true;
      }
      if (!replaced) v.members.emplace_back(std::move(name), std::move(member));
      if (peek() == ',') { ++at_; continue; }
      expect('}');
      return v;
    }
  }

  Value array(int depth) {
    Value v{Value::Kind::kArray, {}, {}, {}};
    expect('[');
    if (peek() == ']') return ++at_, v;
    for (;;) {
      v.items.push_back(value(depth + 1));
      if (peek() == ',') { ++at_; continue; }
      expect(']');
      return v;
    }
  }

  // JSON's number grammar, exactly; kept as written.
  std::string number() {
    const std::size_t start = at_;
    auto digits = [&] {
      const std::size_t from = at_;
      while (at_ < text_.size() && text_[at_] >= '0' && text_[at_] <= '9') ++at_;
      if (at_ == from) fail("expected a digit");
    };
    if (at_ < text_.size() && text_[at_] == '-') ++at_;
    if (at_ < text_.size() && text_[at_] == '0') {
      ++at_;
    } else {
      digits();
    }
    if (at_ < text_.size() && text_[at_] == '.') ++at_, digits();
    if (at_ < text_.size() && (text_[at_] == 'e' || text_[at_] == 'E')) {
      ++at_;
      if (at_ < text_.size() && (text_[at_] == '+' || text_[at_] == '-')) ++at_;
      digits();
    }
    return std::string(text_.substr(start, at_ - start));
  }

  unsigned hex4() {
    if (at_ + 4 > text_.size()) fail("short \\u escape");
    unsigned v = 0;
    for (int i = 0; i < 4; ++i) {
      const char c = text_[at_++];
      v <<= 4;
      if (c >= '0' && c <= '9') v |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f') v |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F') v |= static_cast<unsigned>(c - 'A' + 10);
      else fail("bad \\u escape");
    }
    return v;
  }

  static void append_utf8(std::string& out, std::uint32_t cp) {
    if (cp < 0x80) {
      out += static_cast<char>(cp);
    } else if (cp < 0x800) {
      out += static_cast<char>(0xC0 | (cp >> 6));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
      out += static_cast<char>(0xE0 | (cp >> 12));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (cp >> 18));
      out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (cp & 0x3F));
    }
  }

  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (at_ >= text_.size()) fail("unterminated string");
      const char c = text_[at_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) fail("a control character in a string");
      if (c != '\\') { out += c; continue; }
      if (at_ >= text_.size()) fail("unterminated escape");
      switch (const char e = text_[at_++]) {
        case '"': case '\\': case '/': out += e; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'n': out += '\n'; break;
        case 'r': out += '\r'; break;
        case 't': out += '\t'; break;
        case 'u': {
          std::uint32_t cp = hex4();
          if (cp >= 0xD800 && cp < 0xDC00 && text_.substr(at_, 2) == "\\u") {
            const std::size_t back = at_;
            at_ += 2;
            const unsigned low = hex4();
            if (low >= 0xDC00 && low < 0xE000) cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            else at_ = back;
          }
          append_utf8(out, cp);
          break;
        }
        default: fail("bad escape");
      }
    }
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

std::string joined(const std::vector<std::string>& path) {
  std::string out;
  for (const std::string& part : path) out += (out.empty() ? "" : ".") + part;
  return out;
}

// A key part as python3's str() writes it, which flat_json.cpp's script
// uses: a string as itself, a list as its repr ("['a', 'b']"), true, false
// and null as True, False and None.
std::string python_repr(const Value& v);

std::string python_string_repr(const std::string& text) {
  const char quote = text.find('\'') != std::string::npos && text.find('"') == std::string::npos ? '"' : '\'';
  std::string out(1, quote);
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (c == '\\' || c == quote) {
      (out += '\\') += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (byte < 0x20 || byte == 0x7f) {
      static constexpr char kHex[] = "0123456789abcdef";
      ((out += "\\x") += kHex[byte >> 4]) += kHex[byte & 15];
    } else {
      out += c;
    }
  }
  return out + quote;
}

std::string python_literal(const Value& v) {
  if (v.text == "true") return "True";
  if (v.text == "false") return "False";
  if (v.text == "null") return "None";
  return v.text;
}

std::string python_repr(const Value& v) {
  switch (v.kind) {
    case Value::Kind::kString: return python_string_repr(v.text);
    case Value::Kind::kLiteral: return python_literal(v);
    case Value::Kind::kArray: {
      std::string out = "[";
      for (std::size_t i = 0; i < v.items.size(); ++i) out += (i ? ", " : "") + python_repr(v.items[i]);
      return out + "]";
    }
    case Value::Kind::kObject: {
      std::string out = "{";
      for (std::size_t i = 0; i < v.members.size(); ++i) {
        out += (i ? ", " : "") + python_string_repr(v.members[i].first) + ": " + python_repr(v.members[i].second);
      }
      return out + "}";
    }
  }
  return "";
}

std::string python_str(const Value& v) {
  if (v.kind == Value::Kind::kString) return v.text;
  return python_repr(v);
}

// The same walk as flat_json.cpp's python3 script.
void walk(std::vector<std::string>& path, const Value& v, FlatJson& out) {
  switch (v.kind) {
    case Value::Kind::kObject:
      for (const auto& [name, member] : v.members) {
        path.push_back(name);
        walk(path, member, out);
        path.pop_back();
      }
      break;
    case Value::Kind::kArray: {
      path.push_back("length");
      out[joined(path)] = std::to_string(v.items.size());
      path.pop_back();
      const bool rows = !path.empty() && path.back() == "rows";
      for (std::size_t i = 0; i < v.items.size(); ++i) {
        const Value& item = v.items[i];
        if (rows && item.kind == Value::Kind::kObject) {
          std::string key;
          Value rest{Value::Kind::kObject, {}, {}, {}};
          for (const auto& [name, member] : item.members) {
            if (name != "key") { rest.members.emplace_back(name, member); continue; }
            bool first = true;
            for (const Value& part : member.items) {
              key += (first ? "" : " > ") + python_str(part);
              first = false;
            }
          }
          path.push_back(key);
          walk(path, rest, out);
        } else {
          path.push_back(std::to_string(i));
          walk(path, item, out);
        }
        path.pop_back();
      }
      break;
    }
    case Value::Kind::kString:
    case Value::Kind::kLiteral:
      out[joined(path)] = v.text;
      break;
  }
}

}  // namespace

FlatJson read_json_strictly(const std::string& json_text) {
  const Value document = Reader(json_text).document();
  FlatJson out;
  std::vector<std::string> path;
  walk(path, document, out);
  return out;
}

}  // namespace heapql::test
