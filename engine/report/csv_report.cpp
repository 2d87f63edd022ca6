#include <fmt/format.h>

#include "engine/report/csv_field.h"
#include "engine/report/reports.h"

namespace heapql {

namespace {

void append_measures(std::string& out, const Result& r, const Measures& m, const std::vector<std::string>& derived) {
  out += fmt::format("{},{},{},{},", m.so, m.soc, m.st, m.stc);
  if (r.realloc_known) out += fmt::format("{}", m.src);
  if (r.impacting_measures) out += fmt::format(",{},{},{}", m.count, m.size, m.impacting);
  for (std::size_t i = 0; i < r.derived_columns.size(); ++i) out += "," + (i < derived.size() ? csv_field(derived[i]) : "");
  out += "\r\n";
}

}  // namespace

void result_csv(TextOut& to, const Result& r) {
  std::string& out = to.text();
  for (GroupBy g : r.query.by) out += std::string(group_by_name(g)) + ",";
  out += "so,soc,st,stc,src";
  if (r.impacting_measures) out += ",count,size,impacting";
  for (const std::string& name : r.derived_columns) out += "," + csv_field(name);
  out += "\r\n";
  for (const Row& row : r.rows) {
    for (const KeyValue& k : row.key) {
      if (k.level == GroupBy::kStack) {
        std::string joined;  // frames top first, as folded stacks are read
        for (const std::string& f : k.frames) joined += (joined.empty() ? "" : ";") + f;
        out += csv_field(joined) + ",";
      } else {
        out += csv_field(k.text) + ",";
      }
    }
    append_measures(out, r, row.measures, row.derived);
    to.row_written();
  }
  if (r.other) {
    for (std::size_t i = 0; i < r.query.by.size(); ++i) out += i == 0 ? "[other]," : ",";
    append_measures(out, r, *r.other, {});
  }
  if (r.query.by.empty()) append_measures(out, r, r.totals, {});  // --totals: the one line is the totals
}

}  // namespace heapql
