// What identifies the files a store was ingested from: size, modification
// time, and a hash of their first and last 64 KiB. A store beside its trace
// is used only while every file still matches (docs/store.md, "Freshness").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/store/store_file_info.h"

namespace heapql::store_file {

// Throws Error when the file cannot be read or is not a regular file: a
// FIFO or a device is never opened, so identifying never blocks. Without
// `follow_links` a link is not followed either (it is an Error).
FileIdentity identify_file(const std::string& path, bool follow_links = true);

// Where the source file recorded at `recorded` is now, when the store's
// trace, recorded at `trace_then`, is at `trace_now`: at the same place
// beside it (a raw twin, a block-identity file), so that a folder moved or
// copied whole keeps its store. All three are absolute.
std::string relocated(const std::string& recorded, const std::string& trace_then, const std::string& trace_now);

// Why `recorded` no longer describes the file at its path ("its size changed",
// "it is gone", ...), or empty when it still does. Without `follow_links`
// a link at the path is a mismatch, never followed.
std::string identity_mismatch(const FileIdentity& recorded, bool follow_links = true);

// How the file `now` (identified at whatever path) differs from `recorded`:
// its size, time or contents; empty when it does not. Paths are not compared.
std::string identity_change(const FileIdentity& recorded, const FileIdentity& now);

}  // namespace heapql::store_file
