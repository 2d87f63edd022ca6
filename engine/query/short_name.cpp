#include "engine/query/short_name.h"

#include <array>
#include <vector>

namespace heapql {

namespace {

constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // U+2026, as heaptrack's GUI writes it

// `operator<`, `operator<<`, `operator<=`, `operator<=>`, `operator->` and
// `operator>>`: their angle brackets are the name, not template arguments.
std::size_t operator_name_length(std::string_view rest) {
  if (!rest.starts_with("operator")) return 0;
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

// For each `<` of a template argument list, the index of its `>` (npos when
// unbalanced), found in one pass with a stack: symbols come from the trace,
// so a long one full of brackets must not cost more than its length.
std::vector<std::size_t> matching_angles(std::string_view symbol) {
  std::vector<std::size_t> match(symbol.size(), std::string_view::npos);
  std::vector<std::size_t> open;
  for (std::size_t i = 0; i < symbol.size(); ++i) {
    if (const std::size_t op = operator_name_length(symbol.substr(i)); op > 0) {
      i += op - 1;
      continue;
    }
    if (symbol[i] == '<') open.push_back(i);
    if (symbol[i] == '>' && !open.empty()) {
      match[open.back()] = i;
      open.pop_back();
    }
  }
  return match;
}

std::string collapse_templates(std::string_view symbol) {
  if (symbol.find('<') == std::string_view::npos) return std::string(symbol);
  const std::vector<std::size_t> match = matching_angles(symbol);
  std::string out;
  out.reserve(symbol.size());
  for (std::size_t i = 0; i < symbol.size(); ++i) {
    if (const std::size_t op = operator_name_length(symbol.substr(i)); op > 0) {
      out.append(symbol.substr(i, op));
      i += op - 1;
      continue;
    }
    if (symbol[i] == '<' && match[i] != std::string_view::npos) {
      out += '<';
      out += kEllipsis;
      out += '>';
      i = match[i];
      continue;
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
