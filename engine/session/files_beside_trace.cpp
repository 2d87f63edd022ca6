// The files a read of a trace may use beside it (files_beside_trace.h).
#include "engine/session/files_beside_trace.h"

#include "engine/ingest/heaptrack_reader.h"
#include "engine/session/live_journal.h"
#include "engine/session/trace_store_location.h"

namespace heapql {

std::vector<std::string> files_beside_trace(const std::string& trace_path) {
  std::vector<std::string> names = heaptrack_side_file_names(trace_path);
  names.push_back(store_beside(trace_path));
  names.push_back(live_journal_beside(trace_path));
  return names;
}

bool read_only_with_a_file_beside(const std::string& trace_path) { return is_heaptrack_raw_file_name(trace_path); }

}  // namespace heapql
