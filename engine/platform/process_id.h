// This process's id, for unique temporary names.
#pragma once

namespace heapql {

int current_process_id();

}  // namespace heapql
