#include "engine/symbols/symbol_resolver.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <system_error>

#include "engine/error.h"
#include "engine/path_beneath.h"
#include "engine/platform/utf8_wide.h"

namespace heapql {
namespace {

namespace fs = std::filesystem;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c); });
  return text;
}

// Where `p` is opened: itself; or, for a confined resolver, `p` walked
// component by component beneath the search path `root` (path_beneath.h),
// nullopt when it leads out of it, whatever is there.
std::optional<fs::path> opened_as(const std::string& root, const fs::path& p, bool confined) {
  if (!confined) return p;
  const std::optional<std::string> beneath = resolve_beneath(absolute_as_given(root), absolute_as_given(utf8_from_path(p)));
  if (!beneath) return std::nullopt;
  return path_from_utf8(*beneath);
}

// `dir/name` if it exists, else the one entry of `dir` whose name equals
// `name` ignoring ASCII case (the first in directory order if several do);
// as opened_as gives it.
std::optional<fs::path> child_ignoring_case(const std::string& root, bool confined, const fs::path& dir,
                                            const std::string& name, bool want_dir) {
  std::error_code ec;
  auto fits = [&](const fs::path& p) -> std::optional<fs::path> {
    const std::optional<fs::path> at = opened_as(root, p, confined);
    std::error_code type_ec;
    if (!at || !(want_dir ? fs::is_directory(*at, type_ec) : fs::is_regular_file(*at, type_ec))) return std::nullopt;
    return at;
  };
  if (auto exact = fits(dir / path_from_utf8(name))) return exact;
  const std::string wanted = lower(name);
  fs::directory_iterator it(dir, ec);
  if (ec) return std::nullopt;
  for (const fs::directory_iterator end; it != end; it.increment(ec)) {
    if (ec) return std::nullopt;
    if (lower(utf8_from_path(it->path().filename())) != wanted) continue;
    if (auto found = fits(it->path())) return found;
  }
  return std::nullopt;
}

}  // namespace

SymbolResolver::SymbolResolver(std::vector<std::string> search_paths, bool confined)
    : search_paths_(std::move(search_paths)), confined_(confined) {}

const PdbSymbolTable* SymbolResolver::find(const PdbIdentity& id) {
  const std::string name = pdb_base_name(id.pdb_name);
  const std::string key = symbol_store_key(id);
  const std::string cache_key = key + "/" + lower(name);
  if (auto cached = cache_.find(cache_key); cached != cache_.end()) return cached->second.get();

  std::vector<fs::path> candidates;
  if (!name.empty()) {
    for (const std::string& root : search_paths_) {
      if (auto folder = child_ignoring_case(root, confined_, path_from_utf8(root), name, /*want_dir=*/true))
        if (auto keyed = child_ignoring_case(root, confined_, *folder, key, /*want_dir=*/true))
          if (auto file = child_ignoring_case(root, confined_, *keyed, name, /*want_dir=*/false)) candidates.push_back(*file);
      if (auto file = child_ignoring_case(root, confined_, path_from_utf8(root), name, /*want_dir=*/false)) candidates.push_back(*file);
    }
  }

  std::unique_ptr<PdbSymbolTable> found;
  std::vector<std::string> mismatched;
  std::vector<std::string> unreadable;
  for (const fs::path& candidate : candidates) {
    try {
      auto table = std::make_unique<PdbSymbolTable>(utf8_from_path(candidate));
      if (table->identity().same_guid_and_age(id)) {
        found = std::move(table);
        break;
      }
      mismatched.push_back(utf8_from_path(candidate) + " is " + guid_text(table->identity().guid) + " age " +
                           std::to_string(table->identity().age));
    } catch (const Error& e) {
      unreadable.push_back(e.what());
    }
  }

  const std::string who = describe(id);
  auto join = [&](const std::vector<std::string>& parts) {
    std::string text = who + ":";
    for (const std::string& p : parts) text += " " + p + ";";
    text.pop_back();
    return text;
  };
  if (found) {
    ++stats_.pdbs_loaded;
  } else if (!mismatched.empty()) {
    ++stats_.pdbs_mismatched;
    mismatched.insert(mismatched.end(), unreadable.begin(), unreadable.end());
    stats_.mismatched.push_back(join(mismatched));
  } else if (!unreadable.empty()) {
    ++stats_.pdbs_unreadable;
    stats_.unreadable.push_back(join(unreadable));
  } else {
    ++stats_.pdbs_missing;
    stats_.missing.push_back(who);
  }
  return cache_.emplace(cache_key, std::move(found)).first->second.get();
}

bool SymbolResolver::resolve(const PdbIdentity& id, std::uint32_t rva, std::vector<std::string>& frames_innermost_first) {
  ++stats_.lookups;
  frames_innermost_first.clear();
  const PdbSymbolTable* table = find(id);
  if (table == nullptr || !table->lookup(rva, frames_innermost_first)) return false;
  ++stats_.lookups_resolved;
  return true;
}

}  // namespace heapql
