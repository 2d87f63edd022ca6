// pprof's profile (profile.proto), gzipped as pprof, speedscope and the other
// pprof viewers read it, with the sample types of Go heap profiles.
#include <fmt/format.h>

#include <charconv>
#include <map>
#include <string_view>
#include <unordered_map>

#include "engine/error.h"
#include "engine/report/gzip_member.h"
#include "engine/report/reports.h"
#include "profile.pb.h"

namespace heapql {

namespace {

namespace pb = perftools::profiles;

// Interns strings, functions, mappings (modules) and locations (frames as
// heapql shows them, `module!symbol`), numbering each from 1 as pprof wants.
class ProfileTables {
 public:
  explicit ProfileTables(pb::Profile& profile) : profile_(profile) { string_id(""); }

  std::int64_t string_id(std::string_view text) {
    auto [it, added] = strings_.try_emplace(std::string(text), static_cast<std::int64_t>(strings_.size()));
    if (added) profile_.add_string_table(it->first);
    return it->second;
  }

  // A frame as the rows name it: `module!symbol`, or `module!0xOFFSET` when
  // unsymbolized (module names never hold `!`), or a bracketed marker.
  std::uint64_t location_id(const std::string& frame) {
    if (auto it = locations_.find(frame); it != locations_.end()) return it->second;
    const std::size_t bang = frame.find('!');
    const std::string_view module = bang == std::string::npos ? std::string_view() : std::string_view(frame).substr(0, bang);
    const std::string_view symbol = bang == std::string::npos ? std::string_view(frame) : std::string_view(frame).substr(bang + 1);
    pb::Location& location = *profile_.add_location();
    location.set_id(static_cast<std::uint64_t>(profile_.location_size()));
    if (!module.empty()) location.set_mapping_id(mapping_id(module));
    if (symbol.starts_with("0x")) {
      // from_chars, not sscanf's %lx: uint64_t is not a long on Windows.
      std::uint64_t offset = 0;
      const std::string_view digits = symbol.substr(2);
      if (std::from_chars(digits.data(), digits.data() + digits.size(), offset, 16).ec == std::errc())
        location.set_address(offset);
    }
    location.add_line()->set_function_id(function_id(symbol));
    locations_.emplace(frame, location.id());
    return location.id();
  }

 private:
  std::uint64_t mapping_id(std::string_view module) {
    auto [it, added] = mappings_.try_emplace(std::string(module), 0);
    if (added) {
      pb::Mapping& mapping = *profile_.add_mapping();
      mapping.set_id(static_cast<std::uint64_t>(profile_.mapping_size()));
      mapping.set_filename(string_id(module));
      mapping.set_has_functions(true);
      it->second = mapping.id();
    }
    return it->second;
  }

  std::uint64_t function_id(std::string_view name) {
    auto [it, added] = functions_.try_emplace(std::string(name), 0);
    if (added) {
      pb::Function& function = *profile_.add_function();
      function.set_id(static_cast<std::uint64_t>(profile_.function_size()));
      function.set_name(string_id(name));
      function.set_system_name(function.name());
      it->second = function.id();
    }
    return it->second;
  }

  pb::Profile& profile_;
  std::unordered_map<std::string, std::int64_t> strings_;
  std::unordered_map<std::string, std::uint64_t> locations_;
  std::unordered_map<std::string, std::uint64_t> mappings_;
  std::unordered_map<std::string, std::uint64_t> functions_;
};

// Go heap profiles' sample types, in their order, and heapql's measure for each.
struct SampleType {
  const char* type;
  const char* unit;
  Measure measure;
};
constexpr SampleType kSampleTypes[] = {
    {"alloc_objects", "count", Measure::kStc},
    {"alloc_space", "bytes", Measure::kSt},
    {"inuse_objects", "count", Measure::kSoc},
    {"inuse_space", "bytes", Measure::kSo},
};

void add_sample(pb::Profile& profile, ProfileTables& tables, const Measures& m, const std::vector<KeyValue>& key,
                const char* marker) {
  pb::Sample& sample = *profile.add_sample();
  for (const SampleType& t : kSampleTypes) sample.add_value(static_cast<std::int64_t>(m.value(t.measure)));
  if (marker != nullptr) sample.add_location_id(tables.location_id(marker));
  for (const KeyValue& level : key) {
    if (level.level == GroupBy::kStack) {
      for (const std::string& frame : level.frames) sample.add_location_id(tables.location_id(frame));
    } else if (level.level == GroupBy::kFrame) {
      sample.add_location_id(tables.location_id(level.text));
    } else {
      pb::Label& label = *sample.add_label();
      label.set_key(tables.string_id(group_by_name(level.level)));
      label.set_str(tables.string_id(level.text));
    }
  }
}

}  // namespace

std::string result_pprof(const Result& r, const SourceInfo& source) {
  pb::Profile profile;
  ProfileTables tables(profile);
  for (const SampleType& t : kSampleTypes) {
    pb::ValueType& type = *profile.add_sample_type();
    type.set_type(tables.string_id(t.type));
    type.set_unit(tables.string_id(t.unit));
    if (t.measure == r.query.sort) profile.set_default_sample_type(type.type());
  }
  profile.mutable_period_type()->set_type(tables.string_id("space"));
  profile.mutable_period_type()->set_unit(tables.string_id("bytes"));
  profile.set_period(1);  // every block is counted: heapql does not sample
  const std::int64_t end_ns = r.query.window.end_ns.value_or(r.trace_end_ns);
  profile.set_duration_nanos(std::max<std::int64_t>(0, end_ns - r.query.window.begin_ns));
  profile.add_comment(tables.string_id(fmt::format("heapql: {}", source.path)));

  for (const Row& row : r.rows) add_sample(profile, tables, row.measures, row.key, nullptr);
  if (r.other) add_sample(profile, tables, *r.other, {}, "[other]");
  if (r.rows.empty() && !r.other) add_sample(profile, tables, r.totals, {}, "[total]");

  std::string encoded;
  if (!profile.SerializeToString(&encoded)) throw Error("--format pprof: cannot encode the profile");
  return gzip_member(encoded, "--format pprof");
}

}  // namespace heapql
