// Writes a SYNTHETIC ETW heap + VirtualAlloc trace of the MemoryTestApp
// scenario (tests/support/etw_scenarios.h): what a WPR heap trace of such a
// program would hold, laid out from the format notes, not recorded on Windows.
#include <cstdio>
#include <exception>

#include "tests/support/etw_scenarios.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: write_synthetic_etl OUTPUT.etl\n");
    return 2;
  }
  try {
    heapql::test::EtlWriterOptions options;
    options.compress = true;  // as WPR and xperf -merge write them
    const auto trace = heapql::test::write_memory_test_app(argv[1], options);
    std::printf("wrote %s: SYNTHETIC trace of %s (pid %u), %zu heap blocks, %zu VirtualAlloc commits\n", argv[1],
                trace.process_name.c_str(), trace.pid, trace.heap_blocks.size(), trace.commits.size());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_synthetic_etl: %s\n", e.what());
    return 1;
  }
}
