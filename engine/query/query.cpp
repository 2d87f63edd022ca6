#include "engine/query/query.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "engine/error.h"

namespace heapql {

namespace {
constexpr std::array<std::string_view, 6> kMeasureNames = {"so", "soc", "st", "stc", "src", "impacting"};
constexpr std::array<std::string_view, 9> kGroupByNames = {"stack", "frame",  "image",     "process", "heap",
                                                           "kind",  "thread", "impacting", "custom"};
constexpr std::array<std::string_view, 4> kImpactingNames = {"AIFI", "AIFO", "AOFI", "AOFO"};

template <class E, std::size_t N>
std::optional<E> parse_name(const std::array<std::string_view, N>& names, std::string_view text, bool any_case) {
  for (std::size_t i = 0; i < N; ++i) {
    // std::toupper takes an unsigned char's value: a byte >= 0x80 in a
    // plain (signed) char would be negative, which is undefined.
    const auto upper = [](char c) { return std::toupper(static_cast<unsigned char>(c)); };
    const bool same = any_case ? std::equal(text.begin(), text.end(), names[i].begin(), names[i].end(),
                                            [&](char a, char b) { return upper(a) == upper(b); })
                               : text == names[i];
    if (same) return static_cast<E>(i);
  }
  return std::nullopt;
}
}  // namespace

std::string_view measure_name(Measure m) { return kMeasureNames[static_cast<std::size_t>(m)]; }
std::string_view group_by_name(GroupBy g) { return kGroupByNames[static_cast<std::size_t>(g)]; }
std::string_view impacting_name(Impacting t) { return kImpactingNames[static_cast<std::size_t>(t)]; }

std::optional<Measure> parse_measure(std::string_view text) { return parse_name<Measure>(kMeasureNames, text, false); }
std::optional<GroupBy> parse_group_by(std::string_view text) {
  // "custom" is not a level a user can name: it comes from a recipe's function.
  const auto g = parse_name<GroupBy>(kGroupByNames, text, false);
  return g == GroupBy::kCustom ? std::nullopt : g;
}
std::optional<Impacting> parse_impacting(std::string_view text) {
  return parse_name<Impacting>(kImpactingNames, text, true);
}

void validate(const Query& query) {
  if (query.window.end_ns && *query.window.end_ns < query.window.begin_ns) {
    throw Error("--window: the end is before the start");
  }
  // The engine's own guard of what the query schema (lua/heapql/schema.lua)
  // allows: the command line and recipes are checked there first.
  if (query.top < 1) throw Error("--top: expected a whole number of at least 1");
  if (query.detail && *query.detail < 1) throw Error("--detail: expected a row number of at least 1");
  if (query.series_buckets > kMaxSeriesBuckets) throw Error("--series: expected a bucket count from 0 to 100000");
  if (query.sort == Measure::kImpacting && !query.uses_impacting()) {
    throw Error("--sort impacting: the query has no impacting size; add --impacting or --by impacting");
  }
  if (query.block_set == BlockSet::kAtPeak) {
    // At the peak a block is alive: it has no lifetime, impacting type or
    // temporariness yet (semantics.md §8).
    if (query.lifetime_min_ns || query.lifetime_end_ns) throw Error("--at-peak cannot be combined with --lifetime");
    if (query.temporary_only) throw Error("--at-peak cannot be combined with --temporary");
    if (query.uses_impacting()) throw Error("--at-peak cannot be combined with impacting types (--impacting, --by impacting)");
  }
}

bool Query::uses_impacting() const {
  return !impacting.empty() || std::find(by.begin(), by.end(), GroupBy::kImpacting) != by.end();
}

}  // namespace heapql
