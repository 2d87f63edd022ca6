// Frame names shortened for people, the way heaptrack's GUI shows them: a
// C++ symbol's template arguments collapsed to `<…>` and its parameter list
// dropped, so `std::vector<int, std::allocator<int> >::push_back(int const&)`
// reads `std::vector<…>::push_back`. The module (`libfoo.so!`) is kept.
// Tables and HTML show short names unless --full-names; JSON, CSV, folded
// and pprof stay exact. Frame patterns match either form (stack_plan.cpp).
#pragma once

#include <string>
#include <string_view>

namespace heapql {

std::string short_frame_name(std::string_view frame);
// The same for a symbol alone (no `module!` part).
std::string short_symbol_name(std::string_view symbol);

}  // namespace heapql
