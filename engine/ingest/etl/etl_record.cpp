// Names of header kinds and the text form of GUIDs, as info output and the
// tests show them.
#include "engine/ingest/etl/etl_record.h"

#include <fmt/format.h>

namespace heapql {

std::string_view etl_header_kind_name(EtlHeaderKind kind) {
  switch (kind) {
    case EtlHeaderKind::kSystem32: return "sys32";
    case EtlHeaderKind::kSystem64: return "sys64";
    case EtlHeaderKind::kCompact32: return "compact32";
    case EtlHeaderKind::kCompact64: return "compact64";
    case EtlHeaderKind::kFull32: return "full32";
    case EtlHeaderKind::kFull64: return "full64";
    case EtlHeaderKind::kInstance32: return "inst32";
    case EtlHeaderKind::kInstance64: return "inst64";
    case EtlHeaderKind::kPerfinfo32: return "perf32";
    case EtlHeaderKind::kPerfinfo64: return "perf64";
    case EtlHeaderKind::kEventHeader32: return "evh32";
    case EtlHeaderKind::kEventHeader64: return "evh64";
  }
  return "unknown";
}

std::string etl_guid_text(const EtlGuid& guid) {
  // Data1 (u32), Data2 and Data3 (u16) are little-endian in the file; Data4
  // is 8 bytes shown in file order.
  const auto data1 = static_cast<std::uint32_t>(guid[0] | guid[1] << 8 | guid[2] << 16) |
                     static_cast<std::uint32_t>(guid[3]) << 24;
  const auto data2 = static_cast<std::uint16_t>(guid[4] | guid[5] << 8);
  const auto data3 = static_cast<std::uint16_t>(guid[6] | guid[7] << 8);
  return fmt::format("{:08x}-{:04x}-{:04x}-{:02x}{:02x}-{:02x}{:02x}{:02x}{:02x}{:02x}{:02x}", data1, data2, data3,
                     guid[8], guid[9], guid[10], guid[11], guid[12], guid[13], guid[14], guid[15]);
}

}  // namespace heapql
