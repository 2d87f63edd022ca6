// The secret every request to `heapql serve` must carry (docs/serve.md,
// "Security"): 32 lowercase hex digits from getrandom(2), compared in
// constant time so that its bytes cannot be guessed one by one from timing.
#pragma once

#include <string>
#include <string_view>

namespace heapql::cli {

// 128 random bits as hex; Error when the kernel has no randomness to give.
std::string new_server_token();
// Whether `given` is `token`, in a time that depends on their lengths only.
bool same_token(std::string_view given, std::string_view token);

}  // namespace heapql::cli
