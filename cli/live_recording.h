// The streams of a `heapql record` while the program runs (Linux): the raw
// recording arrives on a FIFO from heaptrack's library in the program; a
// pump passes its whole lines on to heaptrack_interpret (a child), whose
// output goes compressed into NAME.zst (a readable prefix at every moment:
// a zstd block is flushed at least every second), and taps both streams for
// the exact reading that builds the store as they arrive
// (engine/session/ingest_recording.h). With --keep-raw the raw stream is
// also compressed into NAME.raw.zst. (record_command.cpp starts the program
// or attaches to one; this is what both share.)
#pragma once
#ifndef _WIN32

#include <sys/types.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <thread>

#include "engine/ingest/byte_queue.h"
#include "engine/session/ingest_into_store.h"

namespace heapql::cli {

struct HeaptrackInstall {
  std::string interpreter;  // libexec/heaptrack_interpret
  std::string preload;      // libheaptrack_preload.so, for a program heapql starts
  std::string inject;       // libheaptrack_inject.so, for --pid
  std::string env_checker;  // libexec/heaptrack_env: how to dlopen the inject library
};

// Where Debian's heaptrack (or HEAPQL_HEAPTRACK_INTERPRET's folder) keeps
// them; throws UsageError when heaptrack_interpret is not found.
HeaptrackInstall find_heaptrack_install();

class LiveRecording {
 public:
  // `name`: NAME of NAME.zst. Creates the FIFO (owned by `fifo_owner` when
  // given: a process of another user writes it); throws Error.
  LiveRecording(std::string name, const HeaptrackInstall& install, bool keep_raw,
                std::optional<uid_t> fifo_owner = std::nullopt);
  ~LiveRecording();
  LiveRecording(const LiveRecording&) = delete;
  LiveRecording& operator=(const LiveRecording&) = delete;

  // DUMP_HEAPTRACK_OUTPUT for heaptrack's library.
  const std::string& fifo() const { return fifo_; }
  // Starts heaptrack_interpret and the pump, output and reading threads.
  void start();
  // Whether heaptrack's library has opened the FIFO (and so writes it).
  bool writer_seen() const { return writer_seen_.load(); }
  // Whether the raw stream has ended (its writers are gone).
  bool stream_ended() const { return stream_ended_.load(); }
  // The recorded program is gone (or never came): no writer will open the
  // FIFO, so a pump still waiting for one stops. Its time starts the clock
  // finish() reads.
  void program_ended();

  struct Outcome {
    int interpreter_status = 0;  // heaptrack_interpret's exit status
    std::optional<IngestResult> stored;
    std::exception_ptr store_failed;  // why there is no store, if there is none
    std::string failed_io;            // a file that could not be written, and why
    std::uint64_t dropped_bytes = 0;  // a last raw line cut off (a killed program), not passed on
    std::uint64_t raw_bytes = 0;      // the raw stream's size
    std::uint64_t raw_queue_peak = 0, interpreted_queue_peak = 0;
    double seconds_to_store = 0;  // from program_ended() to the store's rename
  };
  // Waits for the streams to end and the store to be written.
  Outcome finish();

  const std::string& interpreted_path() const { return interpreted_path_; }
  const std::string& raw_path() const { return raw_path_; }

 private:
  void pump();
  void copy_interpreted();
  void read_into_store();

  std::string name_, interpreted_path_, raw_path_;
  HeaptrackInstall install_;
  bool keep_raw_;
  std::string folder_, fifo_;
  int fifo_fd_ = -1;
  int interpreter_in_ = -1, interpreter_out_ = -1;
  pid_t interpreter_ = -1;
  ByteQueue raw_queue_, interpreted_queue_;
  std::thread pump_, copier_, reader_;
  std::atomic<bool> writer_seen_{false}, stream_ended_{false};
  Outcome outcome_;
  std::chrono::steady_clock::time_point program_ended_at_{};
  std::chrono::steady_clock::time_point stored_at_{};
  std::atomic<bool> program_ended_{false};
  std::string pump_error_, copier_error_;
};

}  // namespace heapql::cli

#endif  // _WIN32
