// What a column builder (store_columns.h) has counted of a trace being read,
// asked between events: the bucket sums and the peak of the events so far,
// as a store made of them would hold them. The live journal's writer
// publishes those that changed since it last asked (live_journal.h), so that
// a query on a recording in progress answers from the sums, not by
// replaying every event recorded so far.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace heapql {

struct BucketSum;  // store_columns.h, which includes this
struct TracePeak;

class BucketSumsSoFar {
 public:
  virtual ~BucketSumsSoFar() = default;

  // The buckets with blocks so far, and the i-th of them in the order of
  // their first allocation (the order of a store's sums).
  virtual std::size_t buckets_allocated() const = 0;
  virtual std::uint32_t bucket_allocated(std::size_t i) const = 0;
  // A bucket's sum now, its live blocks at the peak so far included.
  virtual BucketSum sum_now(std::uint32_t bucket) const = 0;
  virtual TracePeak peak_now() const = 0;
  // Changes whenever the peak moves. When it has moved since `epoch`, a
  // bucket no event touched since then can still have a new count at the
  // peak: `changed` is called for each such bucket (and perhaps for
  // touched ones too).
  virtual std::uint32_t peak_epoch() const = 0;
  virtual void each_untouched_whose_peak_count_moved(std::uint32_t epoch,
                                                     const std::function<void(std::uint32_t)>& changed) const = 0;
};

}  // namespace heapql
