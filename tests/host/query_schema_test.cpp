// Query::validate is the engine's own guard of what the query schema
// (lua/heapql/schema.lua, the one definition of a query) allows. For every
// query option: what the schema accepts, validate accepts too; and each rule
// validate keeps is one the schema refuses first, with a message naming the
// option.
#include <gtest/gtest.h>

#include <functional>
#include <optional>
#include <stdexcept>
#include <set>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "engine/error.h"
#include "engine/query/query.h"
#include "lua/host/query_flags.h"

namespace heapql::test {
namespace {

using Flags = std::vector<std::pair<std::string, std::optional<std::string>>>;

// The query `flags` spell, through the schema; the schema's message when it refuses.
std::variant<Query, std::string> through_schema(const Flags& flags) {
  lua::QueryFlags schema;
  for (const auto& [option, value] : flags) {
    const lua::QueryFlag* flag = schema.find(option);
    if (flag == nullptr) throw std::logic_error("no query option " + option);
    schema.add(*flag, value);
  }
  try {
    return schema.query("test");
  } catch (const Error& e) {
    return e.message();
  }
}

struct Accepted {
  const char* name;
  Flags flags;
};

// One case a field at least (CoversEveryOption checks it).
const std::vector<Accepted> kAccepted = {
    {"window", {{"--window", "1s..2s"}}},
    {"at_peak", {{"--at-peak", {}}, {"--by", "frame"}}},
    {"size", {{"--size", "4KB..1MiB"}}},
    {"lifetime", {{"--lifetime", "100ms.."}}},
    {"process", {{"--process", "app,42"}}},
    {"heap", {{"--heap", "0x10"}}},
    {"kind", {{"--kind", "heap,virtual"}}},
    {"thread", {{"--thread", "7"}, {"--thread", "4294967295"}}},
    {"impacting", {{"--impacting", "aifo,AIFI"}, {"--by", "impacting,stack"}}},
    {"temporary", {{"--temporary", {}}}},
    {"require", {{"--require", "app!*"}}},
    {"exclude", {{"--exclude", "app!Skip*"}}},
    {"suppressions", {{"--suppressions", "leaks.supp"}}},
    {"embedded_suppressions", {{"--embedded-suppressions", {}}}},
    {"cull", {{"--cull", "mylib!alloc"}}},
    {"cull_list", {{"--cull-list", "crt.txt"}}},
    {"no_default_cull", {{"--no-default-cull", {}}}},
    {"sort", {{"--sort", "src"}}},
    {"top", {{"--top", "1"}}},
    {"totals", {{"--totals", {}}}},
    {"series", {{"--series", "100000"}}},
    {"detail", {{"--detail", "1"}, {"--by", "frame"}}},
};

TEST(QuerySchema, WhatTheSchemaAcceptsValidatePasses) {
  for (const Accepted& c : kAccepted) {
    const auto q = through_schema(c.flags);
    ASSERT_TRUE(std::holds_alternative<Query>(q)) << c.name << ": " << std::get<std::string>(q);
    EXPECT_NO_THROW(validate(std::get<Query>(q))) << c.name;
  }
}

TEST(QuerySchema, CoversEveryOption) {
  std::set<std::string> given;
  for (const Accepted& c : kAccepted) {
    for (const auto& flag : c.flags) given.insert(flag.first);
  }
  const lua::QueryFlags schema;
  EXPECT_GE(schema.all().size(), 20u);
  for (const lua::QueryFlag& flag : schema.all()) EXPECT_TRUE(given.count(flag.option)) << flag.option;
}

struct Guarded {
  const char* name;
  Flags flags;                          // refused by the schema
  std::function<void(Query&)> spoil;    // the same mistake made in a Query directly
  const char* option;                   // which the schema's message names
};

const std::vector<Guarded> kGuarded = {
    {"top_0", {{"--top", "0"}}, [](Query& q) { q.top = 0; }, "--top"},
    {"series_too_many", {{"--series", "100001"}}, [](Query& q) { q.series_buckets = kMaxSeriesBuckets + 1; }, "--series"},
    {"detail_0", {{"--detail", "0"}}, [](Query& q) { q.detail = 0; }, "--detail"},
    {"window_inverted", {{"--window", "3s..1s"}}, [](Query& q) { q.window = TimeWindow{3'000'000'000, 1'000'000'000}; },
     "--window"},
    {"at_peak_lifetime", {{"--at-peak", {}}, {"--lifetime", "1ms.."}},
     [](Query& q) {
       q.block_set = BlockSet::kAtPeak;
       q.lifetime_min_ns = 1'000'000;
     },
     "--at-peak"},
    {"at_peak_temporary", {{"--at-peak", {}}, {"--temporary", {}}},
     [](Query& q) {
       q.block_set = BlockSet::kAtPeak;
       q.temporary_only = true;
     },
     "--at-peak"},
    {"at_peak_impacting", {{"--at-peak", {}}, {"--impacting", "AIFO"}},
     [](Query& q) {
       q.block_set = BlockSet::kAtPeak;
       q.impacting = {Impacting::kAifo};
     },
     "--at-peak"},
    {"at_peak_by_impacting", {{"--at-peak", {}}, {"--by", "impacting"}},
     [](Query& q) {
       q.block_set = BlockSet::kAtPeak;
       q.by = {GroupBy::kImpacting};
     },
     "--at-peak"},
};

TEST(QuerySchema, EveryRuleValidateKeepsTheSchemaRefusesFirst) {
  for (const Guarded& c : kGuarded) {
    const auto q = through_schema(c.flags);
    ASSERT_TRUE(std::holds_alternative<std::string>(q)) << c.name << ": the schema accepted it";
    EXPECT_NE(std::get<std::string>(q).find(c.option), std::string::npos) << c.name << ": " << std::get<std::string>(q);
    Query spoiled;
    spoiled.by = {GroupBy::kStack};
    EXPECT_NO_THROW(validate(spoiled)) << c.name;
    c.spoil(spoiled);
    EXPECT_THROW(validate(spoiled), Error) << c.name << ": validate let it through";
  }
}

}  // namespace
}  // namespace heapql::test
