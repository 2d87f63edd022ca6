// The last step of a recipe's query: the table that heapql.schema produced
// from the recipe's (already checked and normalized) fields, read into the
// engine's Query. The schema gives users the precise messages; here values
// are only copied, with their types checked (a table need not have come
// from the schema), and Query::validate guards what they may be.
#pragma once

#include <lua.hpp>

#include "engine/query/query.h"

namespace heapql::lua {

// Which door a query came through. Only the command line names files for the
// engine to read (cull lists, suppressions): a recipe reads its own inside
// its sandbox, so its tables must not name any.
enum class QueryDoor { kRecipe, kCommandLine };

// Reads the normalized query table at `index`. Throws heapql::Error naming
// the field. A `by_function` field is not read here (see trace_binding).
Query query_from_table(lua_State* L, int index, QueryDoor door = QueryDoor::kRecipe);

}  // namespace heapql::lua
