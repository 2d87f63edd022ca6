// Streams a synthetic heaptrack trace (text, file format 3) of N allocations
// to stdout, for the scale run (bench/scale/run-scale.sh pipes it through
// zstd). Deterministic: the same arguments give the same bytes.
//
//   generate_trace ALLOCATIONS [STACKS] [LIVE]   (run-scale.sh compiles it)
//
// STACKS distinct allocating stacks (default 100000), each 8 frames deep in
// a tree under one main; sizes from a small set, so buckets are STACKS x 8
// at most. At most LIVE blocks (default 1000000) are alive at once: once
// there, every allocation is followed by the free of an earlier block (a
// bucket's most recent, as heaptrack's text pairs them), and 1 in 100 blocks
// is never freed. A timestamp line every 4096 events, 1 ms apart.
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

class Output {
 public:
  ~Output() { flush(); }
  void text(std::string_view s) {
    if (used_ + s.size() > sizeof buffer_) flush();
    for (char c : s) buffer_[used_++] = c;
  }
  void hex(std::uint64_t v) {
    if (used_ + 17 > sizeof buffer_) flush();
    used_ = static_cast<std::size_t>(std::to_chars(buffer_ + used_, buffer_ + sizeof buffer_, v, 16).ptr - buffer_);
  }
  void line(char kind, std::uint64_t v) {
    if (used_ + 20 > sizeof buffer_) flush();
    buffer_[used_++] = kind;
    buffer_[used_++] = ' ';
    hex(v);
    buffer_[used_++] = '\n';
  }
  void flush() {
    if (used_ > 0 && std::fwrite(buffer_, 1, used_, stdout) != used_) std::exit(1);
    used_ = 0;
  }

 private:
  char buffer_[1 << 20];
  std::size_t used_ = 0;
};

std::uint64_t next(std::uint64_t& state) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return state;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fputs("usage: generate_trace ALLOCATIONS [STACKS] [LIVE]\n", stderr);
    return 2;
  }
  const std::uint64_t allocations = std::strtoull(argv[1], nullptr, 10);
  const std::uint64_t stacks = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 100000;
  const std::uint64_t max_live = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1000000;
  constexpr std::uint64_t kDepth = 8;
  constexpr std::uint64_t kSizes[] = {16, 24, 32, 48, 64, 128, 512, 4096};
  Output out;
  out.text("v 10400 3\nX ./scale-generator\nI 1000 400000\n");
  // Strings: 1 = the module, 2.. = function names f<N>.
  out.text("s 11 ./scale-generator\n");  // lengths are hex
  std::uint64_t next_string = 2, next_ip = 1, next_trace = 1, next_info = 0;
  auto frame = [&](std::uint64_t n) {  // a function string and an instruction pointer for it
    const std::string name = "f" + std::to_string(n);
    out.text("s ");
    out.hex(name.size());
    out.text(" ");
    out.text(name);
    out.text("\ni ");
    out.hex(0x400000 + n * 16);
    out.text(" 1 ");
    out.hex(next_string++);
    out.text("\n");
    return next_ip++;
  };
  // main, then a tree: stack s's frames are main > a(s/4096) > ... so stacks share callers.
  const std::uint64_t main_ip = frame(0);
  out.text("t ");
  out.hex(main_ip);
  out.text(" 0\n");
  const std::uint64_t main_trace = next_trace++;
  std::vector<std::uint64_t> infos;  // per stack x size: the allocation info index
  infos.reserve(stacks * 8);
  std::uint64_t function = 1;
  for (std::uint64_t s = 0; s < stacks; ++s) {
    std::uint64_t parent = main_trace;
    for (std::uint64_t level = 0; level < kDepth; ++level) {
      const std::uint64_t ip = frame(function++);
      out.text("t ");
      out.hex(ip);
      out.text(" ");
      out.hex(parent);
      out.text("\n");
      parent = next_trace++;
    }
    for (std::uint64_t size : kSizes) {
      out.text("a ");
      out.hex(size);
      out.text(" ");
      out.hex(parent);
      out.text("\n");
      infos.push_back(next_info++);
    }
  }
  // Events: live blocks as (info) in a ring; frees take a random earlier one.
  std::vector<std::uint32_t> live;
  live.reserve(max_live);
  std::uint64_t rng = 0x9E3779B97F4A7C15ull, events = 0, ms = 0;
  auto tick = [&] {
    if (++events % 4096 == 0) out.line('c', ++ms);
  };
  for (std::uint64_t i = 0; i < allocations; ++i) {
    const std::uint64_t r = next(rng);
    const std::uint32_t info = static_cast<std::uint32_t>(infos[(r >> 8) % infos.size()]);
    out.line('+', info);
    tick();
    if ((r & 0xFF) < 3) continue;  // about 1 in 100 never freed
    if (live.size() < max_live) {
      live.push_back(info);
      continue;
    }
    const std::size_t victim = static_cast<std::size_t>(next(rng) % live.size());
    out.line('-', live[victim]);
    tick();
    live[victim] = info;
  }
  for (std::uint32_t info : live) {  // the end: all but the leaks are freed
    out.line('-', info);
    tick();
  }
  // heaptrack_interpret's closing lines (decimal): without them a reader
  // takes the trace for one cut short.
  out.text("\n# strings: " + std::to_string(next_string - 1) + "\n# ips: " + std::to_string(next_ip - 1) + "\n");
  return 0;
}
