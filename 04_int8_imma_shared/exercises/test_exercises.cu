// Chapter 04's graded exercises (README, "Workshop mode"), both host-checked: the bank of a byte against values read
// off the banking rule, and the skew through the bank calculator on an 8-bit fragment load's row addresses.
#if TC_EXERCISE_SOLUTIONS
#include "exercises/solutions.hpp"
#else
#include "exercises/ex1_bank.hpp"
#include "exercises/ex2_skew.hpp"
#endif

#include "tc/layouts/smem_banks.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/exercise.hpp"

#include <cstdint>
#include <set>

namespace {

// Extra wavefronts of one 16 x 16 s8 fragment load at line `first` of lines ld_bytes apart.
int fragment_conflicts(int first, int ld_bytes) {
  return tc::ldmatrix_cost(tc::wmma_8bit_fragment_rows(std::int64_t(first) * ld_bytes, ld_bytes)).conflicts;
}

}  // namespace

TEST_CASE("exercise 04.1: the bank of a byte address", "[exercise]") {
  tc::exercise::grade([] {
    struct Case {
      std::int64_t address;
      int bank;
    };
    // 4 bytes per bank, 32 banks, then around again: byte 128 is bank 0, and every byte of a word shares its bank.
    for (const Case& c : {Case{0, 0}, Case{3, 0}, Case{4, 1}, Case{124, 31}, Case{127, 31}, Case{128, 0},
                          Case{132, 1}, Case{4100, 1}, Case{80 * 7 + 16, 16}}) {
      INFO("byte " << c.address << ": expected bank " << c.bank << ", got " << ex04_1::bank_of(c.address));
      REQUIRE(ex04_1::bank_of(c.address) == c.bank);
    }
    std::set<int> banks;  // 32 consecutive words: every bank once
    for (int word = 0; word < 32; ++word) banks.insert(ex04_1::bank_of(4 * (word + 32 * 5)));
    REQUIRE(banks.size() == 32);
  });
}

TEST_CASE("exercise 04.2: the skew that makes 8-bit fragment loads conflict-free", "[exercise]") {
  tc::exercise::grade([] {
    const int skew = ex04_2::skew_bytes();
    INFO("skew " << skew << " bytes, ld " << ex04_2::kLineDataBytes + skew << " bytes");
    REQUIRE(skew >= 0);
    REQUIRE(skew % 16 == 0);  // every line 16-byte aligned
    const int ld = ex04_2::kLineDataBytes + skew;
    for (int first = 0; first < 128; first += 16) REQUIRE(fragment_conflicts(first, ld) == 0);
    for (int smaller = 0; smaller < skew; smaller += 16) {  // and no smaller aligned skew would do
      INFO("skew " << smaller << " is smaller and also conflict-free");
      REQUIRE(fragment_conflicts(0, ex04_2::kLineDataBytes + smaller) > 0);
    }
  });
}
