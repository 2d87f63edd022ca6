#include "cli/serve/request_guard.h"

#include <fmt/format.h>
#include <httplib.h>

#include <string_view>

#include "cli/serve/server_token.h"

namespace heapql::cli {

namespace {

// The value of cookie `name` in a Cookie header ("a=1; b=2"), or empty.
std::string cookie(std::string_view header, std::string_view name) {
  while (!header.empty()) {
    const std::size_t semicolon = header.find(';');
    std::string_view pair = header.substr(0, semicolon);
    header = semicolon == std::string_view::npos ? std::string_view() : header.substr(semicolon + 1);
    while (!pair.empty() && pair.front() == ' ') pair.remove_prefix(1);
    const std::size_t equals = pair.find('=');
    if (equals != std::string_view::npos && pair.substr(0, equals) == name) return std::string(pair.substr(equals + 1));
  }
  return {};
}

}  // namespace

RequestGuard::RequestGuard(std::string token, std::string bind, int port)
    : token_(std::move(token)), bind_(std::move(bind)), port_(port) {}

std::string RequestGuard::token_of(const httplib::Request& request, const Parameters& parameters) {
  for (const auto& [name, value] : parameters) {
    if (name == "token") return value;
  }
  if (request.has_header("X-Heapql-Token")) return request.get_header_value("X-Heapql-Token");
  return cookie(request.get_header_value("Cookie"), "heapql_token");
}

std::optional<ApiRefusal> RequestGuard::check(const httplib::Request& request, const Parameters& parameters) const {
  const std::string host = request.get_header_value("Host");
  const std::string port = fmt::format(":{}", port_);
  bool host_known = false;
  for (const std::string& name : {std::string("127.0.0.1"), std::string("localhost"), std::string("[::1]"), bind_}) {
    if (host == name + port) host_known = true;
  }
  if (!host_known || request.get_header_value_count("Host") != 1) {
    return ApiRefusal{403, "forbidden: the Host header does not name this server"};
  }
  if (!same_token(token_of(request, parameters), token_)) {
    return ApiRefusal{403, "forbidden: a token is needed (open the URL heapql serve printed)"};
  }
  if (request.method != "GET" && request.method != "HEAD") return ApiRefusal{405, "only GET and HEAD are served"};
  // Checked before any body is read: a body is announced by its headers.
  const bool has_body = !request.body.empty() || request.has_header("Transfer-Encoding") ||
                        (request.has_header("Content-Length") && request.get_header_value("Content-Length") != "0");
  if (has_body) {
    return ApiRefusal{400, "a request has no body"};
  }
  if (parameters.size() > kMostParameters) {
    return ApiRefusal{400, fmt::format("more than {} parameters", kMostParameters)};
  }
  for (const auto& [name, value] : parameters) {
    if (name.size() > kMostParameterBytes || value.size() > kMostParameterBytes) {
      return ApiRefusal{400, fmt::format("parameter '{}' is longer than {} bytes", name.substr(0, 64),
                                         kMostParameterBytes)};
    }
  }
  return std::nullopt;
}

}  // namespace heapql::cli
