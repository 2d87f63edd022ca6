#include "cli/serve/view_cancellation.h"

namespace heapql::cli {

ViewCancellation::Ticket ViewCancellation::begin(const std::string& token, const std::string& view) {
  auto ticket = std::make_shared<std::atomic<bool>>(false);
  if (view.empty()) return ticket;
  const std::lock_guard lock(mutex_);
  Ticket& latest = latest_[{token, view}];
  if (latest) latest->store(true);
  latest = ticket;
  return ticket;
}

void ViewCancellation::end(const std::string& token, const std::string& view, const Ticket& ticket) {
  if (view.empty()) return;
  const std::lock_guard lock(mutex_);
  const auto found = latest_.find({token, view});
  if (found != latest_.end() && found->second == ticket) latest_.erase(found);
}

}  // namespace heapql::cli
