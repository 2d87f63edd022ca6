#include "engine/warnings.h"

#include <cstdio>

namespace heapql {

void emit_warning(std::string* collected, std::string_view line) {
  if (collected != nullptr) {
    collected->append(line);
    return;
  }
  std::fputs(("heapql: warning: " + std::string(line)).c_str(), stderr);
}

}  // namespace heapql
