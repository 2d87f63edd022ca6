#include "engine/export/sqlite_sink.h"

#include <fmt/format.h>
#include <sqlite3.h>

#include <cstdio>
#include <filesystem>

#include "engine/error.h"
#include "engine/file_to_replace.h"
#include "engine/platform/errno_text.h"
#include "engine/platform/open_file.h"
#include "engine/platform/process_id.h"
#include "engine/platform/replace_file.h"
#include "engine/platform/sync_file.h"

namespace heapql {

SqliteSink::SqliteSink(std::string path) : path_(std::move(path)) {
  check_file_to_replace(path_);
  temp_ = path_ + ".heapql-tmp-" + std::to_string(current_process_id());
  remove_file(temp_);
  if (sqlite3_open_v2(temp_.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
    const std::string why = db_ != nullptr ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    db_ = nullptr;
    remove_file(temp_);
    throw Error(SourceLocation::of_file(path_), "cannot be written: " + why);
  }
  // A new file written in one go: no journal to keep, and it is synced once, at the end.
  exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF; BEGIN");
}

SqliteSink::~SqliteSink() {
  sqlite3_finalize(insert_);
  sqlite3_close(db_);
  if (!committed_) remove_file(temp_);
}

void SqliteSink::fail(std::string_view what) const {
  throw Error(SourceLocation::of_file(path_), fmt::format("{}: {}", what, db_ ? sqlite3_errmsg(db_) : "closed"));
}

void SqliteSink::exec(const std::string& sql) {
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK) fail("SQLite");
}

void SqliteSink::begin_table(std::string_view name, std::span<const ExportColumn> columns) {
  table_ = std::string(name);
  std::string create = fmt::format("CREATE TABLE {} (", table_);
  std::string insert = fmt::format("INSERT INTO {} VALUES (", table_);
  for (std::size_t i = 0; i < columns.size(); ++i) {
    create += fmt::format("{}{} {}", i ? ", " : "", columns[i].name, columns[i].is_text ? "TEXT" : "INTEGER");
    insert += i ? ", ?" : "?";
  }
  exec(create + ")");
  sqlite3_finalize(insert_);
  insert_ = nullptr;
  if (sqlite3_prepare_v2(db_, (insert + ")").c_str(), -1, &insert_, nullptr) != SQLITE_OK) fail("SQLite");
}

void SqliteSink::row(std::span<const ExportCell> cells) {
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const int at = static_cast<int>(i) + 1;
    if (const auto* number = std::get_if<std::int64_t>(&cells[i])) {
      sqlite3_bind_int64(insert_, at, *number);
    } else if (const auto* text = std::get_if<std::string_view>(&cells[i])) {
      sqlite3_bind_text(insert_, at, text->data(), static_cast<int>(text->size()), SQLITE_TRANSIENT);
    } else {
      sqlite3_bind_null(insert_, at);
    }
  }
  if (sqlite3_step(insert_) != SQLITE_DONE) fail("SQLite insert");
  sqlite3_reset(insert_);
}

void SqliteSink::end_table(std::span<const std::string_view> indexes) {
  for (std::string_view column : indexes) {
    exec(fmt::format("CREATE INDEX {0}_{1} ON {0} ({1})", table_, column));
  }
}

void SqliteSink::commit() {
  exec("COMMIT");
  sqlite3_finalize(insert_);
  insert_ = nullptr;
  if (sqlite3_close(db_) != SQLITE_OK) fail("SQLite close");
  db_ = nullptr;
  // Synced once, then renamed over the target.
  // Writable: Windows flushes only a handle that may write.
  if (const int fd = open_file(temp_, O_RDWR); fd >= 0) {
    sync_file(fd);
    close_file(fd);
  }
  if (rename_replacing(temp_, path_) != 0) {
    throw Error(SourceLocation::of_file(path_),
                "cannot rename the written database into place: " + errno_text(errno));
  }
  committed_ = true;
}

}  // namespace heapql
