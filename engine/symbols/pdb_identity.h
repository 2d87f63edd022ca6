// The identity of a PDB: the GUID and age that a PE image's RSDS debug record
// (and ETW's DbgID_RSDS event) names, plus the PDB's file name. A PDB answers
// for an image only when both GUID and age match; see docs/symbols.md.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace heapql {

struct PdbIdentity {
  // The 16 GUID bytes in file order, exactly as in the RSDS record: Data1 (u32
  // little-endian), Data2 and Data3 (u16 little-endian), then Data4's 8 bytes.
  std::array<std::uint8_t, 16> guid{};
  std::uint32_t age = 0;
  // As the RSDS record gives it: a bare "foo.pdb" or a Windows path
  // ("C:\build\foo.pdb"); pdb_base_name() takes what the store is keyed by.
  std::string pdb_name;

  bool same_guid_and_age(const PdbIdentity& other) const { return guid == other.guid && age == other.age; }
};

// The symbol-store key: GUID as %08X%04X%04X, Data4 as 8 x %02X, then the age
// as %X (uppercase, unpadded): "967F58878B2847124C4C44205044422E1".
std::string symbol_store_key(const PdbIdentity& id);
// The GUID in registry form: "{967F5887-8B28-4712-4C4C-44205044422E}".
std::string guid_text(const std::array<std::uint8_t, 16>& guid);
// The last component of pdb_name, split at '\' or '/': "foo.pdb".
std::string pdb_base_name(const std::string& pdb_name);
// "foo.pdb {GUID} age 1", for messages.
std::string describe(const PdbIdentity& id);

}  // namespace heapql
