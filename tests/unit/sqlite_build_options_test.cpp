// The SQLite heapql links was built with the options that change SQL
// behaviour that Debian's Linux build uses (debian/rules): heapql.exe's
// SQLite is built from the same source with them (scripts/windows/build-deps.sh),
// and an export must mean the same to SQL on both systems.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <set>
#include <string>

namespace heapql::test {
namespace {

std::set<std::string> compile_options() {
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  sqlite3_stmt* statement = nullptr;
  EXPECT_EQ(sqlite3_prepare_v2(db, "select compile_options from pragma_compile_options", -1, &statement, nullptr),
            SQLITE_OK);
  std::set<std::string> options;
  while (sqlite3_step(statement) == SQLITE_ROW) {
    options.insert(reinterpret_cast<const char*>(sqlite3_column_text(statement, 0)));
  }
  sqlite3_finalize(statement);
  sqlite3_close(db);
  return options;
}

TEST(SqliteBuildOptions, AreDebiansSqlBehaviour) {
  const std::set<std::string> options = compile_options();
  for (const char* wanted : {"ENABLE_FTS3", "ENABLE_FTS3_PARENTHESIS", "ENABLE_FTS4", "ENABLE_FTS5", "ENABLE_RTREE",
                             "SOUNDEX", "ENABLE_MATH_FUNCTIONS", "ENABLE_DBSTAT_VTAB", "ENABLE_UPDATE_DELETE_LIMIT",
                             "LIKE_DOESNT_MATCH_BLOBS", "ENABLE_COLUMN_METADATA", "ENABLE_STMTVTAB", "SECURE_DELETE",
                             "THREADSAFE=1", "USE_URI", "MAX_VARIABLE_NUMBER=250000", "MAX_SCHEMA_RETRY=25",
                             "ENABLE_LOAD_EXTENSION", "ENABLE_SESSION", "ENABLE_PREUPDATE_HOOK"}) {
    EXPECT_TRUE(options.count(wanted)) << wanted;
  }
}

TEST(SqliteBuildOptions, SqlThatDependsOnThemWorks) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(":memory:", &db), SQLITE_OK);
  auto value = [&](const char* sql) {
    sqlite3_stmt* statement = nullptr;
    std::string text = "error";
    if (sqlite3_prepare_v2(db, sql, -1, &statement, nullptr) == SQLITE_OK && sqlite3_step(statement) == SQLITE_ROW) {
      text = reinterpret_cast<const char*>(sqlite3_column_text(statement, 0));
    }
    sqlite3_finalize(statement);
    return text;
  };
  EXPECT_EQ(value("select soundex('Robert')"), "R163");
  EXPECT_EQ(value("select printf('%.4f', pi())"), "3.1416");
  EXPECT_EQ(value("select x'41' like 'A'"), "0") << "LIKE_DOESNT_MATCH_BLOBS";
  sqlite3_close(db);
}

}  // namespace
}  // namespace heapql::test
