#include "tests/support/shell_command.h"

#include <cctype>
#include <cstdlib>

namespace heapql::test {
namespace {

struct Token {
  std::string text;
  bool is_operator = false;
  std::size_t quoted_from = std::string::npos;  // where in `text` the first quoted character is
};

bool is_operator_char(char c) { return c == '|' || c == '&' || c == ';' || c == '<' || c == '>' || c == '(' || c == ')'; }

// Splits `text` into words (quotes removed) and operators, as sh does before
// expansion; the error names the first construct that needs a real shell.
std::optional<std::vector<Token>> tokenize(const std::string& text, std::string& error) {
  std::vector<Token> tokens;
  Token current;
  bool in_word = false;
  auto finish_word = [&] {
    if (in_word) tokens.push_back(current);
    current = Token{};
    in_word = false;
  };
  auto refuse = [&](const std::string& what, std::size_t at) {
    error = what + " at byte " + std::to_string(at) + " of: " + text;
    return std::nullopt;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t') {
      finish_word();
    } else if (c == '\n') {
      return refuse("a second command (a line end)", i);
    } else if (c == '\'') {
      const std::size_t end = text.find('\'', i + 1);
      if (end == std::string::npos) return refuse("an unclosed ' quote", i);
      if (current.quoted_from == std::string::npos) current.quoted_from = current.text.size();
      current.text += text.substr(i + 1, end - i - 1);
      in_word = true;
      i = end;
    } else if (c == '"') {
      if (current.quoted_from == std::string::npos) current.quoted_from = current.text.size();
      in_word = true;
      for (++i;; ++i) {
        if (i >= text.size()) return refuse("an unclosed \" quote", i);
        if (text[i] == '"') break;
        if (text[i] == '$' || text[i] == '`') return refuse("an expansion in double quotes", i);
        if (text[i] == '\\' && i + 1 < text.size() && std::string("\"\\$`").find(text[i + 1]) != std::string::npos) ++i;
        current.text += text[i];
      }
    } else if (c == '\\') {
      if (i + 1 >= text.size()) return refuse("a trailing backslash", i);
      if (current.quoted_from == std::string::npos) current.quoted_from = current.text.size();
      current.text += text[++i];
      in_word = true;
    } else if (c == '$' || c == '`') {
      return refuse(std::string("an expansion (") + c + ")", i);
    } else if (c == '*' || c == '?' || c == '[') {
      return refuse(std::string("an unquoted pattern character (") + c + ")", i);
    } else if (c == '~' && !in_word) {
      return refuse("a tilde expansion", i);
    } else if (is_operator_char(c)) {
      Token op;
      op.is_operator = true;
      // 2>FILE and 2>&1: the 2 is the stream's number, not a word.
      if (c == '>' && in_word && current.text == "2" && current.quoted_from == std::string::npos) {
        current = Token{};
        in_word = false;
        op.text = "2";
      } else {
        finish_word();
      }
      op.text += c;
      while (i + 1 < text.size() && is_operator_char(text[i + 1]) && text[i + 1] != '(' && text[i + 1] != ')') {
        op.text += text[++i];
      }
      if (op.text == "2>&" && i + 1 < text.size() && text[i + 1] == '1') op.text += text[++i];
      tokens.push_back(op);
    } else {
      current.text += c;
      in_word = true;
    }
  }
  finish_word();
  return tokens;
}

bool is_assignment(const Token& t) {
  const std::size_t equals = t.text.find('=');
  if (t.is_operator || equals == std::string::npos || equals == 0 || equals > t.quoted_from) return false;
  if (std::isdigit(static_cast<unsigned char>(t.text[0]))) return false;
  for (std::size_t i = 0; i < equals; ++i) {
    if (!std::isalnum(static_cast<unsigned char>(t.text[i])) && t.text[i] != '_') return false;
  }
  return true;
}

bool is_seconds(const std::string& text) {
  if (text.empty()) return false;
  char* end = nullptr;
  std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isdigit(static_cast<unsigned char>(text[0]));
}

}  // namespace

ParsedShellCommand parse_shell_command(const std::string& text) {
  ParsedShellCommand parsed;
  const auto tokens = tokenize(text, parsed.error);
  if (!tokens) return parsed;
  const std::vector<Token>& t = *tokens;
  ShellCommand command;
  std::size_t i = 0;
  auto refuse = [&](const std::string& what) {
    parsed.error = what + " in: " + text;
    return parsed;
  };
  if (t.size() >= 3 && !t[0].is_operator && t[0].text == "cd" && t[0].quoted_from == std::string::npos) {
    if (t[1].is_operator || !t[2].is_operator || t[2].text != "&&") return refuse("a `cd` not of the form `cd DIR &&`");
    command.working_dir = t[1].text;
    i = 3;
  }
  for (; i < t.size() && is_assignment(t[i]); ++i) {
    const std::size_t equals = t[i].text.find('=');
    command.environment.emplace_back(t[i].text.substr(0, equals), t[i].text.substr(equals + 1));
  }
  if (i + 1 < t.size() && !t[i].is_operator && t[i].text == "timeout" && t[i].quoted_from == std::string::npos) {
    if (!is_seconds(t[i + 1].text)) return refuse("`timeout` without a number of seconds");
    command.timeout_seconds = std::strtod(t[i + 1].text.c_str(), nullptr);
    i += 2;
  }
  for (; i < t.size(); ++i) {
    if (!t[i].is_operator) {
      if (command.words.empty() && (t[i].text == "{" || t[i].text == "}" || t[i].text == "!") &&
          t[i].quoted_from == std::string::npos) {
        return refuse("the reserved word `" + t[i].text + "`");
      }
      command.words.push_back(t[i].text);
      continue;
    }
    const std::string& op = t[i].text;
    if (op == "2>&1") {
      command.stderr_to_stdout = true;
      continue;
    }
    std::string* target = op == "<" ? &command.stdin_path : op == ">" ? &command.stdout_path
                        : op == "2>" ? &command.stderr_path : nullptr;
    if (target == nullptr) return refuse("the operator `" + op + "`");
    if (i + 1 >= t.size() || t[i + 1].is_operator) return refuse("`" + op + "` without a file");
    *target = t[++i].text;
  }
  if (command.words.empty()) return refuse("no program to run");
  parsed.command = std::move(command);
  return parsed;
}

}  // namespace heapql::test
