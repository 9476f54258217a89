// Workshop mode: what the exercise stubs and their tests share (README, "Workshop mode").
//
// A host exercise's stub calls tc::exercise::todo("NN.M", file) where the learner's code goes. todo() throws
// tc::exercise::NotDone, and tc::exercise::grade() turns that into one failed check whose message says which file
// to open and where the hints are, so an untouched stub fails with directions, not with a wrong number. A GPU
// exercise's stub kernel simply leaves its output unwritten; its test poisons the output first, so the comparison
// with the reference fails, and the test's message carries the same directions (tc::exercise::where()).
// The graders assert with REQUIRE, not CHECK, and walk their cases from the smallest up: a wrong answer stops at the
// first, smallest failing case with one message, instead of repeating the same failure for every case after it.
// Errors: todo() always throws NotDone; grade() rethrows nothing (Catch2 reports any other exception).
#pragma once

#include "tc_test/catch.hpp"

#include <stdexcept>
#include <string>

namespace tc::exercise {

struct NotDone : std::logic_error {
  using std::logic_error::logic_error;
};

// Directions for exercise `id` ("05.1") of the chapter whose doc is docs/<doc>.md, whose stub is `file`.
inline std::string where(const std::string& id, const std::string& file, const std::string& doc) {
  return "exercise " + id + ": edit the TODO in " + file + "; hints: docs/" + doc + ".md, \"Exercise " + id + "\"";
}

[[noreturn]] inline void todo(const std::string& id, const std::string& file, const std::string& doc) {
  throw NotDone("not done yet -- " + where(id, file, doc));
}

// Runs the checks in `body`, reporting an untouched stub as one failure with its directions.
template <typename F>
void grade(F&& body) {
  try {
    body();
  } catch (const NotDone& e) {
    FAIL(e.what());
  }
}

}  // namespace tc::exercise
