// A stack key's frames as text, top first. The rows of one result share one
// text per frame: a recipe that lists every stack of a C++ program's trace
// (rows of tens of frames, with long demangled names) held a copy of each
// frame's text per row, several times heaptrack_print's memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

namespace heapql {

// Frame texts by frame index (a trace's FrameId), shared by the rows.
using FrameTextTable = std::vector<std::string>;

class StackFrames {
 public:
  // Reads the frames' texts out of the table, in order.
  class Iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using value_type = std::string;
    using difference_type = std::ptrdiff_t;
    using pointer = const std::string*;
    using reference = const std::string&;

    Iterator() = default;
    Iterator(const FrameTextTable* table, const std::uint32_t* at) : table_(table), at_(at) {}
    reference operator*() const { return (*table_)[*at_]; }
    pointer operator->() const { return &**this; }
    reference operator[](difference_type n) const { return (*table_)[at_[n]]; }
    Iterator& operator++() { return ++at_, *this; }
    Iterator operator++(int) { return Iterator(table_, at_++); }
    Iterator& operator--() { return --at_, *this; }
    Iterator operator--(int) { return Iterator(table_, at_--); }
    Iterator& operator+=(difference_type n) { return at_ += n, *this; }
    Iterator& operator-=(difference_type n) { return at_ -= n, *this; }
    friend Iterator operator+(Iterator i, difference_type n) { return i += n; }
    friend Iterator operator+(difference_type n, Iterator i) { return i += n; }
    friend Iterator operator-(Iterator i, difference_type n) { return i -= n; }
    friend difference_type operator-(const Iterator& a, const Iterator& b) { return a.at_ - b.at_; }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.at_ == b.at_; }
    friend auto operator<=>(const Iterator& a, const Iterator& b) { return a.at_ <=> b.at_; }

   private:
    const FrameTextTable* table_ = nullptr;
    const std::uint32_t* at_ = nullptr;
  };

  StackFrames() = default;
  // Frames given as text, with a table of their own (tests, tools).
  StackFrames(std::vector<std::string> texts);  // NOLINT: converts like the vector it replaced
  // Frames `indexes` (top first) of a shared table.
  StackFrames(std::shared_ptr<const FrameTextTable> table, std::vector<std::uint32_t> indexes)
      : table_(std::move(table)), indexes_(std::move(indexes)) {}

  Iterator begin() const { return Iterator(table_.get(), indexes_.data()); }
  Iterator end() const { return Iterator(table_.get(), indexes_.data() + indexes_.size()); }
  std::reverse_iterator<Iterator> rbegin() const { return std::reverse_iterator<Iterator>(end()); }
  std::reverse_iterator<Iterator> rend() const { return std::reverse_iterator<Iterator>(begin()); }
  std::size_t size() const { return indexes_.size(); }
  bool empty() const { return indexes_.empty(); }
  const std::string& operator[](std::size_t i) const { return (*table_)[indexes_[i]]; }
  const std::string& front() const { return (*this)[0]; }
  const std::string& back() const { return (*this)[size() - 1]; }

  // The frames' place in the shared table: equal indexes, equal texts.
  const FrameTextTable* table() const { return table_.get(); }
  const std::shared_ptr<const FrameTextTable>& shared_table() const { return table_; }
  std::uint32_t index(std::size_t i) const { return indexes_[i]; }

  std::vector<std::string> to_vector() const { return {begin(), end()}; }

  friend bool operator==(const StackFrames& a, const StackFrames& b);
  friend bool operator==(const StackFrames& a, const std::vector<std::string>& b);

 private:
  std::shared_ptr<const FrameTextTable> table_;
  std::vector<std::uint32_t> indexes_;
};

}  // namespace heapql
