// Cull list files (semantics.md §5) and the built-in default list (§6),
// including that docs/default-cull-list.md lists exactly the built-in patterns.
#include "engine/query/cull_list.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "engine/error.h"

namespace heapql {
namespace {

std::vector<std::string> texts_of(const FramePatternSet& set) {
  std::vector<std::string> result;
  for (const FramePattern& p : set.patterns()) result.push_back(p.text());
  return result;
}

// semantics.md §5: blank lines and `#` lines are ignored, white space trimmed.
TEST(CullList, SkipsBlankAndCommentLinesAndTrims) {
  FramePatternSet set = parse_cull_list(
      "# allocator frames\n"
      "\n"
      "   \t\n"
      "  malloc  \n"
      "\t# indented comment\n"
      "ntdll.dll!RtlAllocateHeap\r\n"
      "operator new(unsigned long)\n"
      "  mylib.dll!My*Alloc",
      "cull.txt");
  EXPECT_EQ(texts_of(set),
            (std::vector<std::string>{"malloc", "ntdll.dll!RtlAllocateHeap", "operator new(unsigned long)",
                                      "mylib.dll!My*Alloc"}));
  EXPECT_TRUE(set.matches("mylib.dll", "MyPoolAlloc"));
}

TEST(CullList, HashInsideAPatternIsNotAComment) {
  FramePatternSet set = parse_cull_list("app!f#1\n", "cull.txt");
  EXPECT_EQ(texts_of(set), std::vector<std::string>{"app!f#1"});
}

TEST(CullList, EmptyTextGivesEmptySet) {
  EXPECT_TRUE(parse_cull_list("", "cull.txt").empty());
  EXPECT_TRUE(parse_cull_list("\n\n# nothing\n", "cull.txt").empty());
}

TEST(CullList, ByteOrderMarkIsSkipped) {
  FramePatternSet set = parse_cull_list("\xEF\xBB\xBFmalloc\n", "cull.txt");
  EXPECT_EQ(texts_of(set), std::vector<std::string>{"malloc"});
}

TEST(CullList, BadPatternNamesFileAndLine) {
  try {
    parse_cull_list("malloc\n# comment\n\n  !oops\nfree\n", "crt.txt");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().file, "crt.txt");
    ASSERT_TRUE(e.where().line.has_value());
    EXPECT_EQ(*e.where().line, 4u);
    EXPECT_EQ(std::string(e.what()).substr(0, 39), "crt.txt:4: frame pattern '!oops': at co");
  }
}

TEST(CullList, TrailingBackslashLineIsAnError) {
  try {
    parse_cull_list("malloc\nfoo\\\n", "x.txt");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(*e.where().line, 2u);
  }
}

class CullListFile : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = ::testing::TempDir() + "heapql_cull_list_test_" + std::to_string(::getpid()) + ".txt";
  }
  void TearDown() override { std::remove(path_.c_str()); }
  void write(const std::string& text) {
    std::ofstream out(path_, std::ios::binary);
    out << text;
  }
  std::string path_;
};

TEST_F(CullListFile, ReadsPatternsFromAFile) {
  write("# mine\nmylib.dll!MyAlloc\n\nmylib.dll!MyRealloc\n");
  FramePatternSet set = read_cull_list(path_);
  EXPECT_EQ(texts_of(set), (std::vector<std::string>{"mylib.dll!MyAlloc", "mylib.dll!MyRealloc"}));
}

TEST_F(CullListFile, BadLineInAFileNamesThePathAndLine) {
  write("ok\n!\n");
  try {
    read_cull_list(path_);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().file, path_);
    EXPECT_EQ(*e.where().line, 2u);
  }
}

TEST(CullListMissingFile, IsAnErrorNamingTheFile) {
  const std::string path = "/nonexistent/heapql/cull.txt";
  try {
    read_cull_list(path);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.where().file, path);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
    EXPECT_NE(e.message().find("cannot open cull list"), std::string::npos);
  }
}

// semantics.md §6: the default list covers each platform's allocator entry
// points and the tracer's own frames, and nothing of the application.
TEST(DefaultCullList, CullsAllocatorFrames) {
  const FramePatternSet& d = default_cull_patterns();
  EXPECT_TRUE(d.matches("libc.so.6", "malloc"));
  EXPECT_TRUE(d.matches("libc.so.6", "calloc"));
  EXPECT_TRUE(d.matches("libc.so.6", "realloc"));
  EXPECT_TRUE(d.matches("libc.so.6", "posix_memalign"));
  EXPECT_TRUE(d.matches("libc.so.6", "aligned_alloc"));
  EXPECT_TRUE(d.matches("libc.so.6", "free"));
  EXPECT_TRUE(d.matches("libstdc++.so.6", "operator new(unsigned long)"));
  EXPECT_TRUE(d.matches("libstdc++.so.6", "operator new[](unsigned long)"));
  EXPECT_TRUE(d.matches("libstdc++.so.6", "operator new(unsigned long, std::align_val_t)"));
  EXPECT_TRUE(d.matches("libstdc++.so.6", "operator new[](unsigned long, std::nothrow_t const&)"));
  EXPECT_TRUE(d.matches("libstdc++.so.6", "operator new(unsigned long, std::align_val_t, std::nothrow_t const&)"));
  EXPECT_TRUE(d.matches("libheaptrack_preload.so", "heaptrack_malloc"));
  EXPECT_TRUE(d.matches("libheaptrack_inject.so", "0x1a2b"));
  EXPECT_TRUE(d.matches("ntdll.dll", "RtlAllocateHeap"));
  EXPECT_TRUE(d.matches("ntdll.dll", "RtlReAllocateHeap"));
  EXPECT_TRUE(d.matches("ntdll.dll", "RtlpAllocateHeapInternal"));
  EXPECT_TRUE(d.matches("ucrtbase.dll", "_malloc_base"));
  EXPECT_TRUE(d.matches("ucrtbase.dll", "malloc"));
  EXPECT_TRUE(d.matches("msvcrt.dll", "realloc"));
  EXPECT_TRUE(d.matches("ucrtbased.dll", "_malloc_dbg"));
  EXPECT_TRUE(d.matches("ucrtbased.dll", "heap_alloc_dbg_internal"));
  EXPECT_TRUE(d.matches("myapp.exe", "operator new"));
  EXPECT_TRUE(d.matches("myapp.exe", "operator new[]"));
  EXPECT_TRUE(d.matches("KernelBase.dll", "VirtualAlloc"));
}

TEST(DefaultCullList, KeepsApplicationFrames) {
  const FramePatternSet& d = default_cull_patterns();
  EXPECT_FALSE(d.matches("app", "main"));
  EXPECT_FALSE(d.matches("app", "std::vector<int>::push_back"));
  EXPECT_FALSE(d.matches("app", "std::vector<int, std::allocator<int> >::push_back(int const&)"));
  EXPECT_FALSE(d.matches("libc.so.6", "__libc_start_main"));
  EXPECT_FALSE(d.matches("libc.so.6", "strdup"));
  EXPECT_FALSE(d.matches("app", "my_malloc_wrapper"));
  EXPECT_FALSE(d.matches("app", "operator delete(void*)"));
  EXPECT_FALSE(d.matches("ntdll.dll", "RtlUserThreadStart"));
  EXPECT_FALSE(d.matches("kernel32.dll", "BaseThreadInitThunk"));
  EXPECT_FALSE(d.matches("?", "0x1f"));
}

TEST(DefaultCullList, TextsAndPatternsAgree) {
  const std::vector<std::string>& texts = default_cull_pattern_texts();
  EXPECT_EQ(texts, texts_of(default_cull_patterns()));
  ASSERT_EQ(texts.size(), default_cull_entries().size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    EXPECT_EQ(texts[i], default_cull_entries()[i].pattern);
    EXPECT_FALSE(default_cull_entries()[i].why.empty()) << texts[i];
  }
}

// The doc cannot drift: its code block is the list, and each entry has its
// one-line reason.
TEST(DefaultCullList, DocumentListsExactlyTheBuiltInPatterns) {
  const std::string path = std::string(HEAPQL_SOURCE_DIR) + "/docs/default-cull-list.md";
  std::ifstream in(path);
  ASSERT_TRUE(in) << "cannot open " << path;
  std::vector<std::string> block;
  std::vector<std::string> reasons;
  std::string line;
  bool in_block = false;
  bool block_done = false;
  while (std::getline(in, line)) {
    if (!block_done && line.starts_with("```")) {
      if (in_block) block_done = true;
      in_block = !in_block;
      continue;
    }
    if (in_block) {
      block.push_back(line);
    } else if (line.starts_with("- `")) {
      reasons.push_back(line);
    }
  }
  EXPECT_EQ(block, default_cull_pattern_texts());
  std::vector<std::string> expected_reasons;
  for (const DefaultCullEntry& entry : default_cull_entries()) {
    expected_reasons.push_back("- `" + std::string(entry.pattern) + "`: " + std::string(entry.why));
  }
  EXPECT_EQ(reasons, expected_reasons);
}

}  // namespace
}  // namespace heapql
