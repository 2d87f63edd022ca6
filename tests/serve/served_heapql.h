// `heapql serve` run by a test: the built binary started as a child process
// whose first stdout line (the URL) is read, then spoken to over loopback
// with cpp-httplib's client; SIGTERM ends it.
#pragma once

#include <httplib.h>
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace heapql::test {

class ServedHeapql {
 public:
  // `heapql serve ARGUMENTS` (run in `folder` when given); fails the test
  // (ADD_FAILURE) when no URL line comes.
  explicit ServedHeapql(const std::vector<std::string>& arguments, const std::string& folder = "");
  ~ServedHeapql();
  ServedHeapql(const ServedHeapql&) = delete;
  ServedHeapql& operator=(const ServedHeapql&) = delete;

  bool started() const { return port_ > 0; }
  const std::string& url_line() const { return url_line_; }
  int port() const { return port_; }
  const std::string& token() const { return token_; }
  pid_t pid() const { return pid_; }

  // GET `target` (path?query, already encoded); `with_token` adds token=.
  httplib::Result get(const std::string& target, bool with_token = true, const httplib::Headers& headers = {}) const;
  // SIGTERM, then its exit status (as waitpid's), once.
  int stop();

 private:
  pid_t pid_ = -1;
  std::string url_line_;
  int port_ = 0;
  std::string token_;
  bool stopped_ = false;
  int status_ = 0;
};

// `text` percent-encoded for a query string.
std::string url_encoded(const std::string& text);
// "?a=1&b=2" made from pairs, encoded.
std::string query_string(const std::vector<std::pair<std::string, std::string>>& parameters);

}  // namespace heapql::test
