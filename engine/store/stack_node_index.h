// Finds a stack node by (frame, parent), for interning the stack tree.
//
// Tracers write a stack tree as chains: a new stack's nodes follow one
// another, each the child of the one before (heaptrack's `t` records; most
// nodes of a big trace are such a chain's, docs/one-shot-speed.md). So:
// - a node whose parent has no child yet is new without a lookup: a bit per
//   node says which have children (a megabyte that stays in cache);
// - a node whose id is its parent's plus one (its parent's first child,
//   then) is found by looking at that id, and is not put in the hash index;
// - the children of a parent made a moment ago are among the few nodes made
//   since, which are looked at instead of the index;
// - only the others are: the index holds the ids of a quarter of the nodes,
//   not all of them, which is a quarter of the memory and of the inserts.
#pragma once

#include <cstdint>

#include "engine/ids.h"
#include "engine/util/chunked_vector.h"
#include "engine/util/flat_index.h"
#include "engine/util/id_bits.h"
#include "engine/util/prefetch_hint.h"

namespace heapql {

// A node of the stack tree: `frame` called from the stack `parent` (its
// caller side). A StackId therefore stands for a whole stack: the node's frame
// is the top, the root's frame the thread's entry point.
struct StackNode {
  FrameId frame;
  StackId parent;  // invalid = this frame is the outermost
};

class StackNodeIndex {
 public:
  static std::uint64_t hash(FrameId frame, StackId parent) {
    return FlatIndex::mix((std::uint64_t{frame.value} << 32) | parent.value);
  }

  // Whether no node with this parent was added yet: most nodes of a stack
  // tree, as a tracer writes them, are new without a lookup.
  bool surely_absent(StackId parent) const { return parent.valid() && !with_children_.test(parent.value); }

  // The node (frame, parent) among `nodes`, all of which were added, or an
  // invalid id. `Nodes` indexes StackNodes by id.
  template <class Nodes>
  StackId find(const Nodes& nodes, FrameId frame, StackId parent) const {
    if (surely_absent(parent)) return StackId();
    if (parent.valid()) {
      const std::size_t first_child = std::size_t{parent.value} + 1;
      // (A parent id past the table, which no reader passes, is left to the
      // index.)
      if (first_child < nodes.size()) {
        if (made_recently(nodes, first_child)) {
          // Every child of a parent made a moment ago is among the nodes made
          // since, still in the cache: a look at them beats the index's miss.
          for (std::size_t id = first_child; id < nodes.size(); ++id) {
            if (nodes[id].parent == parent && nodes[id].frame == frame) return StackId(static_cast<std::uint32_t>(id));
          }
          return StackId();
        }
        if (nodes[first_child].parent == parent && nodes[first_child].frame == frame) {
          return StackId(static_cast<std::uint32_t>(first_child));
        }
      }
    }
    const std::uint32_t found = ids_.find(hash(frame, parent), [&](std::uint32_t entry) {
      const StackNode& node = nodes[entries_[entry]];
      return node.frame == frame && node.parent == parent;
    });
    return found == FlatIndex::kAbsent ? StackId() : StackId(entries_[found]);
  }

  // Adds node `id` of `nodes`; ids are added in order.
  template <class Nodes>
  void add(const Nodes& nodes, std::uint32_t id) {
    const StackNode& node = nodes[id];
    if (node.parent.valid()) {
      with_children_.set(node.parent.value);
      if (id == node.parent.value + 1) return;  // its parent's first child: found by its id
    }
    index(nodes, id);
  }

  // A hint: find(nodes, frame, parent) comes soon. Only a lookup that will
  // reach past the recent nodes is worth one: its parent's first child and
  // its index slot, the memory find reads along the same path.
  template <class Nodes>
  void prefetch(const Nodes& nodes, FrameId frame, StackId parent) const {
    if (surely_absent(parent)) return;  // new without a lookup
    if (parent.valid()) {
      const std::size_t first_child = std::size_t{parent.value} + 1;
      if (first_child >= nodes.size() || made_recently(nodes, first_child)) return;
      prefetch_hint(&nodes[first_child]);
    }
    ids_.prefetch(hash(frame, parent));
  }

  std::size_t memory_bytes() const {
    return ids_.memory_bytes() + entries_.memory_bytes() + with_children_.memory_bytes();
  }

 private:
  static constexpr std::size_t kRecentNodes = 64;
  // Whether the node `id` (in the table) is among the last kRecentNodes.
  template <class Nodes>
  static bool made_recently(const Nodes& nodes, std::size_t id) {
    return nodes.size() - id <= kRecentNodes;
  }

  // Puts node `id` in the hash index: out of line, so that add() inlines
  // where most nodes need no more than their parent's bit.
  template <class Nodes>
  [[gnu::noinline]] void index(const Nodes& nodes, std::uint32_t id) {
    const StackNode& node = nodes[id];
    const auto entry = static_cast<std::uint32_t>(entries_.size());
    entries_.push_back(id);
    ids_.insert(hash(node.frame, node.parent), entry, [&](std::uint32_t stored) {
      const StackNode& s = nodes[entries_[stored]];
      return hash(s.frame, s.parent);
    });
  }

  FlatIndex ids_;                       // entries by hash
  ChunkedVector<std::uint32_t> entries_;  // the node id of each entry
  IdBits with_children_;                // nodes that are some added node's parent
};

}  // namespace heapql
