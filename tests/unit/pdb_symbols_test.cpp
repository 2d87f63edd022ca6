// engine/symbols: PDB identity, the per-PDB address table and the resolver,
// checked against llvm-symbolizer-14 (the oracle) on Windows images and PDBs
// built at test time (tests/fixtures/pdb/fixtures.cmake).
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <regex>
#include <set>
#include <sstream>

#include "engine/error.h"
#include "engine/symbols/pdb_identity.h"
#include "engine/symbols/pdb_symbol_table.h"
#include "engine/symbols/symbol_resolver.h"
#include "tests/support/symbolic_links.h"
#include "tests/support/test_support.h"

namespace heapql {
namespace {

namespace fs = std::filesystem;
using test::Links;
using test::TempDir;

std::string fixture(const std::string& relative) { return std::string(HEAPQL_PDB_FIXTURE_DIR) + "/" + relative; }

struct PeSection {
  std::uint32_t va = 0;
  std::uint32_t size = 0;
  std::uint32_t raw_offset = 0;
  std::uint32_t raw_size = 0;
  bool executable = false;
};

// What the test needs of a PE image, read by hand (not with the code under test).
struct PeImage {
  PdbIdentity rsds;
  std::vector<PeSection> sections;
};

std::uint32_t u32_at(const std::string& b, std::size_t at) {
  if (at + 4 > b.size()) throw std::runtime_error("PE truncated");
  std::uint32_t v;
  std::memcpy(&v, b.data() + at, 4);
  return v;
}
std::uint16_t u16_at(const std::string& b, std::size_t at) {
  if (at + 2 > b.size()) throw std::runtime_error("PE truncated");
  std::uint16_t v;
  std::memcpy(&v, b.data() + at, 2);
  return v;
}

PeImage read_pe(const std::string& path) {
  const std::string b = test::read_file(path);
  PeImage image;
  const std::uint32_t pe = u32_at(b, 0x3C);
  if (b.compare(pe, 4, std::string("PE\0\0", 4)) != 0) throw std::runtime_error("not PE");
  const std::uint16_t section_count = u16_at(b, pe + 6);
  const std::uint16_t optional_size = u16_at(b, pe + 20);
  const std::size_t optional = pe + 24;
  if (u16_at(b, optional) != 0x20B) throw std::runtime_error("not PE32+");
  const std::uint32_t debug_rva = u32_at(b, optional + 112 + 6 * 8);
  const std::uint32_t debug_size = u32_at(b, optional + 112 + 6 * 8 + 4);
  for (std::size_t i = 0; i < section_count; ++i) {
    const std::size_t s = optional + optional_size + i * 40;
    PeSection sec;
    sec.size = u32_at(b, s + 8);
    sec.va = u32_at(b, s + 12);
    sec.raw_size = u32_at(b, s + 16);
    sec.raw_offset = u32_at(b, s + 20);
    sec.executable = (u32_at(b, s + 36) & 0x20000020u) != 0;
    image.sections.push_back(sec);
  }
  auto file_offset = [&](std::uint32_t rva) -> std::size_t {
    for (const PeSection& s : image.sections)
      if (rva >= s.va && rva < s.va + s.raw_size) return s.raw_offset + (rva - s.va);
    throw std::runtime_error("rva outside sections");
  };
  for (std::uint32_t at = 0; at + 28 <= debug_size; at += 28) {
    const std::size_t entry = file_offset(debug_rva + at);
    if (u32_at(b, entry + 12) != 2) continue;  // IMAGE_DEBUG_TYPE_CODEVIEW
    const std::size_t cv = u32_at(b, entry + 24);
    if (b.compare(cv, 4, "RSDS") != 0) continue;
    std::memcpy(image.rsds.guid.data(), b.data() + cv + 4, 16);
    image.rsds.age = u32_at(b, cv + 20);
    image.rsds.pdb_name = std::string(b.c_str() + cv + 24);
  }
  if (image.rsds.pdb_name.empty()) throw std::runtime_error("no RSDS record in " + path);
  return image;
}

// store/<name>/<KEY>/<name>, as symstore lays it out.
std::string put_in_store(const fs::path& store, const PdbIdentity& id, const std::string& pdb_file) {
  const fs::path dir = store / pdb_base_name(id.pdb_name) / symbol_store_key(id);
  fs::create_directories(dir);
  const fs::path target = dir / pdb_base_name(id.pdb_name);
  fs::copy_file(pdb_file, target, fs::copy_options::overwrite_existing);
  return target.string();
}

// llvm-symbolizer-14's frames (innermost first) for every rva, in one call.
std::vector<std::vector<std::string>> oracle(const std::string& image, const std::vector<std::uint32_t>& rvas,
                                             const TempDir& tmp) {
  std::ostringstream input;
  for (std::uint32_t rva : rvas) input << "0x" << std::hex << rva << "\n";
  const std::string in = tmp.file("oracle-input.txt");
  test::write_file(in, input.str());
  // A group, so that its own stdin redirection wins over run_command's </dev/null.
  const auto r = test::run_command("{ " + test::shell_quote(HEAPQL_LLVM_SYMBOLIZER) + " --obj=" + test::shell_quote(image) +
                                   " --relative-address --output-style=JSON < " + test::shell_quote(in) + "; }");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::vector<std::vector<std::string>> all;
  std::istringstream lines(r.out);
  std::string line;
  const std::string key = "\"FunctionName\":\"";
  while (std::getline(lines, line)) {
    std::vector<std::string> frames;
    for (std::size_t at = line.find(key); at != std::string::npos; at = line.find(key, at)) {
      at += key.size();
      std::string name;
      while (at < line.size() && line[at] != '"') {
        if (line[at] == '\\' && at + 1 < line.size()) ++at;
        name += line[at++];
      }
      frames.push_back(name);
    }
    all.push_back(frames);
  }
  EXPECT_EQ(all.size(), rvas.size());
  return all;
}

struct PdbFunctions {
  std::vector<std::pair<std::uint32_t, std::uint32_t>> procs;  // [begin, end)
  std::vector<std::uint32_t> publics;                        // in executable sections
};

// Function starts and extents as llvm-pdbutil-14 prints them (offsets decimal).
PdbFunctions pdbutil_functions(const std::string& pdb, const PeImage& image) {
  const auto r = test::run_command(test::shell_quote(HEAPQL_LLVM_PDBUTIL) + " dump -symbols -publics " +
                                   test::shell_quote(pdb));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  PdbFunctions out;
  static const std::regex addr(R"(addr = (\d+):(\d+)(, code size = (\d+))?)");
  for (std::sregex_iterator it(r.out.begin(), r.out.end(), addr), end; it != end; ++it) {
    const std::size_t section = std::stoul((*it)[1]);
    if (section == 0 || section > image.sections.size() || !image.sections[section - 1].executable) continue;
    const std::uint32_t rva = image.sections[section - 1].va + static_cast<std::uint32_t>(std::stoul((*it)[2]));
    if ((*it)[4].matched) {
      out.procs.emplace_back(rva, rva + static_cast<std::uint32_t>(std::stoul((*it)[4])));
    } else {
      out.publics.push_back(rva);
    }
  }
  return out;
}

std::string join(const std::vector<std::string>& frames) {
  std::string text;
  for (const auto& f : frames) text += (text.empty() ? "" : " <- ") + f;
  return text.empty() ? "(none)" : text;
}

struct Comparison {
  std::size_t addresses = 0;
  std::size_t resolved = 0;       // we gave frames
  std::size_t agreed_ends = 0;    // ... innermost and outermost equal to the oracle's
  std::size_t agreed_chain = 0;   // ... the whole chain equal
  std::size_t in_procs = 0;       // addresses inside an S_*PROC32
  std::size_t bounded = 0;        // oracle named something, we (by the publics bound) did not
  std::size_t both_unknown = 0;
};

// Every function start and public, plus every byte of the executable
// sections (or a seeded sample of 4000 when they are larger than 16 KiB).
Comparison compare_with_oracle(const std::string& image_path, const PdbSymbolTable& table) {
  TempDir tmp;
  const PeImage image = read_pe(image_path);
  const PdbFunctions functions = pdbutil_functions(table.path(), image);
  std::set<std::uint32_t> rvas;
  for (const auto& [b, e] : functions.procs) rvas.insert(b);
  for (std::uint32_t p : functions.publics) rvas.insert(p);
  std::uint64_t exec_bytes = 0;
  for (const PeSection& s : image.sections)
    if (s.executable) exec_bytes += s.size;
  std::mt19937 random(20240601);
  for (const PeSection& s : image.sections) {
    if (!s.executable) continue;
    if (exec_bytes <= 16384) {
      for (std::uint32_t i = 0; i < s.size; ++i) rvas.insert(s.va + i);
    } else {
      std::uniform_int_distribution<std::uint32_t> pick(s.va, s.va + s.size - 1);
      const auto share = static_cast<std::size_t>(4000.0 * s.size / static_cast<double>(exec_bytes));
      for (std::size_t i = 0; i < share; ++i) rvas.insert(pick(random));
    }
  }
  const std::vector<std::uint32_t> list(rvas.begin(), rvas.end());
  const auto expected = oracle(image_path, list, tmp);
  Comparison c;
  std::vector<std::string> frames;
  for (std::size_t i = 0; i < list.size() && i < expected.size(); ++i) {
    const std::uint32_t rva = list[i];
    const auto& want = expected[i];
    const bool oracle_knows = !want.empty() && want.front() != "??" && !want.front().empty();
    bool in_proc = false;
    for (const auto& [b, e] : functions.procs) in_proc = in_proc || (rva >= b && rva < e);
    ++c.addresses;
    c.in_procs += in_proc;
    const bool mine = table.lookup(rva, frames);
    if (in_proc) {
      EXPECT_TRUE(mine) << std::hex << "rva 0x" << rva << " is inside a function; oracle: " << join(want);
    }
    if (!mine) {
      EXPECT_TRUE(frames.empty());
      if (oracle_knows) ++c.bounded; else ++c.both_unknown;
      continue;
    }
    ++c.resolved;
    EXPECT_TRUE(oracle_knows) << std::hex << "rva 0x" << rva << ": we say " << join(frames) << ", oracle nothing";
    if (!oracle_knows) continue;
    const bool ends = frames.front() == want.front() && frames.back() == want.back();
    EXPECT_TRUE(ends) << std::hex << "rva 0x" << rva << ": we say " << join(frames) << ", oracle " << join(want);
    c.agreed_ends += ends;
    c.agreed_chain += frames == want;
  }
  std::cout << "[ oracle   ] " << fs::path(image_path).filename().string() << ": " << c.addresses << " addresses ("
            << c.in_procs << " in functions), resolved " << c.resolved << ", innermost+outermost agree "
            << c.agreed_ends << ", whole chain agrees " << c.agreed_chain << ", left unresolved by the publics bound "
            << c.bounded << ", unknown to both " << c.both_unknown << "\n";
  return c;
}

// The fixture's PDB found through a symbol store in a temp dir, by the
// identity read from the image's RSDS record.
struct Loaded {
  TempDir store;
  PeImage image;
  std::unique_ptr<SymbolResolver> resolver;
  const PdbSymbolTable* table = nullptr;
};
std::unique_ptr<Loaded> load_from_store(const std::string& image_path, const std::string& pdb_path) {
  auto l = std::make_unique<Loaded>();
  l->image = read_pe(image_path);
  put_in_store(l->store.path(), l->image.rsds, pdb_path);
  l->resolver = std::make_unique<SymbolResolver>(std::vector<std::string>{l->store.path().string()});
  l->table = l->resolver->find(l->image.rsds);
  return l;
}

TEST(PdbIdentity, StoreKeyAndGuidText) {
  PdbIdentity id;
  const std::uint8_t bytes[16] = {0x87, 0x58, 0x7F, 0x96, 0x28, 0x8B, 0x12, 0x47,
                                  0x4C, 0x4C, 0x44, 0x20, 0x50, 0x44, 0x42, 0x2E};
  std::memcpy(id.guid.data(), bytes, 16);
  id.age = 1;
  id.pdb_name = "C:\\build\\out\\Foo.pdb";
  EXPECT_EQ(symbol_store_key(id), "967F58878B2847124C4C44205044422E1");
  EXPECT_EQ(guid_text(id.guid), "{967F5887-8B28-4712-4C4C-44205044422E}");
  EXPECT_EQ(pdb_base_name(id.pdb_name), "Foo.pdb");
  id.age = 0x1A;
  EXPECT_EQ(symbol_store_key(id), "967F58878B2847124C4C44205044422E1A");
}

TEST(PdbSymbolTable, IdentityMatchesTheImagesRsds) {
  for (const auto& [image, pdb] : std::vector<std::pair<std::string, std::string>>{
           {"full/heapdemo.exe", "full/heapdemo.pdb"},
           {"nested/nested.dll", "nested/nested.pdb"},
           {"cpp/cppdemo.exe", "cpp/cppdemo.pdb"},
           {"publics/heappub.exe", "publics/heappub.pdb"},
           {"many/many.exe", "many/many.pdb"}}) {
    const PeImage pe = read_pe(fixture(image));
    const PdbSymbolTable table(fixture(pdb));
    EXPECT_TRUE(table.identity().same_guid_and_age(pe.rsds)) << pdb << ": " << describe(table.identity()) << " vs "
                                                             << describe(pe.rsds);
    EXPECT_EQ(table.identity().pdb_name, pdb_base_name(pe.rsds.pdb_name));
  }
}

TEST(PdbSymbolTable, FullDebugExeMatchesOracle) {
  HEAPQL_SKIP_ON_WINDOWS("the oracle is llvm-symbolizer-14, a Linux program (the same reader is built for both: windows.same_json_as_linux compares names)");
  auto l = load_from_store(fixture("full/heapdemo.exe"), fixture("full/heapdemo.pdb"));
  ASSERT_NE(l->table, nullptr);
  EXPECT_GE(l->table->stats().procs, 4u);
  EXPECT_GE(l->table->stats().inline_sites, 2u);
  const Comparison c = compare_with_oracle(fixture("full/heapdemo.exe"), *l->table);
  EXPECT_GT(c.in_procs, 0u);
  EXPECT_EQ(c.agreed_ends, c.resolved);
}

TEST(PdbSymbolTable, DllWithNestedInliningMatchesOracle) {
  HEAPQL_SKIP_ON_WINDOWS("the oracle is llvm-symbolizer-14, a Linux program (the same reader is built for both: windows.same_json_as_linux compares names)");
  auto l = load_from_store(fixture("nested/nested.dll"), fixture("nested/nested.pdb"));
  ASSERT_NE(l->table, nullptr);
  const Comparison c = compare_with_oracle(fixture("nested/nested.dll"), *l->table);
  EXPECT_EQ(c.agreed_ends, c.resolved);
  // Somewhere a three-deep chain: bar_inl <- bar_mid <- BarExport (<- BarOther).
  bool three_deep = false;
  std::vector<std::string> frames;
  for (const auto& r : l->table->ranges()) {
    l->table->lookup(r.begin, frames);
    if (frames.size() >= 3 && frames[0] == "bar_inl" && frames[1] == "bar_mid") three_deep = true;
  }
  EXPECT_TRUE(three_deep);
}

TEST(PdbSymbolTable, CppNamesMatchOracle) {
  HEAPQL_SKIP_ON_WINDOWS("the oracle is llvm-symbolizer-14, a Linux program (the same reader is built for both: windows.same_json_as_linux compares names)");
  auto l = load_from_store(fixture("cpp/cppdemo.exe"), fixture("cpp/cppdemo.pdb"));
  ASSERT_NE(l->table, nullptr);
  const Comparison c = compare_with_oracle(fixture("cpp/cppdemo.exe"), *l->table);
  EXPECT_EQ(c.agreed_ends, c.resolved);
  std::set<std::string> names;
  std::vector<std::string> frames;
  for (const auto& r : l->table->ranges())
    if (l->table->lookup(r.begin, frames)) names.insert(frames.begin(), frames.end());
  EXPECT_TRUE(names.count("heap::Arena::grow(unsigned __int64)")) << ::testing::PrintToString(names);
}

TEST(PdbSymbolTable, ManyFunctionsMatchOracle) {
  HEAPQL_SKIP_ON_WINDOWS("the oracle is llvm-symbolizer-14, a Linux program (the same reader is built for both: windows.same_json_as_linux compares names)");
  auto l = load_from_store(fixture("many/many.exe"), fixture("many/many.pdb"));
  ASSERT_NE(l->table, nullptr);
  EXPECT_GE(l->table->stats().procs, 512u);
  const Comparison c = compare_with_oracle(fixture("many/many.exe"), *l->table);
  EXPECT_EQ(c.agreed_ends, c.resolved);
}

TEST(PdbSymbolTable, PublicsOnlyPdb) {
  HEAPQL_SKIP_ON_WINDOWS("the oracle is llvm-symbolizer-14, a Linux program (the same reader is built for both: windows.same_json_as_linux compares names)");
  auto l = load_from_store(fixture("publics/heappub.exe"), fixture("publics/heappub.pdb"));
  ASSERT_NE(l->table, nullptr);
  EXPECT_EQ(l->table->stats().procs, 0u);
  EXPECT_EQ(l->table->stats().inline_sites, 0u);
  EXPECT_GE(l->table->stats().publics, 3u);
  const Comparison c = compare_with_oracle(fixture("publics/heappub.exe"), *l->table);
  EXPECT_GT(c.resolved, 0u);
  EXPECT_EQ(c.agreed_ends, c.resolved);
  // Each frame is one public (no inline chain), and past the end of .text
  // nothing is claimed.
  std::vector<std::string> frames;
  for (const auto& r : l->table->ranges()) {
    ASSERT_TRUE(l->table->lookup(r.begin, frames));
    EXPECT_EQ(frames.size(), 1u);
  }
  const PeImage pe = read_pe(fixture("publics/heappub.exe"));
  for (const PeSection& s : pe.sections) {
    if (s.executable) {
      EXPECT_FALSE(l->table->lookup(s.va + ((s.size + 0xFFF) & ~0xFFFu) + 0x10, frames));
    }
  }
}

TEST(SymbolResolver, MismatchedPdbIsRejectedAndCounted) {
  const PeImage full = read_pe(fixture("full/heapdemo.exe"));
  const PeImage wrong = read_pe(fixture("wrong/heapdemo.exe"));
  ASSERT_FALSE(full.rsds.same_guid_and_age(wrong.rsds));
  ASSERT_EQ(pdb_base_name(full.rsds.pdb_name), pdb_base_name(wrong.rsds.pdb_name));
  TempDir store;
  TempDir flat;
  // The wrong PDB where the right one should be, in both layouts.
  put_in_store(store.path(), full.rsds, fixture("wrong/heapdemo.pdb"));
  fs::copy_file(fixture("wrong/heapdemo.pdb"), flat.path() / "heapdemo.pdb");
  SymbolResolver resolver({store.path().string(), flat.path().string()});
  EXPECT_EQ(resolver.find(full.rsds), nullptr);
  std::vector<std::string> frames;
  EXPECT_FALSE(resolver.resolve(full.rsds, 0x1000, frames));
  EXPECT_TRUE(frames.empty());
  EXPECT_EQ(resolver.stats().pdbs_mismatched, 1u);
  EXPECT_EQ(resolver.stats().pdbs_loaded, 0u);
  ASSERT_EQ(resolver.stats().mismatched.size(), 1u);
  EXPECT_NE(resolver.stats().mismatched[0].find("heapdemo.pdb"), std::string::npos);
  EXPECT_EQ(resolver.stats().lookups, 1u);
  EXPECT_EQ(resolver.stats().lookups_resolved, 0u);
  // ... while the wrong image's own identity finds it (flat folder).
  EXPECT_NE(resolver.find(wrong.rsds), nullptr);
  EXPECT_EQ(resolver.stats().pdbs_loaded, 1u);
}

TEST(SymbolResolver, MissingPdbIsCounted) {
  TempDir store;
  PdbIdentity id = read_pe(fixture("full/heapdemo.exe")).rsds;
  id.pdb_name = "absent.pdb";
  SymbolResolver resolver({store.path().string(), "/nonexistent/heapql/symbols"});
  EXPECT_EQ(resolver.find(id), nullptr);
  EXPECT_EQ(resolver.find(id), nullptr);  // cached: counted once
  EXPECT_EQ(resolver.stats().pdbs_missing, 1u);
  ASSERT_EQ(resolver.stats().missing.size(), 1u);
  EXPECT_NE(resolver.stats().missing[0].find("absent.pdb"), std::string::npos);
}

TEST(SymbolResolver, StoreLookupIgnoresCaseAndUsesTheCache) {
  PdbIdentity id = read_pe(fixture("full/heapdemo.exe")).rsds;
  TempDir store;
  std::string key = symbol_store_key(id);
  for (char& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  const fs::path dir = store.path() / "HEAPDEMO.PDB" / key;
  fs::create_directories(dir);
  fs::copy_file(fixture("full/heapdemo.pdb"), dir / "HeapDemo.Pdb");
  id.pdb_name = "C:\\build\\out\\heapdemo.pdb";
  SymbolResolver resolver({store.path().string()});
  const PdbSymbolTable* table = resolver.find(id);
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(resolver.find(id), table);
  EXPECT_EQ(resolver.stats().pdbs_loaded, 1u);
  std::vector<std::string> frames;
  EXPECT_TRUE(resolver.resolve(id, table->ranges().front().begin, frames));
  EXPECT_EQ(resolver.stats().lookups_resolved, 1u);
}

TEST(SymbolResolver, FlatFolderWorks) {
  const PdbIdentity id = read_pe(fixture("nested/nested.dll")).rsds;
  TempDir flat;
  fs::copy_file(fixture("nested/nested.pdb"), flat.path() / "nested.pdb");
  SymbolResolver resolver({flat.path().string()});
  EXPECT_NE(resolver.find(id), nullptr);
}

// A recipe's run (confined): a PDB is opened only as walked beneath its
// folder; a link there to one elsewhere counts as no PDB, whether or not
// its target exists, and a link that stays inside is followed.
TEST(SymbolResolver, ConfinedOpensNoPdbThroughALinkOut) {
  const PdbIdentity id = read_pe(fixture("nested/nested.dll")).rsds;
  TempDir flat;
  TempDir elsewhere;
  TempDir dangling;
  TempDir inside;
  Links links;  // after the folders: its links go before they do
  fs::copy_file(fixture("nested/nested.pdb"), elsewhere.path() / "nested.pdb");
  ASSERT_TRUE(links.make(elsewhere.file("nested.pdb"), flat.file("nested.pdb")));
  EXPECT_NE(SymbolResolver({flat.path().string()}).find(id), nullptr);  // not confined: followed
  SymbolResolver confined({flat.path().string()}, true);
  EXPECT_EQ(confined.find(id), nullptr);
  EXPECT_EQ(confined.stats().pdbs_missing, 1u);
  ASSERT_TRUE(links.make(elsewhere.file("absent.pdb"), dangling.file("nested.pdb")));
  SymbolResolver confined_dangling({dangling.path().string()}, true);
  EXPECT_EQ(confined_dangling.find(id), nullptr);
  EXPECT_EQ(confined_dangling.stats().pdbs_missing, 1u);  // the same answer
  fs::create_directory(inside.path() / "real");
  fs::copy_file(fixture("nested/nested.pdb"), inside.path() / "real" / "nested.pdb");
  ASSERT_TRUE(links.make("real/nested.pdb", inside.file("nested.pdb")));
  EXPECT_NE(SymbolResolver({inside.path().string()}, true).find(id), nullptr);
}

TEST(PdbSymbolTable, NotAPdbIsAnError) {
  TempDir tmp;
  test::write_file(tmp.file("fake.pdb"), "this is not a program database\n");
  try {
    PdbSymbolTable table(tmp.file("fake.pdb"));
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("fake.pdb"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not a PDB"), std::string::npos) << e.what();
  }
  EXPECT_THROW(PdbSymbolTable(tmp.file("absent.pdb")), Error);
  // The resolver counts such a file as unreadable.
  PdbIdentity id;
  id.pdb_name = "fake.pdb";
  SymbolResolver resolver({tmp.path().string()});
  EXPECT_EQ(resolver.find(id), nullptr);
  EXPECT_EQ(resolver.stats().pdbs_unreadable, 1u);
}

// Truncated and byte-flipped copies of a real PDB: each either loads or
// throws heapql::Error; nothing crashes, and lookups on what loaded are safe.
TEST(PdbSymbolTable, CorruptPdbsNeverCrash) {
  const std::string good = test::read_file(fixture("nested/nested.pdb"));
  TempDir tmp;
  const std::string path = tmp.file("nested.pdb");
  std::size_t loaded = 0;
  std::size_t refused = 0;
  auto attempt = [&](const std::string& bytes) {
    test::write_file(path, bytes);
    try {
      PdbSymbolTable table(path);
      std::vector<std::string> frames;
      for (std::uint32_t rva = 0; rva < 0x3000; rva += 7) table.lookup(rva, frames);
      ++loaded;
    } catch (const Error& e) {
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      ++refused;
    }
  };
  for (std::size_t size : {std::size_t{0}, std::size_t{31}, std::size_t{64}, std::size_t{4096}, std::size_t{8192},
                           good.size() / 2, good.size() - 4096, good.size() - 1})
    attempt(good.substr(0, size));
  std::mt19937 random(7);
  std::uniform_int_distribution<std::size_t> where(0, good.size() - 1);
  std::uniform_int_distribution<int> value(0, 255);
  for (int round = 0; round < 300; ++round) {
    std::string bytes = good;
    const int flips = round < 100 ? 1 : 16;
    for (int i = 0; i < flips; ++i) bytes[where(random)] = static_cast<char>(value(random));
    attempt(bytes);
  }
  std::cout << "[ corrupt  ] loaded " << loaded << ", refused with heapql::Error " << refused << "\n";
  EXPECT_GT(refused, 0u);
}

// The costs reported in docs/symbols.md (printed, loosely bounded).
TEST(PdbSymbolTable, BuildAndLookupCost) {
  const auto start = std::chrono::steady_clock::now();
  const PdbSymbolTable table(fixture("many/many.pdb"));
  const double build_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::vector<std::uint32_t> rvas;
  std::mt19937 random(11);
  const auto& ranges = table.ranges();
  ASSERT_FALSE(ranges.empty());
  std::uniform_int_distribution<std::uint32_t> pick(ranges.front().begin, ranges.back().end + 0x100);
  for (int i = 0; i < 200000; ++i) rvas.push_back(pick(random));
  std::vector<std::string> frames;
  std::size_t hits = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (std::uint32_t rva : rvas) hits += table.lookup(rva, frames);
  const double lookup_ns =
      std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / rvas.size();
  std::cout << "[ cost     ] many.pdb (" << table.stats().procs << " functions, " << table.stats().inline_sites
            << " inline sites, " << table.stats().publics << " publics, " << table.stats().ranges
            << " ranges): table built in " << build_ms << " ms; " << lookup_ns << " ns per lookup (" << hits << "/"
            << rvas.size() << " resolved)\n";
  EXPECT_LT(build_ms, 5000.0);
}

}  // namespace
}  // namespace heapql
