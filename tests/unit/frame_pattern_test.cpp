// Frame patterns: the three forms of semantics.md §5, case folding, globs,
// escapes and the unknown module.
#include "engine/query/frame_pattern.h"

#include <gtest/gtest.h>

#include <string>

#include "engine/error.h"

namespace heapql {
namespace {

bool matches(std::string_view pattern, std::string_view module, std::string_view symbol) {
  return FramePattern::parse(pattern).matches(module, symbol);
}

std::string parse_error(std::string_view pattern) {
  try {
    FramePattern::parse(pattern);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// semantics.md §5: `module!` is any frame in that module.
TEST(FramePattern, ModuleOnlyFormMatchesEveryFrameOfThatModule) {
  EXPECT_TRUE(matches("libc.so.6!", "libc.so.6", "malloc"));
  EXPECT_TRUE(matches("libc.so.6!", "libc.so.6", "0x1a2b"));
  EXPECT_FALSE(matches("libc.so.6!", "libc.so", "malloc"));
  EXPECT_FALSE(matches("libc.so.6!", "libc.so.6.1", "malloc"));
}

// semantics.md §5: `module!symbol` is that symbol in that module.
TEST(FramePattern, ModuleAndSymbolFormNeedsBoth) {
  EXPECT_TRUE(matches("ntdll.dll!RtlAllocateHeap", "ntdll.dll", "RtlAllocateHeap"));
  EXPECT_FALSE(matches("ntdll.dll!RtlAllocateHeap", "kernel32.dll", "RtlAllocateHeap"));
  EXPECT_FALSE(matches("ntdll.dll!RtlAllocateHeap", "ntdll.dll", "RtlFreeHeap"));
}

// semantics.md §5: `symbol` is that symbol in any module.
TEST(FramePattern, SymbolOnlyFormMatchesAnyModule) {
  EXPECT_TRUE(matches("malloc", "libc.so.6", "malloc"));
  EXPECT_TRUE(matches("malloc", "ucrtbase.dll", "malloc"));
  EXPECT_TRUE(matches("malloc", "?", "malloc"));
  EXPECT_FALSE(matches("malloc", "libc.so.6", "calloc"));
}

// semantics.md §5: the whole symbol, not a substring; a pattern without
// wildcards keeps exactly its plain meaning.
TEST(FramePattern, SymbolMatchesWholeNotSubstring) {
  EXPECT_FALSE(matches("malloc", "libc.so.6", "__libc_malloc"));
  EXPECT_FALSE(matches("malloc", "libc.so.6", "malloc_usable_size"));
  EXPECT_FALSE(matches("new", "libstdc++.so.6", "operator new(unsigned long)"));
  EXPECT_FALSE(matches("libc!", "libc.so.6", "malloc"));
}

TEST(FramePattern, MatchingIsCaseInsensitiveInBothParts) {
  EXPECT_TRUE(matches("NTDLL.DLL!rtlallocateheap", "ntdll.dll", "RtlAllocateHeap"));
  EXPECT_TRUE(matches("ntdll.dll!RtlAllocateHeap", "NTDLL.DLL", "RTLALLOCATEHEAP"));
  EXPECT_TRUE(matches("KernelBase.dll!", "KERNELBASE.dll", "VirtualAlloc"));
  EXPECT_TRUE(matches("Ntdll.Dll!Rtl*HEAP", "ntdll.dll", "RtlReAllocateHeap"));
}

TEST(FramePattern, StarMatchesAnyRunIncludingEmpty) {
  EXPECT_TRUE(matches("ntdll.dll!Rtl*Heap", "ntdll.dll", "RtlAllocateHeap"));
  EXPECT_TRUE(matches("ntdll.dll!Rtl*Heap", "ntdll.dll", "RtlHeap"));
  EXPECT_FALSE(matches("ntdll.dll!Rtl*Heap", "ntdll.dll", "RtlAllocateHeapInternal"));
  EXPECT_TRUE(matches("*alloc", "libc.so.6", "malloc"));
  EXPECT_TRUE(matches("*alloc", "libc.so.6", "alloc"));
  EXPECT_TRUE(matches("m*", "libc.so.6", "m"));
  EXPECT_TRUE(matches("*", "x", "anything"));
  EXPECT_TRUE(matches("*", "x", ""));
}

TEST(FramePattern, SeveralStarsNeedNoBacktrackingToBeRight) {
  EXPECT_TRUE(matches("*a*b*c*", "m", "xxaxxbxxcxx"));
  EXPECT_FALSE(matches("*a*b*c*", "m", "xxcxxbxxaxx"));
  EXPECT_TRUE(matches("a*ab", "m", "aab"));
  EXPECT_FALSE(matches("a*ab", "m", "ab"));  // the anchored parts must not overlap
  EXPECT_TRUE(matches("*ab*ab*", "m", "abab"));
  EXPECT_FALSE(matches("*ab*ab*", "m", "aba"));
  EXPECT_TRUE(matches("*aab", "m", "aaab"));
}

TEST(FramePattern, QuestionMarkMatchesExactlyOneCharacter) {
  EXPECT_TRUE(matches("?alloc", "libc.so.6", "malloc"));
  EXPECT_TRUE(matches("?alloc", "libc.so.6", "calloc"));
  EXPECT_FALSE(matches("?alloc", "libc.so.6", "alloc"));
  EXPECT_FALSE(matches("?alloc", "libc.so.6", "realloc"));
  EXPECT_TRUE(matches("*?c", "m", "ac"));
  EXPECT_FALSE(matches("*?c", "m", "c"));
}

TEST(FramePattern, GlobsWorkInTheModulePart) {
  EXPECT_TRUE(matches("libheaptrack_*.so!", "libheaptrack_preload.so", "malloc"));
  EXPECT_TRUE(matches("ucrtbase?.dll!malloc", "ucrtbased.dll", "malloc"));
  EXPECT_FALSE(matches("ucrtbase?.dll!malloc", "ucrtbase.dll", "malloc"));
  EXPECT_TRUE(matches("*!free", "libc.so.6", "free"));
  EXPECT_TRUE(matches("lib*.so*!malloc", "libc.so.6", "malloc"));
}

TEST(FramePattern, GlobsWorkInBothPartsAtOnce) {
  EXPECT_TRUE(matches("ntdll*!Rtl?Allocate*", "ntdll.dll", "RtlpAllocateHeapInternal"));
  EXPECT_FALSE(matches("ntdll*!Rtl?Allocate*", "kernel32.dll", "RtlpAllocateHeapInternal"));
}

TEST(FramePattern, CxxSymbolsWithPunctuationMatchLiterally) {
  EXPECT_TRUE(matches("operator new(unsigned long)", "libstdc++.so.6", "operator new(unsigned long)"));
  EXPECT_FALSE(matches("operator new(unsigned long)", "libstdc++.so.6", "operator new[](unsigned long)"));
  EXPECT_TRUE(matches("operator new[]", "app.exe", "operator new[]"));
  EXPECT_TRUE(matches("operator new[](*", "libstdc++.so.6", "operator new[](unsigned long, std::nothrow_t const&)"));
  EXPECT_TRUE(matches("operator new(*", "libstdc++.so.6", "operator new(unsigned long, std::align_val_t)"));
  EXPECT_FALSE(matches("operator new(*", "libstdc++.so.6", "operator new[](unsigned long)"));
  // A glob star also covers a `*` inside a parameter list.
  EXPECT_TRUE(matches("operator delete(*)", "libstdc++.so.6", "operator delete(void*)"));
  EXPECT_TRUE(matches("std::vector<int, std::allocator<int> >::*", "app", "std::vector<int, std::allocator<int> >::push_back(int const&)"));
}

TEST(FramePattern, BackslashEscapesWildcards) {
  EXPECT_TRUE(matches("f(char const\\*)", "m", "f(char const*)"));
  EXPECT_FALSE(matches("f(char const\\*)", "m", "f(char const&)"));
  EXPECT_FALSE(matches("f(char const\\*)", "m", "f(char const)"));
  EXPECT_TRUE(matches("what\\?", "m", "what?"));
  EXPECT_FALSE(matches("what\\?", "m", "whats"));
  EXPECT_TRUE(matches("back\\\\slash", "m", "back\\slash"));
  EXPECT_TRUE(matches("\\x", "m", "x"));  // any other escaped character stands for itself
}

TEST(FramePattern, EscapedBangDoesNotSplit) {
  EXPECT_TRUE(matches("fn() -> \\!", "librust.so", "fn() -> !"));
  EXPECT_FALSE(matches("fn() -> \\!", "fn() -> ", ""));
}

TEST(FramePattern, SplitIsAtTheFirstBang) {
  EXPECT_TRUE(matches("mod!fn() -> !", "mod", "fn() -> !"));
  EXPECT_FALSE(matches("mod!fn() -> !", "mod!fn() -> ", ""));
}

// semantics.md §1: a frame whose module is unknown renders as `?!0xADDRESS`.
// A module part of exactly `?` means that unknown module, as copied from a
// report; `\?!` says the same explicitly.
TEST(FramePattern, QuestionMarkModuleMeansTheUnknownModule) {
  EXPECT_TRUE(matches("?!", "?", "0x1f"));
  EXPECT_FALSE(matches("?!", "a", "0x1f"));
  EXPECT_TRUE(matches("?!0x1f", "?", "0x1f"));
  EXPECT_FALSE(matches("?!0x1f", "?", "0x1e"));
  EXPECT_TRUE(matches("\\?!", "?", "0x1f"));
  EXPECT_FALSE(matches("\\?!", "b", "0x1f"));
  // Elsewhere `?` keeps its glob meaning.
  EXPECT_TRUE(matches("?" "?!", "ab", "f"));  // split so it is no trigraph
  EXPECT_TRUE(matches("?!0x??", "?", "0x1f"));
}

TEST(FramePattern, UnknownSymbolsAreMatchableByTheirRenderedAddress) {
  EXPECT_TRUE(matches("libfoo.so!0x1a2b", "libfoo.so", "0x1a2b"));
  EXPECT_TRUE(matches("libfoo.so!0x*", "libfoo.so", "0x1a2b"));
  EXPECT_FALSE(matches("libfoo.so!0x*", "libfoo.so", "foo"));
}

TEST(FramePattern, TextKeepsWhatTheUserWrote) {
  EXPECT_EQ(FramePattern::parse("NTDLL.dll!Rtl*Heap").text(), "NTDLL.dll!Rtl*Heap");
  EXPECT_EQ(FramePattern::parse("f\\*").text(), "f\\*");
}

TEST(FramePattern, BadPatternsAreErrorsThatQuoteThePattern) {
  EXPECT_EQ(parse_error(""), "frame pattern '': empty pattern");
  EXPECT_EQ(parse_error("!"),
            "frame pattern '!': at column 1: expected a module name before '!' (write 'symbol' for any module)");
  EXPECT_EQ(parse_error("!malloc").substr(0, 37), "frame pattern '!malloc': at column 1:");
  EXPECT_EQ(parse_error("malloc\\"),
            "frame pattern 'malloc\\': at column 7: '\\' at the end escapes nothing (write '\\\\' for a backslash)");
  // Control bytes are quoted as \xNN so that a NUL cannot cut the message short.
  EXPECT_EQ(parse_error(std::string_view("ab\0c", 4)),
            "frame pattern 'ab\\x00c': at column 3: a NUL byte cannot be part of a pattern");
}

TEST(FramePattern, ModuleWithStarOnlyIsAnyModule) {
  EXPECT_TRUE(matches("*!malloc", "anything.dll", "malloc"));
  EXPECT_TRUE(matches("mod!*", "mod", "whatever"));
  EXPECT_FALSE(matches("mod!*", "other", "whatever"));
}

TEST(FramePatternSet, MatchesWhenAnyMemberMatches) {
  FramePatternSet set;
  EXPECT_TRUE(set.empty());
  EXPECT_FALSE(set.matches("libc.so.6", "malloc"));
  set.add(FramePattern::parse("malloc"));
  set.add(FramePattern::parse("ntdll.dll!"));
  EXPECT_EQ(set.size(), 2u);
  EXPECT_FALSE(set.empty());
  EXPECT_TRUE(set.matches("libc.so.6", "malloc"));
  EXPECT_TRUE(set.matches("ntdll.dll", "RtlAllocateHeap"));
  EXPECT_FALSE(set.matches("app", "main"));
}

TEST(FramePatternSet, AddAllAppendsInOrder) {
  FramePatternSet a;
  a.add(FramePattern::parse("a"));
  FramePatternSet b;
  b.add(FramePattern::parse("b"));
  b.add(FramePattern::parse("c!"));
  a.add_all(b);
  ASSERT_EQ(a.size(), 3u);
  EXPECT_EQ(a.patterns()[0].text(), "a");
  EXPECT_EQ(a.patterns()[1].text(), "b");
  EXPECT_EQ(a.patterns()[2].text(), "c!");
  EXPECT_TRUE(a.matches("c", "x"));
}

}  // namespace
}  // namespace heapql
