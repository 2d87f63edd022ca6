#include "engine/warnings.h"

#include <atomic>
#include <cstdio>

namespace heapql {

namespace {
std::atomic<StderrMeter> g_meter{nullptr};
}  // namespace

void set_stderr_meter(StderrMeter meter) { g_meter.store(meter); }

void emit_warning(std::string* collected, std::string_view line) {
  if (collected != nullptr) {
    collected->append(line);
    return;
  }
  const std::string text = "heapql: warning: " + std::string(line);
  if (const StderrMeter meter = g_meter.load()) meter(text.size());
  std::fputs(text.c_str(), stderr);
}

}  // namespace heapql
