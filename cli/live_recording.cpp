// The streams of a recording while the program runs (live_recording.h).
#ifndef _WIN32
#include "cli/live_recording.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string_view>
#include <thread>

#include "cli/arguments.h"
#include "cli/child_process.h"
#include "engine/error.h"
#include "engine/ingest/zstd_file_writer.h"
#include "engine/platform/errno_text.h"
#include "engine/session/ingest_recording.h"

namespace heapql::cli {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

// zstd's own default, as heaptrack's script compresses (`zstd -c`).
constexpr int kZstdLevel = 3;
// NAME.zst (and NAME.raw.zst) are flushed to a readable prefix this often.
constexpr auto kFlushEvery = std::chrono::seconds(1);
constexpr int kPollMs = 250;
constexpr std::size_t kChunk = std::size_t{1} << 20;
// heaptrack's library writes the stream a few KiB at a time, and a reader
// that takes each piece as it comes makes hundreds of thousands of reads
// and hand-offs (walk: 7 KiB a read on average, and as many writes on to
// heaptrack_interpret), each waking another thread, which on a VM costs an
// interrupt. After a short read the pump and the copier let their pipe fill
// for a moment: the 1 MiB pipes hold more than arrives meanwhile, and a
// query of the recording sees the events a few milliseconds later.
void let_the_pipe_fill_after(ssize_t got) {
  constexpr std::size_t kShortRead = std::size_t{256} << 10;
  if (static_cast<std::size_t>(got) < kShortRead) std::this_thread::sleep_for(std::chrono::milliseconds(2));
}

// A pipe holds 64 KiB by default: the program's library, heaptrack_interpret
// and the pump then wake each other every 64 KiB, and on a VM each wake-up
// is costly. 1 MiB is the most an unprivileged process may ask by default
// (/proc/sys/fs/pipe-max-size); a refusal only costs speed.
void widen_pipe(int fd) {
#ifdef F_SETPIPE_SZ
  (void)::fcntl(fd, F_SETPIPE_SZ, 1 << 20);
#else
  (void)fd;
#endif
}

// False when the reader went away (or another error).
bool write_all(int fd, std::string_view text) {
  while (!text.empty()) {
    const ssize_t w = ::write(fd, text.data(), text.size());
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    text.remove_prefix(static_cast<std::size_t>(w));
  }
  return true;
}

}  // namespace

HeaptrackInstall find_heaptrack_install() {
  HeaptrackInstall install;
  if (const char* env = std::getenv("HEAPQL_HEAPTRACK_INTERPRET")) {
    install.interpreter = env;
  } else {
    for (const char* candidate : {"/usr/lib/heaptrack/libexec/heaptrack_interpret",
                                  "/usr/lib/x86_64-linux-gnu/heaptrack/libexec/heaptrack_interpret",
                                  "/usr/local/lib/heaptrack/libexec/heaptrack_interpret"}) {
      if (fs::exists(candidate)) {
        install.interpreter = candidate;
        break;
      }
    }
  }
  if (install.interpreter.empty()) {
    throw UsageError{"cannot find heaptrack_interpret (install Debian's heaptrack, or set HEAPQL_HEAPTRACK_INTERPRET)"};
  }
  // The libraries are where heaptrack's script finds them: beside libexec/.
  std::error_code ec;
  const fs::path libexec = fs::canonical(fs::path(install.interpreter).parent_path(), ec);
  const fs::path lib = ec ? fs::path("/usr/lib/heaptrack") : libexec.parent_path();
  install.preload = (lib / "libheaptrack_preload.so").string();
  install.inject = (lib / "libheaptrack_inject.so").string();
  install.env_checker = (lib / "libexec" / "heaptrack_env").string();
  return install;
}

LiveRecording::LiveRecording(std::string name, const HeaptrackInstall& install, bool keep_raw,
                             std::optional<uid_t> fifo_owner)
    : name_(std::move(name)),
      interpreted_path_(name_ + ".zst"),
      raw_path_(name_ + ".raw.zst"),
      install_(install),
      keep_raw_(keep_raw) {
  std::string folder = (fs::temp_directory_path() / "heapql-record.XXXXXX").string();
  if (::mkdtemp(folder.data()) == nullptr) {
    throw Error(SourceLocation::of_file(folder), "cannot create a folder for the FIFO: " + errno_text(errno));
  }
  folder_ = folder;
  fifo_ = folder_ + "/fifo";
  if (::mkfifo(fifo_.c_str(), 0600) != 0) {
    throw Error(SourceLocation::of_file(fifo_), "cannot create the FIFO: " + errno_text(errno));
  }
  // A process of another user (--pid) opens the FIFO to write it.
  if (fifo_owner && (::chown(folder_.c_str(), *fifo_owner, static_cast<gid_t>(-1)) != 0 ||
                     ::chown(fifo_.c_str(), *fifo_owner, static_cast<gid_t>(-1)) != 0)) {
    throw Error(SourceLocation::of_file(fifo_), "cannot give the FIFO to the process's user: " + errno_text(errno));
  }
  // Open before the program starts, without waiting for a writer.
  fifo_fd_ = ::open(fifo_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fifo_fd_ < 0) throw Error(SourceLocation::of_file(fifo_), "cannot open the FIFO: " + errno_text(errno));
  widen_pipe(fifo_fd_);
}

LiveRecording::~LiveRecording() {
  for (std::thread* t : {&pump_, &copier_, &reader_}) {
    if (t->joinable()) {
      program_ended();
      raw_queue_.close();
      interpreted_queue_.close();
      t->join();
    }
  }
  for (int fd : {fifo_fd_, interpreter_in_, interpreter_out_}) {
    if (fd >= 0) ::close(fd);
  }
  if (!folder_.empty()) {
    std::error_code ec;
    fs::remove_all(folder_, ec);
  }
}

void LiveRecording::start() {
  int in[2], out[2];
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) {
    throw Error("cannot make pipes for heaptrack_interpret: " + errno_text(errno));
  }
  widen_pipe(in[1]);
  widen_pipe(out[0]);
  ChildSetup setup;
  setup.in = in[0];
  setup.out = out[1];
  setup.own_group = true;
  interpreter_ = start_child({install_.interpreter}, setup);
  ::close(in[0]);
  ::close(out[1]);
  interpreter_in_ = in[1];
  interpreter_out_ = out[0];
  if (interpreter_ < 0) throw Error("cannot start heaptrack_interpret: " + errno_text(errno));
  reader_ = std::thread([this] { read_into_store(); });
  copier_ = std::thread([this] { copy_interpreted(); });
  pump_ = std::thread([this] { pump(); });
}

void LiveRecording::program_ended() {
  if (program_ended_.exchange(true)) return;
  program_ended_at_ = Clock::now();
  // A writer that comes and goes: a pump still waiting for the program's
  // library to open the FIFO sees its end. (No reader left: ENXIO, fine.)
  const int fd = ::open(fifo_.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd >= 0) ::close(fd);
}

// The raw stream: whole lines on to heaptrack_interpret, after they are
// queued for the exact reader (which may wait for them as soon as the
// interpreter has turned them into its own lines).
void LiveRecording::pump() {
  std::unique_ptr<ZstdFileWriter> raw_file;
  try {
    if (keep_raw_) raw_file = std::make_unique<ZstdFileWriter>(raw_path_, kZstdLevel);
  } catch (const Error& e) {
    pump_error_ = e.what();
  }
  bool interpreter_reads = true;
  std::string partial;  // a line not yet whole
  std::unique_ptr<char[]> chunk(new char[kChunk]);
  Clock::time_point flushed = Clock::now();
  for (;;) {
    pollfd p{fifo_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, kPollMs);
    if (ready < 0 && errno != EINTR) break;
    if (raw_file && raw_file->unflushed() && Clock::now() - flushed >= kFlushEvery) {
      try {
        raw_file->flush();
      } catch (const Error& e) {
        pump_error_ = e.what();
        raw_file.reset();
      }
      flushed = Clock::now();
    }
    if (ready <= 0) continue;  // no writer yet, or nothing new
    const ssize_t got = ::read(fifo_fd_, chunk.get(), kChunk);
    if (got < 0) {
      if (errno == EAGAIN || errno == EINTR) continue;
      pump_error_ = fmt::format("{}: cannot read the recording: {}", fifo_, errno_text(errno));
      break;
    }
    if (got == 0) break;  // every writer has closed it
    writer_seen_ = true;
    outcome_.raw_bytes += static_cast<std::uint64_t>(got);
    std::string_view bytes(chunk.get(), static_cast<std::size_t>(got));
    const std::size_t last = bytes.rfind('\n');
    if (last == std::string_view::npos) {
      partial.append(bytes);
      continue;
    }
    std::string_view whole = bytes.substr(0, last + 1);
    if (!partial.empty()) {
      partial.append(whole);
      whole = partial;
    }
    raw_queue_.push(whole);
    if (raw_file) {
      try {
        raw_file->write(whole);
      } catch (const Error& e) {
        pump_error_ = e.what();
        raw_file.reset();
      }
    }
    // An interpreter that has gone is told by its exit status, at the end.
    if (interpreter_reads) interpreter_reads = write_all(interpreter_in_, whole);
    partial.assign(bytes.substr(last + 1));
    let_the_pipe_fill_after(got);
  }
  // The recording is over once its writer has gone: a process the program
  // execs may load heaptrack's library again (LD_PRELOAD stays when the
  // program is a wrapper script), whose stream would be a second one. Its
  // open() fails now, rather than it stalling on a FIFO no one reads.
  ::unlink(fifo_.c_str());
  ::close(fifo_fd_);
  fifo_fd_ = -1;
  // A killed program may have left half a line: passed on to no one.
  outcome_.dropped_bytes = partial.size();
  ::close(interpreter_in_);
  interpreter_in_ = -1;
  raw_queue_.close();
  if (raw_file) {
    try {
      raw_file->finish();
    } catch (const Error& e) {
      pump_error_ = e.what();
    }
  }
  stream_ended_ = true;
}

// heaptrack_interpret's output: compressed into NAME.zst, and queued for the
// exact reader once the file has it.
void LiveRecording::copy_interpreted() {
  std::unique_ptr<ZstdFileWriter> file;
  try {
    file = std::make_unique<ZstdFileWriter>(interpreted_path_, kZstdLevel);
  } catch (const Error& e) {
    copier_error_ = e.what();
  }
  std::unique_ptr<char[]> chunk(new char[kChunk]);
  Clock::time_point flushed = Clock::now();
  for (;;) {
    pollfd p{interpreter_out_, POLLIN, 0};
    const int ready = ::poll(&p, 1, kPollMs);
    if (ready < 0 && errno != EINTR) break;
    if (ready > 0) {
      const ssize_t got = ::read(interpreter_out_, chunk.get(), kChunk);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      const std::string_view bytes(chunk.get(), static_cast<std::size_t>(got));
      if (file) {
        try {
          file->write(bytes);
        } catch (const Error& e) {
          copier_error_ = e.what();
          file.reset();
        }
      }
      interpreted_queue_.push(bytes);
      let_the_pipe_fill_after(got);
    }
    if (file && file->unflushed() && Clock::now() - flushed >= kFlushEvery) {
      try {
        file->flush();
      } catch (const Error& e) {
        copier_error_ = e.what();
        file.reset();
      }
      flushed = Clock::now();
    }
  }
  // The file is whole before its stream ends: the reading identifies it then.
  if (file) {
    try {
      file->finish();
    } catch (const Error& e) {
      copier_error_ = e.what();
    }
  }
  interpreted_queue_.close();
}

void LiveRecording::read_into_store() {
  try {
    RecordingStreams streams;
    streams.interpreted_path = interpreted_path_;
    streams.interpreted = &interpreted_queue_;
    // Its lines are named in warnings: the file when it is kept.
    streams.raw_name = keep_raw_ ? raw_path_ : name_ + " (heaptrack's raw stream)";
    streams.raw = &raw_queue_;
    outcome_.stored = ingest_recording(streams);
  } catch (...) {
    outcome_.store_failed = std::current_exception();
  }
  stored_at_ = Clock::now();
  // What the reading did not take is of no use now.
  raw_queue_.abandon();
  interpreted_queue_.abandon();
}

LiveRecording::Outcome LiveRecording::finish() {
  pump_.join();
  copier_.join();
  outcome_.interpreter_status = wait_child(interpreter_);
  reader_.join();
  ::close(interpreter_out_);
  interpreter_out_ = -1;
  outcome_.raw_queue_peak = raw_queue_.peak_bytes();
  outcome_.interpreted_queue_peak = interpreted_queue_.peak_bytes();
  if (!pump_error_.empty()) outcome_.failed_io = pump_error_;
  if (!copier_error_.empty()) outcome_.failed_io = copier_error_;
  if (!program_ended_) program_ended();
  // A recording can end before its program does (a process the program
  // execs is not recorded): then the store was ready as the program ended.
  outcome_.seconds_to_store = std::max(0.0, std::chrono::duration<double>(stored_at_ - program_ended_at_).count());
  return outcome_;
}

}  // namespace heapql::cli

#endif  // _WIN32
