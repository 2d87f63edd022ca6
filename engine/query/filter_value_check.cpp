#include "engine/query/filter_value_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "engine/near_names.h"
#include "engine/query/id_or_name.h"

namespace heapql {

namespace {

constexpr std::size_t kMaxListed = 8;

// How the trace's processes or heaps are shown: "name (pid 12)".
struct Named {
  std::uint64_t id;
  std::string name;
  std::string shown;
};

// "did you mean 'a' (pid 1)?" for near names, else the ones there are.
std::string hint(const std::string& wanted, const std::vector<Named>& present, std::string_view what) {
  std::vector<std::string> names;
  for (const Named& n : present) names.push_back(n.name);
  const std::vector<std::string> near = near_names(wanted, names);
  std::vector<std::string> listed;
  for (const std::string& name : near.empty() ? names : near) {
    const auto it = std::find_if(present.begin(), present.end(), [&](const Named& n) { return n.name == name; });
    if (listed.size() < kMaxListed) listed.push_back(it->shown);
  }
  if (!near.empty()) return fmt::format("did you mean {}?", fmt::join(listed, " or "));
  if (present.empty()) return fmt::format("the trace has no {} names", what);
  const std::size_t more = present.size() - listed.size();
  return fmt::format("the trace's {}: {}{}", what, fmt::join(listed, ", "),
                     more == 0 ? "" : fmt::format(" and {} more", more));
}

void check(const std::vector<std::string>& wanted, const std::vector<Named>& present, std::string_view option,
           std::string_view what_one, std::string_view what_all, std::vector<std::string>& out) {
  for (const std::string& w : wanted) {
    const bool found = std::any_of(present.begin(), present.end(),
                                   [&](const Named& n) { return id_or_name_matches(w, n.id, n.name); });
    if (found) continue;
    out.push_back(fmt::format("{} '{}' names no {} of the trace, so it keeps nothing; {}", option, w, what_one,
                              hint(w, present, what_all)));
  }
}

}  // namespace

std::vector<std::string> unmatched_filter_values(const TraceTables& tables, const Query& query) {
  std::vector<std::string> out;
  if (!query.processes.empty()) {
    std::vector<Named> processes;
    for (std::size_t i = 0; i < tables.process_count(); ++i) {
      const Process& p = tables.process(ProcessId(static_cast<std::uint32_t>(i)));
      const std::string name(tables.string(p.name));
      processes.push_back({p.pid, name, fmt::format("'{}' (pid {})", name, p.pid)});
    }
    check(query.processes, processes, "--process", "process", "processes", out);
  }
  if (!query.heaps.empty()) {
    std::vector<Named> heaps;
    for (std::size_t i = 0; i < tables.heap_count(); ++i) {
      const Heap& h = tables.heap(HeapId(static_cast<std::uint32_t>(i)));
      const std::string name(tables.string(h.name));
      const bool seen =
          std::any_of(heaps.begin(), heaps.end(), [&](const Named& n) { return n.name == name && n.id == h.handle; });
      if (!seen) heaps.push_back({h.handle, name, fmt::format("'{}' (0x{:x})", name, h.handle)});
    }
    check(query.heaps, heaps, "--heap", "heap", "heaps", out);
  }
  if (!query.threads.empty()) {
    std::set<std::uint32_t> threads;
    for (std::size_t i = 0; i < tables.bucket_count(); ++i) {
      threads.insert(tables.bucket(BucketId(static_cast<std::uint32_t>(i))).thread);
    }
    for (const std::uint32_t wanted : query.threads) {
      if (threads.contains(wanted)) continue;
      std::vector<std::uint32_t> listed(threads.begin(), threads.end());
      const std::size_t more = listed.size() > kMaxListed ? listed.size() - kMaxListed : 0;
      listed.resize(listed.size() - more);
      out.push_back(fmt::format("--thread {} is no thread of the trace, so it keeps nothing; the trace's threads: {}{}",
                                wanted, fmt::join(listed, ", "), more == 0 ? "" : fmt::format(" and {} more", more)));
    }
  }
  return out;
}

}  // namespace heapql
