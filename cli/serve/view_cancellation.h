// A view answers its latest request only (docs/serve.md, "Cancelling"): a
// request with `view=NAME` supersedes the one still running for the same
// (token, view), whose worker is then killed and which answers 409. The page
// sends a view per panel, so a new brush cancels the answer no longer wanted.
#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

namespace heapql::cli {

class ViewCancellation {
 public:
  using Ticket = std::shared_ptr<std::atomic<bool>>;  // true: superseded

  // The ticket of a new request of `view` (empty: none, never cancelled);
  // the ticket (token, view) held before is set cancelled.
  Ticket begin(const std::string& token, const std::string& view);
  // The request of `ticket` is answered: (token, view) forgets it, unless a
  // newer request holds it already.
  void end(const std::string& token, const std::string& view, const Ticket& ticket);

 private:
  std::mutex mutex_;
  std::map<std::pair<std::string, std::string>, Ticket> latest_;
};

}  // namespace heapql::cli
