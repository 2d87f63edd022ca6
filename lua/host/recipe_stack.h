// Recipe code runs on a thread of its own with a large stack. Lua counts its
// C calls, but some of its C code, and LPeg's, recurses as deep as the
// recipe's text or patterns make it (an error message over a long chain of
// fields, a left-deep pattern) and would overflow the 8 MiB of the main
// thread. With 1 GiB such input takes longer than any time limit to build;
// should the stack still run out, the overflow ends the run with exit 3 and
// a message, not a crash.
#pragma once

#include <functional>
#include <string>

namespace heapql::lua {

// Runs `body` on the recipe thread and waits for it; an exception `body`
// throws is rethrown here. `prefix` starts the message of an overflow.
void run_on_recipe_stack(const std::function<void()>& body, const std::string& prefix);

}  // namespace heapql::lua
