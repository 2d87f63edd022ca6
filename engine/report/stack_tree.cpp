#include "engine/report/stack_tree.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_map>

#include "engine/error.h"
#include "engine/report/json_measures.h"
#include "engine/report/json_writer.h"
#include "engine/units.h"

namespace heapql {

namespace {

constexpr std::string_view kRootLabel = "[total]";
constexpr std::string_view kEmptyStackLabel = "[empty stack]";

// A node while rows are folded in. Labels point into the Result (or at
// literals and the builder's own strings), which outlive the build, so no
// frame text is copied until the final tree.
struct BuildNode {
  std::string_view label;
  Measures inclusive;
  Measures self;
  std::vector<std::uint32_t> children;
};

struct ChildKey {
  std::uint32_t parent;
  std::string_view label;
  bool operator==(const ChildKey&) const = default;
};

struct ChildKeyHash {
  std::size_t operator()(const ChildKey& k) const noexcept {
    return std::hash<std::string_view>{}(k.label) * 31 + k.parent;
  }
};

class TreeBuilder {
 public:
  TreeBuilder() { nodes_.push_back(BuildNode{kRootLabel, {}, {}, {}}); }

  // Adds m to every node on the path from the root and as self to its end.
  void add_path(const std::vector<std::string_view>& path, const Measures& m) {
    std::uint32_t at = 0;
    nodes_[0].inclusive.add(m);
    for (std::string_view label : path) {
      at = child(at, label);
      nodes_[at].inclusive.add(m);
    }
    nodes_[at].self.add(m);
  }

  // A child that never merges with a row's node, whatever its label.
  void add_separate_child(std::string_view label, const Measures& m) {
    const auto index = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(BuildNode{label, m, m, {}});
    nodes_[0].children.push_back(index);
    nodes_[0].inclusive.add(m);
  }

  const std::vector<BuildNode>& nodes() const { return nodes_; }

 private:
  // One map for all nodes, keyed by (parent, label), rather than one per
  // node: the same lookup without a hash table in every leaf.
  std::uint32_t child(std::uint32_t parent, std::string_view label) {
    const auto next = static_cast<std::uint32_t>(nodes_.size());
    const auto [it, inserted] = index_.try_emplace(ChildKey{parent, label}, next);
    if (inserted) {
      nodes_.push_back(BuildNode{label, {}, {}, {}});
      nodes_[parent].children.push_back(next);
    }
    return it->second;
  }

  std::vector<BuildNode> nodes_;
  std::unordered_map<ChildKey, std::uint32_t, ChildKeyHash> index_;
};

// The row's path from the root: outer key values in key order, then the
// stack in the tree's direction, cut at the depth limit.
void row_path(const Row& row, const TreeOptions& options, std::vector<std::string_view>& path) {
  path.clear();
  const KeyValue* stack = nullptr;
  for (const KeyValue& k : row.key) {
    if (k.level == GroupBy::kStack) {
      stack = &k;
    } else {
      path.push_back(k.text);
    }
  }
  if (stack != nullptr) {
    if (stack->frames.empty()) {
      path.push_back(kEmptyStackLabel);
    } else if (options.direction == TreeDirection::kTopDown) {
      for (auto f = stack->frames.rbegin(); f != stack->frames.rend(); ++f) path.push_back(*f);
    } else {
      for (const std::string& f : stack->frames) path.push_back(f);
    }
  }
  if (options.max_depth != 0 && path.size() > options.max_depth) path.resize(options.max_depth);
}

struct Pruning {
  Measure measure;
  double threshold;
  std::uint64_t total;

  // As a ratio, not value < threshold * total: 7 of 100 against 0.07 is then
  // not pruned (both sides round to the same double).
  bool below(std::uint64_t value) const {
    if (threshold <= 0 || total == 0) return false;
    return static_cast<double>(value) / static_cast<double>(total) < threshold;
  }
};

// The node's kept children, in the tree's order; counts the pruned ones.
std::vector<std::uint32_t> kept_children(const std::vector<BuildNode>& nodes, const BuildNode& b,
                                         const Pruning& pruning, std::uint64_t& pruned) {
  std::vector<std::uint32_t> kept;
  for (std::uint32_t c : b.children) {
    if (pruning.below(nodes[c].inclusive.value(pruning.measure))) {
      ++pruned;
    } else {
      kept.push_back(c);
    }
  }
  std::sort(kept.begin(), kept.end(), [&](std::uint32_t x, std::uint32_t y) {
    const std::uint64_t vx = nodes[x].inclusive.value(pruning.measure);
    const std::uint64_t vy = nodes[y].inclusive.value(pruning.measure);
    if (vx != vy) return vx > vy;
    return nodes[x].label < nodes[y].label;
  });
  return kept;
}

// The final tree, filled top down from a work list: a node's children are
// all made before any is filled, so the pointers into them stay valid.
TreeNode finish(const std::vector<BuildNode>& nodes, const Pruning& pruning) {
  TreeNode root;
  std::vector<std::pair<std::uint32_t, TreeNode*>> pending{{0, &root}};
  while (!pending.empty()) {
    const auto [index, out] = pending.back();
    pending.pop_back();
    const BuildNode& b = nodes[index];
    out->label = std::string(b.label);
    out->inclusive = b.inclusive;
    out->self = b.self;
    const std::vector<std::uint32_t> kept = kept_children(nodes, b, pruning, out->pruned_children);
    out->children.resize(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) pending.emplace_back(kept[i], &out->children[i]);
  }
  return root;
}

bool src_unknown(const Result& r, Measure m) { return m == Measure::kSrc && !r.realloc_known; }

std::string value_text(const Result& r, Measure m, std::uint64_t v) {
  if (src_unknown(r, m)) return "-";
  if (m == Measure::kSo || m == Measure::kSt) return format_bytes_human(v);
  return fmt::format("{}", v);
}

std::string percent_text(const Result& r, Measure m, std::uint64_t v, std::uint64_t total) {
  if (src_unknown(r, m) || total == 0) return "-";
  return fmt::format("{:.2f}%", 100.0 * static_cast<double>(v) / static_cast<double>(total));
}

struct TextContext {
  const Result& result;
  Measure measure;
  std::uint64_t total;
  std::string& out;
};

void append_line(const TextContext& c, std::string_view inclusive, std::string_view self, std::string_view percent,
                 std::size_t depth, std::string_view label) {
  c.out += fmt::format("{:>12} {:>12} {:>8}  {:{}}{}\n", inclusive, self, percent, "", depth * 2, label);
}

void append_node_line(const TextContext& c, const TreeNode& n, std::size_t depth) {
  const std::uint64_t inclusive = n.inclusive.value(c.measure);
  append_line(c, value_text(c.result, c.measure, inclusive), value_text(c.result, c.measure, n.self.value(c.measure)),
              percent_text(c.result, c.measure, inclusive, c.total), depth, n.label);
}

// The "... N smaller" line after a node's kept children.
void append_pruned_line(const TextContext& c, const TreeNode& n, std::size_t depth) {
  if (n.pruned_children == 0) return;
  const std::uint64_t inclusive = n.inclusive.value(c.measure);
  std::uint64_t shown = n.self.value(c.measure);
  for (const TreeNode& child : n.children) shown += child.inclusive.value(c.measure);
  // What the pruned children hold is what self and the kept children do not
  // (clamped for a hand-made tree that breaks the invariant).
  const std::uint64_t pruned = inclusive > shown ? inclusive - shown : 0;
  append_line(c, value_text(c.result, c.measure, pruned), "", percent_text(c.result, c.measure, pruned, c.total),
              depth + 1, fmt::format("... {} smaller", n.pruned_children));
}

// A depth-first walk without recursion: `enter` on the way down, `leave`
// after the node's children.
template <class Enter, class Leave>
void walk(const TreeNode& root, Enter enter, Leave leave) {
  struct Step {
    const TreeNode* node;
    std::size_t next_child;
  };
  std::vector<Step> steps{{&root, 0}};
  enter(root, std::size_t{0});
  while (!steps.empty()) {
    Step& step = steps.back();
    if (step.next_child == step.node->children.size()) {
      leave(*step.node, steps.size() - 1);
      steps.pop_back();
      continue;
    }
    const TreeNode& child = step.node->children[step.next_child++];
    enter(child, steps.size());
    steps.push_back(Step{&child, 0});
  }
}

void write_measures(JsonWriter& w, const Measures& m, const Result& r) {
  w.begin_object();
  write_measure_fields(w, m, r.realloc_known);
  w.end_object();
}

void write_tree(JsonWriter& w, const TreeNode& root, const Result& r) {
  walk(
      root,
      [&](const TreeNode& n, std::size_t) {
        w.begin_object();
        w.field("label", n.label);
        w.key("inclusive");
        write_measures(w, n.inclusive, r);
        w.key("self");
        write_measures(w, n.self, r);
        w.field("pruned", n.pruned_children);
        w.key("children").begin_array();
      },
      [&](const TreeNode&, std::size_t) {
        w.end_array();
        w.end_object();
      });
}

}  // namespace

TreeNode::~TreeNode() {
  // Children are unlinked onto a list and destroyed childless, so a deep tree
  // never recurses here.
  std::vector<TreeNode> doomed = std::move(children);
  while (!doomed.empty()) {
    TreeNode last = std::move(doomed.back());
    doomed.pop_back();
    for (TreeNode& child : last.children) doomed.push_back(std::move(child));
    last.children.clear();
  }
}

TreeNode build_stack_tree(const Result& result, const TreeOptions& options) {
  if (options.measure == Measure::kImpacting) {
    throw Error("a stack tree weighs its nodes by so, soc, st, stc or src, not by impacting (which may be negative)");
  }
  TreeBuilder builder;
  std::vector<std::string_view> path;
  for (const Row& row : result.rows) {
    row_path(row, options, path);
    builder.add_path(path, row.measures);
  }
  // Declared here so that the node's label outlives the build.
  std::string other_label;
  if (result.other) {
    other_label = fmt::format("[other: {} more row{}]", result.other_rows, result.other_rows == 1 ? "" : "s");
    builder.add_separate_child(other_label, *result.other);
  }
  const std::vector<BuildNode>& nodes = builder.nodes();
  const Pruning pruning{options.measure, options.threshold, nodes[0].inclusive.value(options.measure)};
  return finish(nodes, pruning);
}

std::string stack_tree_text(const TreeNode& root, const Result& result, const TreeOptions& options) {
  std::string out;
  out += fmt::format(
      "stack tree  {}  measure {}  threshold {}",
      options.direction == TreeDirection::kTopDown ? "top-down (callers first)" : "bottom-up (allocation sites first)",
      measure_name(options.measure),
      options.threshold > 0 ? fmt::format("{:g}%", options.threshold * 100) : std::string("none"));
  if (options.max_depth != 0) out += fmt::format("  max depth {}", options.max_depth);
  out += "\n";
  if (src_unknown(result, options.measure))
    out += "note        this source does not mark reallocs: src is unavailable (-)\n";
  out += "\n";
  out += fmt::format("{:>12} {:>12} {:>8}  node\n", "inclusive", "self", "%");
  const TextContext context{result, options.measure, root.inclusive.value(options.measure), out};
  walk(
      root, [&](const TreeNode& n, std::size_t depth) { append_node_line(context, n, depth); },
      [&](const TreeNode& n, std::size_t depth) { append_pruned_line(context, n, depth); });
  return out;
}

std::string stack_tree_json(const TreeNode& root, const Result& result) {
  std::string out;
  JsonWriter w(out);
  write_tree(w, root, result);
  return out;
}

}  // namespace heapql
