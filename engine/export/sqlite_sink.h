// Tables into a SQLite database (libsqlite3), one transaction, indexes made
// after the rows. Written under a temporary name beside the target and
// renamed into place by commit() (docs/export.md).
#pragma once

#include <string>

#include "engine/export/table_sink.h"

struct sqlite3;
struct sqlite3_stmt;

namespace heapql {

class SqliteSink final : public TableSink {
 public:
  // Throws Error naming the file when it cannot be made.
  explicit SqliteSink(std::string path);
  ~SqliteSink() override;
  SqliteSink(const SqliteSink&) = delete;
  SqliteSink& operator=(const SqliteSink&) = delete;

  void begin_table(std::string_view name, std::span<const ExportColumn> columns) override;
  void row(std::span<const ExportCell> cells) override;
  void end_table(std::span<const std::string_view> indexes) override;
  void commit() override;

 private:
  void exec(const std::string& sql);
  [[noreturn]] void fail(std::string_view what) const;
  std::string path_, temp_, table_;
  sqlite3* db_ = nullptr;
  sqlite3_stmt* insert_ = nullptr;
  bool committed_ = false;
};

}  // namespace heapql
