// The served page's queries, timed in-process: a store opened once through
// TraceSession (as `heapql serve` opens it), then many answers from it,
// each timed alone (docs/serve-speed.md says what this measures and the
// numbers). Prints a table: per kind of query, its median, p95 and worst.
//
//   heapql_session_bench STORE [--windows N] [--seed S] [--rounds R] [--replay 1] [--check 1]
//
// The session is prepared for many queries (its window index) as the
// server prepares it; `--replay 1` leaves that out (windows replay the
// store, as before the index).
// `--check 1` also answers every query from a second session of the store,
// not prepared (so replaying, as before the window index), and compares the
// two answers' JSON byte for byte; it exits 1 if any differs.
//
// Windows are random (fixed seed): a start and a width, both uniform over
// the trace's length, each `--by stack --top 50 --series 400` as the page's
// brush asks. Regroups are of the whole trace, `--top 50`, R rounds each.
#include <algorithm>
#include <optional>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <sys/resource.h>
#include <string>
#include <vector>

#include "engine/query/query_plan.h"
#include "engine/report/reports.h"
#include "engine/session/trace_session.h"

using namespace heapql;

namespace {

double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

// With --check: the unprepared session that answers each query again.
const TraceSession* g_reference = nullptr;
std::size_t g_checked = 0, g_differ = 0;

// The process's CPU time (every thread's), in ms: on a shared machine the
// wall time also counts the waits for a core; the table shows both.
double cpu_ms() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1e3 +
         static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e3;
}
std::vector<double>* g_cpu = nullptr;  // where answer_ms puts each query's CPU time

double answer_ms(const TraceSession& session, const Query& query) {
  const double cpu_start = cpu_ms();
  const auto start = std::chrono::steady_clock::now();
  const Answer answer = session.answer(query, compile_stack_filters(query));
  const double ms = ms_since(start);
  if (g_cpu != nullptr) g_cpu->push_back(cpu_ms() - cpu_start);
  if (g_reference != nullptr) {
    const Answer reference = g_reference->answer(query, compile_stack_filters(query));
    ++g_checked;
    if (result_json(answer.result, answer.source) != result_json(reference.result, reference.source)) {
      ++g_differ;
      std::printf("DIFFERS: window %lld..%lld\n", static_cast<long long>(query.window.begin_ns),
                  static_cast<long long>(query.window.end_ns.value_or(-1)));
    }
  }
  return ms;
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  const auto at = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(at, v.size() - 1)];
}

void print_row(const std::string& what, const std::vector<double>& ms, const std::vector<double>& cpu) {
  std::printf("%-34s %5zu %9.1f %9.1f %9.1f %9.1f %9.1f\n", what.c_str(), ms.size(), percentile(ms, 0.5),
              percentile(ms, 0.95), *std::max_element(ms.begin(), ms.end()), percentile(cpu, 0.5),
              percentile(cpu, 0.95));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: heapql_session_bench STORE [--windows N] [--seed S] [--rounds R] [--replay 1] [--check 1]\n");
    return 2;
  }
  std::size_t windows = 40, rounds = 5;
  unsigned seed = 48;
  bool prepare = true, check = false;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string option = argv[i];
    const unsigned long value = std::strtoul(argv[i + 1], nullptr, 10);
    if (option == "--windows") windows = value;
    else if (option == "--seed") seed = static_cast<unsigned>(value);
    else if (option == "--rounds") rounds = value;
    else if (option == "--replay") prepare = value == 0;
    else if (option == "--check") check = value != 0;
    else {
      std::fprintf(stderr, "unknown option %s\n", option.c_str());
      return 2;
    }
  }
  TraceSession session(argv[1], OpenOptions{});
  const auto open_start = std::chrono::steady_clock::now();
  session.open();
  std::printf("open: %.1f ms\n", ms_since(open_start));
  if (prepare) {
    const auto prepare_start = std::chrono::steady_clock::now();
    session.prepare_for_many_queries();
    std::printf("prepare_for_many_queries: %.1f ms (window index: %s)\n", ms_since(prepare_start),
                session.window_index() ? "built" : "none");
  }
  const std::int64_t end_ns = session.store()->columns().end_ns;
  TraceSession reference(argv[1], OpenOptions{});
  if (check) {
    reference.open();
    g_reference = &reference;
  }

  std::printf("%-34s %5s %9s %9s %9s %9s %9s\n", "query (ms)", "n", "median", "p95", "max", "cpu med", "cpu p95");
  // The first answer checks the store's sections (once per session): apart.
  {
    Query first;
    first.by = {GroupBy::kStack};
    first.window.begin_ns = end_ns / 2;
    first.window.end_ns = end_ns / 2 + 1;
    std::vector<double> cpu;
    g_cpu = &cpu;
    const double ms = answer_ms(session, first);
    print_row("first answer (checks sections)", {ms}, cpu);
  }
  std::mt19937_64 random(seed);
  std::vector<double> all, narrow, wide, all_cpu, narrow_cpu, wide_cpu;
  for (std::size_t k = 0; k < windows; ++k) {
    const std::int64_t begin = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(end_ns + 1));
    const std::int64_t width = static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(end_ns + 1));
    Query q;
    q.by = {GroupBy::kStack};
    q.top = 50;
    q.series_buckets = 400;
    q.window.begin_ns = begin;
    q.window.end_ns = begin + width;
    std::vector<double> cpu;
    g_cpu = &cpu;
    const double ms = answer_ms(session, q);
    all.push_back(ms);
    all_cpu.push_back(cpu.back());
    (width < end_ns / 10 ? narrow : wide).push_back(ms);
    (width < end_ns / 10 ? narrow_cpu : wide_cpu).push_back(cpu.back());
  }
  print_row("window --by stack (random)", all, all_cpu);
  if (!narrow.empty()) print_row("  of them < 1/10 of the trace", narrow, narrow_cpu);
  if (!wide.empty()) print_row("  of them >= 1/10 of the trace", wide, wide_cpu);
  const struct {
    const char* name;
    GroupBy by;
  } regroups[] = {{"stack", GroupBy::kStack},     {"frame", GroupBy::kFrame}, {"image", GroupBy::kImage},
                  {"process", GroupBy::kProcess}, {"heap", GroupBy::kHeap},   {"thread", GroupBy::kThread}};
  for (const auto& regroup : regroups) {
    std::vector<double> ms, cpu;
    g_cpu = &cpu;
    for (std::size_t r = 0; r < rounds; ++r) {
      Query q;
      q.by = {regroup.by};
      q.top = 50;
      ms.push_back(answer_ms(session, q));
    }
    print_row(std::string("whole trace --by ") + regroup.name, ms, cpu);
  }
  if (check) {
    // Windows the random ones may miss: open ends, empty, past the end,
    // nested groupings, other sorts, the whole trace with a series.
    const std::int64_t s = 1'000'000'000;
    std::vector<Query> more;
    const auto window = [&](std::int64_t begin, std::optional<std::int64_t> end) {
      Query q;
      q.by = {GroupBy::kStack};
      q.top = 50;
      q.series_buckets = 400;
      q.window.begin_ns = begin;
      q.window.end_ns = end;
      more.push_back(q);
      return &more.back();
    };
    window(0, std::nullopt);
    window(5 * s, std::nullopt);
    window(0, 5 * s);
    window(2 * s, 2 * s);
    window(end_ns, end_ns + s);
    window(end_ns + s, end_ns + 2 * s);
    window(end_ns / 3, end_ns / 3 + s / 10)->sort = Measure::kSt;
    window(end_ns / 4, end_ns / 2)->sort = Measure::kStc;
    window(end_ns / 4, end_ns / 2)->by = {GroupBy::kProcess, GroupBy::kStack};
    window(end_ns / 4, end_ns / 2)->by = {GroupBy::kFrame};
    window(end_ns / 5, end_ns / 2)->by = {GroupBy::kImage};
    window(s, 9 * s)->by = {GroupBy::kThread, GroupBy::kFrame};
    window(s, 9 * s)->totals_only = true;
    window(s, 9 * s)->series_buckets = 0;
    g_cpu = nullptr;
    for (const Query& q : more) answer_ms(session, q);
    std::printf("checked %zu answers against an unprepared session: %zu differ\n", g_checked, g_differ);
    if (g_differ != 0) return 1;
  }
  return 0;
}
