// docs/tools/unified_diff.hpp against what `diff -u` prints for the same inputs (GNU diffutils; the expected hunks
// below were printed by it), so that a walkthrough's step diffs read as any diff does.
#include "unified_diff.hpp"

#include "tc_test/catch.hpp"

#include <string>
#include <vector>

using Lines = std::vector<std::string>;

TEST_CASE("unified_diff prints diff -u's hunks: separate changes, an appended line, context at the edges", "[diff]") {
  const Lines old_lines = {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l", "m"};
  Lines new_lines = old_lines;
  new_lines[1] = "B";
  new_lines.push_back("n");
  const Lines expected = {"--- old", "+++ new", "@@ -1,5 +1,5 @@", " a", "-b", "+B", " c", " d", " e",
                          "@@ -11,3 +11,4 @@", " k", " l", " m", "+n"};
  const Lines diff = docs_tools::unified_diff("old", old_lines, "new", new_lines);
  CHECK(diff == expected);
  CHECK(docs_tools::changed_lines(diff) == 3);
}

TEST_CASE("unified_diff merges changes 2 x context or fewer lines apart into one hunk", "[diff]") {
  // 5 kept lines between the two changes, fewer than 2 x 3: one hunk, as diff -u prints it.
  const Lines diff = docs_tools::unified_diff("o", {"a", "b", "c", "d", "e", "f", "g", "h"}, "n",
                                              {"a", "X", "c", "d", "e", "f", "g", "Y"});
  CHECK(diff == Lines{"--- o", "+++ n", "@@ -1,8 +1,8 @@", " a", "-b", "+X", " c", " d", " e", " f", " g", "-h",
                      "+Y"});
}

TEST_CASE("unified_diff numbers insertions into an empty range as diff -u does, and says nothing for equal inputs",
          "[diff]") {
  CHECK(docs_tools::unified_diff("o", {"x", "y"}, "n", {"x", "z", "y"}) ==
        Lines{"--- o", "+++ n", "@@ -1,2 +1,3 @@", " x", "+z", " y"});
  CHECK(docs_tools::unified_diff("o", {}, "n", {"x", "y"}) == Lines{"--- o", "+++ n", "@@ -0,0 +1,2 @@", "+x", "+y"});
  // A range of one line is its first line alone, as diff -u writes it; with no context, a change is its own hunk.
  CHECK(docs_tools::unified_diff("o", {"a"}, "n", {"b"}) == Lines{"--- o", "+++ n", "@@ -1 +1 @@", "-a", "+b"});
  CHECK(docs_tools::unified_diff("o", {"a", "b", "c"}, "n", {"a", "B", "c"}, 0) ==
        Lines{"--- o", "+++ n", "@@ -2 +2 @@", "-b", "+B"});
  CHECK(docs_tools::unified_diff("o", {"x"}, "n", {"x"}).empty());
  // A removed line that itself starts with "--" still counts as one changed line.
  CHECK(docs_tools::changed_lines(docs_tools::unified_diff("o", {"-- x", "y"}, "n", {"y"})) == 1);
}
