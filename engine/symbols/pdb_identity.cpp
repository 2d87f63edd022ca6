#include "engine/symbols/pdb_identity.h"

#include <fmt/format.h>

#include "engine/file_base_name.h"

namespace heapql {
namespace {

std::uint32_t le32(const std::array<std::uint8_t, 16>& g, std::size_t at) {
  return std::uint32_t{g[at]} | std::uint32_t{g[at + 1]} << 8 | std::uint32_t{g[at + 2]} << 16 |
         std::uint32_t{g[at + 3]} << 24;
}
unsigned le16(const std::array<std::uint8_t, 16>& g, std::size_t at) { return unsigned{g[at]} | unsigned{g[at + 1]} << 8; }

}  // namespace

std::string symbol_store_key(const PdbIdentity& id) {
  std::string key = fmt::format("{:08X}{:04X}{:04X}", le32(id.guid, 0), le16(id.guid, 4), le16(id.guid, 6));
  for (std::size_t i = 8; i < 16; ++i) key += fmt::format("{:02X}", id.guid[i]);
  key += fmt::format("{:X}", id.age);
  return key;
}

std::string guid_text(const std::array<std::uint8_t, 16>& g) {
  return fmt::format("{{{:08X}-{:04X}-{:04X}-{:02X}{:02X}-{:02X}{:02X}{:02X}{:02X}{:02X}{:02X}}}", le32(g, 0), le16(g, 4),
                     le16(g, 6), g[8], g[9], g[10], g[11], g[12], g[13], g[14], g[15]);
}

std::string pdb_base_name(const std::string& pdb_name) { return std::string(file_base_name(pdb_name)); }

std::string describe(const PdbIdentity& id) {
  return fmt::format("{} {} age {}", pdb_base_name(id.pdb_name), guid_text(id.guid), id.age);
}

}  // namespace heapql
