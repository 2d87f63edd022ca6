#include "engine/platform/process_id.h"

#ifdef _WIN32
#include <process.h>
#else
#include <unistd.h>
#endif

namespace heapql {

#ifdef _WIN32
int current_process_id() { return ::_getpid(); }
#else
int current_process_id() { return static_cast<int>(::getpid()); }
#endif

}  // namespace heapql
