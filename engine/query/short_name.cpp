#include "engine/query/short_name.h"

#include <array>

namespace heapql {

namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // U+2026, as heaptrack's GUI writes it

// `operator<`, `operator<<`, `operator<=`, `operator<=>`, `operator->` and
// `operator>>`: their angle brackets are the name, not template arguments.
std::size_t operator_name_length(std::string_view rest) {
  constexpr std::array<std::string_view, 8> kOperators = {"operator<=>", "operator<<=", "operator>>=", "operator<<",
                                                          "operator>>",  "operator<=",  "operator>=",  "operator->"};
  for (std::string_view op : kOperators) {
    if (rest.starts_with(op)) return op.size();
  }
  for (std::string_view op : {std::string_view("operator<"), std::string_view("operator>")}) {
    if (rest.starts_with(op)) return op.size();
  }
  return 0;
}

// The index of the `>` that closes the `<` at `open`, or npos when unbalanced.
std::size_t closing_angle(std::string_view s, std::size_t open) {
  int depth = 0;
  for (std::size_t i = open; i < s.size(); ++i) {
    if (const std::size_t op = operator_name_length(s.substr(i)); op > 0) {
      i += op - 1;
      continue;
    }
    if (s[i] == '<') ++depth;
    if (s[i] == '>' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// Whether only cv/ref/noexcept qualifiers follow a parameter list.
bool only_qualifiers(std::string_view tail) {
  while (!tail.empty()) {
    if (tail.front() == ' ') {
      tail.remove_prefix(1);
      continue;
    }
    bool matched = false;
    for (std::string_view q : {"const", "volatile", "noexcept", "&&", "&"}) {
      if (tail.starts_with(q)) {
        tail.remove_prefix(q.size());
        matched = true;
        break;
      }
    }
    if (!matched) return false;
  }
  return true;
}

std::string collapse_templates(std::string_view symbol) {
  std::string out;
  out.reserve(symbol.size());
  for (std::size_t i = 0; i < symbol.size(); ++i) {
    if (const std::size_t op = operator_name_length(symbol.substr(i)); op > 0) {
      out.append(symbol.substr(i, op));
      i += op - 1;
      continue;
    }
    if (symbol[i] == '<') {
      const std::size_t close = closing_angle(symbol, i);
      if (close != std::string_view::npos) {
        out += '<';
        out += kEllipsis;
        out += '>';
        i = close;
        continue;
      }
    }
    out += symbol[i];
  }
  return out;
}

// Drops the parameter list: the last `)` followed only by qualifiers, back to
// its `(`. `(anonymous namespace)::f(int)` keeps its first parentheses.
std::string drop_parameters(std::string symbol) {
  const std::size_t close = symbol.rfind(')');
  if (close == std::string::npos || !only_qualifiers(std::string_view(symbol).substr(close + 1))) return symbol;
  int depth = 0;
  for (std::size_t i = close + 1; i-- > 0;) {
    if (symbol[i] == ')') ++depth;
    if (symbol[i] == '(' && --depth == 0) {
      if (i > 0) symbol.erase(i);
      return symbol;
    }
  }
  return symbol;
}

}  // namespace

std::string short_symbol_name(std::string_view symbol) { return drop_parameters(collapse_templates(symbol)); }

std::string short_frame_name(std::string_view frame) {
  const std::size_t bang = frame.find('!');
  const std::string_view module = bang == std::string_view::npos ? std::string_view() : frame.substr(0, bang + 1);
  const std::string_view symbol = bang == std::string_view::npos ? frame : frame.substr(bang + 1);
  return std::string(module) + short_symbol_name(symbol);
}

}  // namespace heapql
