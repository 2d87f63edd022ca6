#include "cli/serve/api_parameters.h"

#include <fmt/format.h>

#include <array>
#include <optional>

#include "cli/serve/served_lists.h"

namespace heapql::cli {

namespace {

// Options that take a file or a folder, or change what is read or what a
// request may spend: the server decides those, once, on its own command line.
constexpr std::array<std::string_view, 12> kRefused = {"output", "o",      "format",  "store",   "no-store", "symbols",
                                                      "no-raw", "strict", "trusted", "timeout", "memory",   "recipes"};

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string decoded(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '+') {
      out += ' ';
    } else if (text[i] == '%' && i + 2 < text.size() && hex_digit(text[i + 1]) >= 0 && hex_digit(text[i + 2]) >= 0) {
      out += static_cast<char>(hex_digit(text[i + 1]) * 16 + hex_digit(text[i + 2]));
      i += 2;
    } else {
      out += text[i];
    }
  }
  return out;
}

const lua::AcceptedOption* find_option(const std::vector<lua::AcceptedOption>& accepted, std::string_view option) {
  for (const lua::AcceptedOption& o : accepted) {
    if (o.name == option) return &o;
    for (const std::string& alias : o.aliases) {
      if (alias == option) return &o;
    }
  }
  return nullptr;
}

}  // namespace

Parameters parameters_in_order(std::string_view target) {
  Parameters parameters;
  const std::size_t question = target.find('?');
  if (question == std::string_view::npos) return parameters;
  std::string_view query = target.substr(question + 1);
  if (const std::size_t hash = query.find('#'); hash != std::string_view::npos) query = query.substr(0, hash);
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (pair.empty()) continue;
    const std::size_t equals = pair.find('=');
    if (equals == std::string_view::npos) {
      parameters.emplace_back(decoded(pair), std::string());
    } else {
      parameters.emplace_back(decoded(pair.substr(0, equals)), decoded(pair.substr(equals + 1)));
    }
  }
  return parameters;
}

std::string parameter(const Parameters& parameters, std::string_view name) {
  for (const auto& [n, value] : parameters) {
    if (n == name) return value;
  }
  return {};
}

std::vector<std::string> option_words(const std::vector<lua::AcceptedOption>& accepted, const Parameters& parameters,
                                      const std::set<std::string, std::less<>>& taken, const ServedLists& lists) {
  std::vector<std::string> words;
  for (const auto& [name, value] : parameters) {
    if (taken.contains(name)) continue;
    for (const std::string_view refused : kRefused) {
      if (name == refused) {
        throw ApiRefusal{400, fmt::format("parameter '{}' is refused: heapql serve sets how traces are read, what "
                                          "a request may spend and where answers go (docs/serve.md)",
                                          name)};
      }
    }
    const lua::AcceptedOption* option =
        name.empty() || name[0] == '-' ? nullptr : find_option(accepted, "--" + name);
    if (option == nullptr) throw ApiRefusal{400, fmt::format("unknown parameter '{}'", name)};
    if (!option->takes_value) {
      if (!value.empty() && value != "1" && value != "true") {
        throw ApiRefusal{400, fmt::format("parameter '{}' is a flag: give it no value, 1 or true (got '{}')", name,
                                          value)};
      }
      words.push_back(option->name);
      continue;
    }
    std::string given = value;
    if (name == "cull-list" || name == "suppressions") {
      const std::optional<std::string> file =
          name == "cull-list" ? lists.cull_list(value) : lists.suppression_list(value);
      if (!file) {
        throw ApiRefusal{400, fmt::format("{} '{}': not a served list (served: {}); a request names lists, not files",
                                          name, value, lists.names_of(name == "cull-list"))};
      }
      given = *file;
    }
    words.push_back(option->name + "=" + given);
  }
  return words;
}

}  // namespace heapql::cli
