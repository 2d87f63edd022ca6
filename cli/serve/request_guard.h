// The checks every request passes before anything else (docs/serve.md,
// "Security"), in this order: its Host header names this server (403:
// against DNS rebinding), it carries the token (403), it is a GET or HEAD
// (405), it has no body, at most 256 parameters and none over 4 KiB (400).
// The request line and headers are bounded by cpp-httplib (URI 8 KiB).
#pragma once

#include <optional>
#include <string>

#include "cli/serve/api_parameters.h"

namespace httplib {
struct Request;
}

namespace heapql::cli {

inline constexpr std::size_t kMostParameters = 256;
inline constexpr std::size_t kMostParameterBytes = 4096;

class RequestGuard {
 public:
  // `bind`: the address listened on; `port`: the port it got.
  RequestGuard(std::string token, std::string bind, int port);

  // The refusal of `request` (its `parameters` parsed from its target), or
  // none when it may go on.
  std::optional<ApiRefusal> check(const httplib::Request& request, const Parameters& parameters) const;

  // The token `request` carries: its `token` parameter, else its
  // X-Heapql-Token header, else its heapql_token cookie; empty if none.
  static std::string token_of(const httplib::Request& request, const Parameters& parameters);

  const std::string& token() const { return token_; }

 private:
  std::string token_;
  std::string bind_;
  int port_;
};

}  // namespace heapql::cli
