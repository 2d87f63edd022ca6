// A batch's decoded lines of one kind (a trace's `t` and `a` records, a raw
// twin's events), which the reading loop writes in place: it makes room
// first for every line it may decode, then writes through a pointer. Pushed
// one at a time onto a vector, each record paid a growth check and a call
// (the push_back was not inlined there), on the reading thread's hottest
// loop (docs/one-shot-speed.md, "The reading thread's records written in
// place").
//
// The room is allocated unwritten (T must have no default values): a
// reading slot's column has room for a whole batch, and zeroing it ahead
// would make resident the pages of room that most batches never use.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

namespace heapql {

template <class T>
class DecodedColumn {
  static_assert(std::is_trivially_default_constructible_v<T> && std::is_trivially_copyable_v<T>);

 public:
  // Where the reading loop writes.
  struct Writer {
    T* first;  // the column's first item
    T* next;
    std::uint32_t index() const { return static_cast<std::uint32_t>(next - first); }  // of the next item
  };

  const T& operator[](std::size_t i) const { return items_[i]; }
  std::size_t size() const { return size_; }
  void clear() { size_ = 0; }
  // A writer after the last item.
  Writer writer() { return Writer{items_.get(), items_.get() + size_}; }
  // Keeps what `writer` wrote.
  void keep(const Writer& writer) { size_ = static_cast<std::size_t>(writer.next - writer.first); }
  // Keeps what `writer` wrote and gives it room for `count` more, which may
  // move the items.
  void make_room(Writer& writer, std::size_t count) {
    keep(writer);
    if (capacity_ - size_ < count) grow(size_ + count);
    writer = this->writer();
  }

 private:
  void grow(std::size_t capacity) {
    capacity = std::max(capacity, capacity_ * 2);
    auto grown = std::make_unique_for_overwrite<T[]>(capacity);
    std::copy(items_.get(), items_.get() + size_, grown.get());
    items_ = std::move(grown);
    capacity_ = capacity;
  }

  std::unique_ptr<T[]> items_;
  std::size_t size_ = 0;
  std::size_t capacity_ = 0;
};

}  // namespace heapql
