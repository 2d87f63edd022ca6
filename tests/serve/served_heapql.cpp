#include "tests/serve/served_heapql.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <regex>

#include "tests/support/test_support.h"

namespace heapql::test {

namespace {

// The first line on `fd`, waiting at most `seconds`; empty when none came.
std::string first_line(int fd, int seconds) {
  std::string line;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;
    char c;
    if (::read(fd, &c, 1) != 1) break;
    if (c == '\n') return line;
    line += c;
  }
  return {};
}

}  // namespace

ServedHeapql::ServedHeapql(const std::vector<std::string>& arguments, const std::string& folder) {
  int out[2];
  if (::pipe(out) != 0) {
    ADD_FAILURE() << "pipe";
    return;
  }
  std::vector<std::string> words = {"serve"};
  words.insert(words.end(), arguments.begin(), arguments.end());
  pid_ = ::fork();
  if (pid_ == 0) {
    ::dup2(out[1], STDOUT_FILENO);
    ::close(out[0]);
    ::close(out[1]);
    if (!folder.empty() && ::chdir(folder.c_str()) != 0) ::_exit(127);
    exec_heapql(words);
  }
  ::close(out[1]);
  url_line_ = first_line(out[0], 120);
  ::close(out[0]);  // the server writes nothing more on stdout
  static const std::regex kUrl(R"(heapql serve: http://[^/]+:(\d+)/\?token=([0-9a-f]{32}))");
  std::smatch match;
  if (!std::regex_match(url_line_, match, kUrl)) {
    ADD_FAILURE() << "no URL line from heapql serve (got '" << url_line_ << "')";
    return;
  }
  port_ = std::stoi(match[1]);
  token_ = match[2];
}

ServedHeapql::~ServedHeapql() {
  if (pid_ > 0) stop();
}

int ServedHeapql::stop() {
  if (!stopped_) {
    ::kill(pid_, SIGTERM);
    ::waitpid(pid_, &status_, 0);
    stopped_ = true;
  }
  return status_;
}

httplib::Result ServedHeapql::get(const std::string& target, bool with_token, const httplib::Headers& headers) const {
  httplib::Client client("127.0.0.1", port_);
  client.set_read_timeout(std::chrono::seconds(120));
  std::string full = target;
  if (with_token) full += (target.find('?') == std::string::npos ? "?" : "&") + std::string("token=") + token_;
  return client.Get(full.c_str(), headers);
}

std::string url_encoded(const std::string& text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (const unsigned char c : text) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string query_string(const std::vector<std::pair<std::string, std::string>>& parameters) {
  std::string query;
  for (const auto& [name, value] : parameters) {
    query += (query.empty() ? "?" : "&") + url_encoded(name) + "=" + url_encoded(value);
  }
  return query;
}

}  // namespace heapql::test
