// `heapql serve` in a heapql built with its HTTP server: the server is a
// module of its own (heapql-serve.so), loaded when `serve` runs. Linked into
// the program, its HTTP library (cpp-httplib, which brings OpenSSL and
// brotli) was loaded and initialised by every command: 8.5 ms of
// `heapql --version`'s 23.6 ms on the bench machine (docs/serve.md, "The module").
#include <dlfcn.h>
#include <fmt/format.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/error.h"
#include "engine/platform/program_path.h"
#include "cli/commands.h"

namespace heapql::cli {

namespace {

namespace fs = std::filesystem;

// Installed, as <prefix>/bin/../<libdir>/heapql/heapql-serve.so; run from
// the build folder, beside the program there.
std::vector<fs::path> module_candidates() {
  std::vector<fs::path> candidates;
  if (const std::optional<fs::path> program = program_path()) {
    candidates.push_back((program->parent_path() / HEAPQL_INSTALLED_SERVE_MODULE).lexically_normal());
  }
  candidates.emplace_back(HEAPQL_SERVE_MODULE_IN_TREE);
  return candidates;
}

using ServeEntry = int (*)(Arguments&);

ServeEntry load_serve_module() {
  std::string tried;
  for (const fs::path& candidate : module_candidates()) {
    std::error_code error;
    if (!fs::is_regular_file(candidate, error)) {
      tried += (tried.empty() ? "" : ", ") + candidate.string();
      continue;
    }
    // Never closed: the server runs until the process ends.
    void* module = ::dlopen(candidate.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (module == nullptr) {
      throw Error(fmt::format("cannot load heapql's HTTP server {}: {}", candidate.string(), ::dlerror()));
    }
    void* entry = ::dlsym(module, "heapql_serve_module_run");
    if (entry == nullptr) {
      throw Error(fmt::format("{} is not heapql's HTTP server (it has no heapql_serve_module_run)", candidate.string()));
    }
    return reinterpret_cast<ServeEntry>(entry);
  }
  throw Error(fmt::format("heapql's HTTP server (heapql-serve.so) is not installed beside this heapql (looked for {})",
                          tried));
}

}  // namespace

int run_serve(Arguments& args) { return load_serve_module()(args); }

}  // namespace heapql::cli
