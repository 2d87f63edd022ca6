// Robustness of the heaptrack reader against malformed, truncated and hostile
// input: mutations of a generated, well-formed interpreted trace (byte flips,
// lost, repeated and swapped lines, garbage lines, cuts), plain and zstd.
// Every read either succeeds or throws heapql::Error naming the file - never
// a crash, another exception type or a sanitizer report - and the one-shot
// query (bucket events in runs), the query that follows blocks one by one and
// the store's replay give the same answer, or the same error.
// Seeded, so a failure reproduces; sized for a few seconds under ASan+UBSan.
#include <gtest/gtest.h>

#include <fmt/format.h>

#include <optional>
#include <random>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/ingest/open_trace.h"
#include "engine/query/aggregator.h"
#include "engine/report/reports.h"
#include "engine/store/trace_store.h"
#include "tests/support/test_support.h"

namespace heapql::test {
namespace {

// A well-formed format-3 trace: strings, instruction pointers with inlined
// frames, trace chains, allocation infos, and allocations and frees (each
// free pairs with a live block of its allocation info) over clock lines.
std::string generate_trace(std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::string text = "v 10400 3\nX 9 ./fuzz -x\nI 1000 4000\n";
  const std::vector<std::string> names = {"/usr/lib/libc.so.6", "malloc", "./fuzz", "main", "Parse", "Load", "f.c"};
  for (const std::string& name : names) text += fmt::format("s {:x} {}\n", name.size(), name);
  const int ips = 12;
  for (int i = 0; i < ips; ++i) {
    text += fmt::format("i {:x} {:x}", 0x1000 + 0x40 * i, i % 3 == 0 ? 1 : 3);
    if (i % 4 != 3) text += fmt::format(" {:x} 7 {:x}", 2 + i % 5, 10 + i);
    if (i % 5 == 1) text += " 5 7 2";  // an inlined frame
    text += '\n';
  }
  int traces = 0;
  int infos = 0;
  std::vector<int> live_per_info;
  std::int64_t ms = 0;
  for (int step = 0; step < 900; ++step) {
    const unsigned r = rng() % 100;
    if (r < 6 || infos == 0) {
      // A chain of new trace nodes, then an allocation info on its leaf.
      const int depth = 1 + static_cast<int>(rng() % 4);
      int parent = traces == 0 ? 0 : static_cast<int>(rng() % (traces + 1));
      for (int d = 0; d < depth; ++d) {
        text += fmt::format("t {:x} {:x}\n", 1 + rng() % ips, parent);
        parent = ++traces;
      }
      text += fmt::format("a {:x} {:x}\n", 8 * (1 + rng() % 64), parent);
      ++infos;
      live_per_info.push_back(0);
    } else if (r < 12) {
      ms += 1 + rng() % 20;
      text += fmt::format("c {:x}\n", ms);
    } else if (r < 14) {
      text += fmt::format("R {:x}\n", 100 + rng() % 50);
    } else {
      const auto info = static_cast<std::size_t>(rng() % infos);
      if (live_per_info[info] > 0 && rng() % 2 == 0) {
        text += fmt::format("- {:x}\n", info);
        --live_per_info[info];
      } else {
        text += fmt::format("+ {:x}\n", info);
        ++live_per_info[info];
      }
    }
  }
  text += fmt::format("c {:x}\n\n# strings: {}\n# ips: {}\n", ms + 5, names.size(), ips);
  return text;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string text;
  for (const std::string& line : lines) text += line + '\n';
  return text;
}

std::string mutate(const std::string& text, std::mt19937& rng, std::string& what) {
  std::vector<std::string> lines = lines_of(text);
  const auto any_line = [&] { return static_cast<std::size_t>(rng() % lines.size()); };
  switch (rng() % 8) {
    case 0: {
      std::string out = text;
      const std::size_t at = rng() % out.size();
      out[at] = static_cast<char>(rng() % 256);
      what = fmt::format("byte {} set", at);
      return out;
    }
    case 1: {
      const std::size_t at = any_line();
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at));
      what = fmt::format("line {} dropped", at + 1);
      break;
    }
    case 2: {
      const std::size_t at = any_line();
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), lines[at]);
      what = fmt::format("line {} repeated", at + 1);
      break;
    }
    case 3: {
      const std::size_t a = any_line(), b = any_line();
      std::swap(lines[a], lines[b]);
      what = fmt::format("lines {} and {} swapped", a + 1, b + 1);
      break;
    }
    case 4: {
      static const std::vector<std::string> garbage = {
          "+ ffffffff", "- 1fffffff", "+ 123456789", "t 0 0", "a 10 ffffffff", "+", "- ", "+  1", "c -1",
          "c ffffffffffffffff", "i 10 ff", "s 99 short", "v 10400 3", "X again", std::string(3000, 'x'),
          "+ 1\r", "a 1 0 0", "t 1", "q 1 2", "\x01\x02"};
      const std::size_t at = any_line();
      const std::string& line = garbage[rng() % garbage.size()];
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), line);
      what = fmt::format("garbage line before line {}", at + 1);
      break;
    }
    case 5: {
      // A hex digit of an event line replaced.
      const std::size_t at = any_line();
      std::string& line = lines[at];
      if (line.size() > 2) line[2 + rng() % (line.size() - 2)] = "0f9aG z"[rng() % 7];
      what = fmt::format("line {} edited", at + 1);
      break;
    }
    case 6: {
      const std::size_t at = rng() % text.size();
      what = fmt::format("cut at byte {}", at);
      return text.substr(0, at);
    }
    default: {
      // A run of events moved after a clock line.
      const std::size_t at = any_line();
      const std::size_t to = any_line();
      const std::string line = lines[at];
      lines.erase(lines.begin() + static_cast<std::ptrdiff_t>(at));
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(std::min(to, lines.size())), line);
      what = fmt::format("line {} moved to {}", at + 1, to + 1);
      break;
    }
  }
  return joined(lines);
}

OpenOptions quiet(std::string& warnings) {
  OpenOptions options;
  options.show_progress = false;
  options.use_raw_twin = false;
  options.warnings = &warnings;
  return options;
}

// A read's outcome: the query's JSON, or the message of a heapql::Error
// (which must name the file).
struct Outcome {
  std::optional<std::string> json;
  std::string error;
  friend bool operator==(const Outcome&, const Outcome&) = default;
};

Outcome answer(const std::string& path, const Query& query, bool via_store, const std::string& what) {
  std::string warnings;
  try {
    if (via_store) {
      const auto store = load_trace(path, quiet(warnings));
      Aggregator aggregator(store->tables(), query);
      store->replay(aggregator);
      return {result_json(aggregator.result(store->source()), store->source()), {}};
    }
    TraceTables tables;
    Aggregator aggregator(tables, query);
    const SourceInfo source = read_trace(path, tables, aggregator, quiet(warnings));
    return {result_json(aggregator.result(source), source), {}};
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << what << ": the error does not name the file: "
                                                                  << e.what();
    return {std::nullopt, e.what()};
  } catch (const std::exception& e) {
    ADD_FAILURE() << what << ": not a heapql::Error: " << e.what();
    return {std::nullopt, e.what()};
  }
}

Query by_stack(bool follow_blocks) {
  Query q;
  q.by = {GroupBy::kStack};
  q.default_cull = false;
  // A lifetime filter that keeps every block makes the aggregator follow
  // blocks one by one instead of counting bucket events.
  if (follow_blocks) q.lifetime_min_ns = 0;
  return q;
}

TEST(HeaptrackReaderFuzz, TheGeneratedTraceReadsTheSameEveryWay) {
  TempDir dir;
  const std::string path = dir.file("t.txt");
  write_file(path, generate_trace(1));
  const Outcome runs = answer(path, by_stack(false), false, "pristine");
  ASSERT_TRUE(runs.json.has_value()) << runs.error;
  EXPECT_NE(runs.json->find("\"stc\""), std::string::npos);
  EXPECT_EQ(runs, answer(path, by_stack(false), true, "pristine"));
  EXPECT_EQ(runs, answer(path, by_stack(true), false, "pristine"));
}

TEST(HeaptrackReaderFuzz, MutatedTracesReadOrFailCleanly) {
  TempDir dir;
  std::mt19937 rng(20261123);
  int read_ok = 0, failed = 0;
  for (int round = 0; round < 160; ++round) {
    const std::string base = generate_trace(static_cast<std::uint32_t>(round % 8));
    std::string what;
    const std::string text = mutate(base, rng, what);
    const bool compressed = round % 4 == 3;
    const std::string path = dir.file(fmt::format("m{}.{}", round, compressed ? "zst" : "txt"));
    if (compressed) {
      write_zstd(path, text);
    } else {
      write_file(path, text);
    }
    SCOPED_TRACE(fmt::format("round {}: {}", round, what));
    // The same answer, or the same error at the same line, however the
    // events are consumed: in runs, replayed from the store, block by block.
    const Outcome runs = answer(path, by_stack(false), false, what);
    EXPECT_EQ(runs, answer(path, by_stack(false), true, what)) << "runs and store replay differ";
    EXPECT_EQ(runs, answer(path, by_stack(true), false, what)) << "runs and blocks one by one differ";
    ++(runs.json ? read_ok : failed);
  }
  // The mutations must exercise both outcomes, or this test checks little.
  EXPECT_GT(read_ok, 10);
  EXPECT_GT(failed, 10);
}

TEST(HeaptrackReaderFuzz, CutCompressedStreamsFailCleanly) {
  TempDir dir;
  const std::string whole = dir.file("whole.zst");
  write_zstd(whole, generate_trace(3));
  const std::string bytes = read_file(whole);
  for (std::size_t cut = 1; cut < bytes.size(); cut += 1 + bytes.size() / 40) {
    const std::string path = dir.file(fmt::format("cut{}.zst", cut));
    write_file(path, bytes.substr(0, cut));
    EXPECT_FALSE(answer(path, by_stack(false), false, fmt::format("cut at {}", cut)).json.has_value()) << cut;
  }
}

}  // namespace
}  // namespace heapql::test
