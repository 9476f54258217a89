// Host tests of Hopper's building blocks: the swizzle modes (tc/layouts/wgmma.hpp) as bijections with a bank model,
// the wgmma matrix descriptor against the ISA's "Matrix Descriptor Format" field by field, the base offset, the
// m64nNk16 accumulator map's coverage, the mbarrier ring (tc/layouts/mbarrier_ring.hpp) under a model of its phase
// rule, and the TMA map's argument rules (tc/tma.hpp).
#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc/tma.hpp"
#include "tc_test/catch.hpp"

#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace {
constexpr tc::Swizzle kModes[] = {tc::Swizzle::B32, tc::Swizzle::B64, tc::Swizzle::B128};

// The one-line problem that `rule` (tc::tma_2d_problem or tc::tma_problem) finds in `good` after `edit`; the test fails
// if it finds none, or one of more than one line.
template <typename Map, typename Rule, typename Edit>
std::string tma_problem_after(const Map& good, Rule rule, Edit edit) {
  Map t = good;
  edit(t);
  const auto p = rule(t);
  REQUIRE(p);
  CHECK(p->find('\n') == std::string::npos);
  return *p;
}
}

TEST_CASE("each swizzle mode is a bijection within its atom, its own inverse, and repeats every atom", "[hopper]") {
  for (tc::Swizzle s : kModes) {
    const std::uint32_t atom = std::uint32_t(tc::swizzle_repeat_bytes(s));
    std::set<std::uint32_t> images;
    for (std::uint32_t a = 0; a < atom; a += 16) {
      const std::uint32_t b = tc::swizzle_address(s, a);
      CHECK(b < atom);                               // stays in its atom
      CHECK(tc::swizzle_address(s, b) == a);         // XOR twice is the identity
      CHECK(tc::swizzle_address(s, a + 5) == b + 5);  // bytes inside a 16-byte chunk keep their place
      CHECK(tc::swizzle_address(s, a + 3 * atom) == b + 3 * atom);
      images.insert(b);
    }
    CHECK(images.size() == atom / 16);
  }
  CHECK(tc::swizzle_repeat_bytes(tc::Swizzle::B128) == 1024);
  CHECK(tc::swizzle_repeat_bytes(tc::Swizzle::B64) == 512);
  CHECK(tc::swizzle_repeat_bytes(tc::Swizzle::B32) == 256);
  // Worked example, 128B: row 1 (bits 7..9 = 1), chunk 1 (bits 4..6 = 1) lands in chunk 0 of row 1.
  CHECK(tc::swizzle_address(tc::Swizzle::B128, 1 * 128 + 1 * 16) == 1 * 128 + 0 * 16);
  CHECK(tc::swizzle_address(tc::Swizzle::B128, 7 * 128 + 2 * 16) == 7 * 128 + 5 * 16);
  CHECK(tc::swizzle_address(tc::Swizzle::None, 7 * 128 + 2 * 16) == 7 * 128 + 2 * 16);
}

TEST_CASE("bank model: one 16-byte chunk column across the 8 rows of an atom covers all 32 banks", "[hopper]") {
  for (tc::Swizzle s : kModes) {
    const int row_bytes = tc::swizzle_span_bytes(s);
    for (int chunk = 0; chunk < row_bytes / 16; ++chunk) {
      std::set<int> banks;
      for (int row = 0; row < 8; ++row) {
        const std::uint32_t a = tc::swizzle_address(s, std::uint32_t(row * row_bytes + chunk * 16));
        for (int word = 0; word < 4; ++word) banks.insert(int((a / 4 + word) % 32));
      }
      INFO("mode " << tc::swizzle_span_bytes(s) << "B, chunk column " << chunk);
      CHECK(banks.size() == 32);  // conflict-free: 8 threads reading this column touch every bank once
    }
  }
  // Without the swizzle, 128-byte rows put a chunk column in the same 4 banks 8 times over.
  std::set<int> plain;
  for (int row = 0; row < 8; ++row) plain.insert(int((row * 128 / 4) % 32));
  CHECK(plain.size() == 1);
}

TEST_CASE("the wgmma descriptor puts each field where the ISA's Matrix Descriptor Format says", "[hopper]") {
  auto only = [](tc::WgmmaDescriptorFields f) { return tc::encode_wgmma_descriptor(f); };
  CHECK(only({1024, 0, 0, 0, tc::Swizzle::None}) == 1024u >> 4);                             // bits 0-13
  CHECK(only({0, 16, 0, 0, tc::Swizzle::None}) == std::uint64_t(1) << 16);                   // bits 16-29
  CHECK(only({0, 0, 1024, 0, tc::Swizzle::None}) == std::uint64_t(64) << 32);                // bits 32-45
  CHECK(only({0, 0, 0, 5, tc::Swizzle::None}) == std::uint64_t(5) << 49);                    // bits 49-51
  CHECK(only({0, 0, 0, 0, tc::Swizzle::B128}) == std::uint64_t(1) << 62);                    // 1: 128B
  CHECK(only({0, 0, 0, 0, tc::Swizzle::B64}) == std::uint64_t(2) << 62);                     // 2: 64B
  CHECK(only({0, 0, 0, 0, tc::Swizzle::B32}) == std::uint64_t(3) << 62);                     // 3: 32B
  CHECK(only({(1u << 18) - 16, 0, 0, 0, tc::Swizzle::None}) == (1u << 14) - 1);              // the widest address
  // Worked example: chapter 07's A slice at shared address 0x2400, 128-byte rows in the 128B swizzle.
  const tc::WgmmaDescriptorFields a = tc::k_major_tile_descriptor(tc::Swizzle::B128, 0x2400, 128);
  CHECK(tc::encode_wgmma_descriptor(a) ==
        (std::uint64_t(1) << 62 | std::uint64_t(64) << 32 | std::uint64_t(1) << 16 | (0x2400 >> 4)));
  std::mt19937 rng(7);
  for (int i = 0; i < 1000; ++i) {
    const tc::WgmmaDescriptorFields f{std::uint32_t(rng() % (1u << 14)) << 4, std::uint32_t(rng() % (1u << 14)) << 4,
                                      std::uint32_t(rng() % (1u << 14)) << 4, int(rng() % 8),
                                      tc::Swizzle(int(rng() % 4))};
    const tc::WgmmaDescriptorFields g = tc::decode_wgmma_descriptor(tc::encode_wgmma_descriptor(f));
    CHECK(g.start_address == f.start_address);
    CHECK(g.leading_byte_offset == f.leading_byte_offset);
    CHECK(g.stride_byte_offset == f.stride_byte_offset);
    CHECK(g.base_offset == f.base_offset);
    CHECK(g.swizzle == f.swizzle);
  }
}

TEST_CASE("advancing a descriptor by an offset equals encoding the moved tile, over all of shared memory",
          "[hopper]") {
  // Chapter 08's slice loop encodes stage 0's descriptors once and adds: every 1024-byte tile base of the 227 KB an
  // H100/H200 block may have, every K step (32 bytes) and every later tile at a multiple of 1024 within it.
  constexpr std::uint32_t kShared = 227 * 1024;
  int checked = 0;
  for (std::uint32_t base = 0; base < kShared; base += 1024) {
    const std::uint64_t first = tc::encode_wgmma_descriptor(tc::k_major_tile_descriptor(tc::Swizzle::B128, base, 128));
    for (std::uint32_t offset = 0; base + offset + 96 < kShared; offset += 1024) {
      for (std::uint32_t kk = 0; kk < 4; ++kk) {
        const std::uint32_t moved = offset + 32 * kk;
        const std::uint64_t direct =
            tc::encode_wgmma_descriptor(tc::k_major_tile_descriptor(tc::Swizzle::B128, base + moved, 128));
        if (tc::advance_wgmma_descriptor(first, moved) != direct) FAIL("base " << base << " offset " << moved);
        ++checked;
      }
    }
  }
  CHECK(checked > 100000);
  // Past the field (2^18 bytes) the add would carry into the next field: the precondition is real.
  const std::uint64_t top =
      tc::encode_wgmma_descriptor(tc::k_major_tile_descriptor(tc::Swizzle::B128, (1u << 18) - 1024, 128));
  CHECK(tc::advance_wgmma_descriptor(top, 1024) !=
        tc::encode_wgmma_descriptor(tc::k_major_tile_descriptor(tc::Swizzle::B128, 0, 128)));
}

TEST_CASE("the base offset is 0 on an aligned pattern and (address >> 7) & 7 off it", "[hopper]") {
  CHECK(tc::wgmma_base_offset(tc::Swizzle::B128, 0x2400) == 0);  // a multiple of 1024
  CHECK(tc::wgmma_base_offset(tc::Swizzle::B128, 0x2400 + 3 * 128) == 3);
  CHECK(tc::wgmma_base_offset(tc::Swizzle::B64, 0x2200) == 0);  // a multiple of 512
  CHECK(tc::wgmma_base_offset(tc::Swizzle::B64, 0x2280) == 5);  // 0x2280 >> 7 = 0x45
  CHECK(tc::k_major_tile_descriptor(tc::Swizzle::B128, 0x2400 + 128, 128).base_offset == 1);
}

TEST_CASE("a tile base the kernels refuse: one off its swizzle repeat, which would need a base offset", "[hopper]") {
  CHECK(tc::wgmma_tile_base_problem(tc::Swizzle::B128, 0x2400) == nullptr);
  CHECK(tc::wgmma_tile_base_problem(tc::Swizzle::B64, 0x2200) == nullptr);
  CHECK(tc::wgmma_tile_base_problem(tc::Swizzle::None, 0x2410) == nullptr);  // no pattern: 16-byte alignment only
  for (auto [mode, address] : {std::pair{tc::Swizzle::B128, 0x2480u}, std::pair{tc::Swizzle::B64, 0x2280u},
                               std::pair{tc::Swizzle::B32, 0x2080u}, std::pair{tc::Swizzle::None, 0x2408u}}) {
    const char* problem = tc::wgmma_tile_base_problem(mode, address);
    REQUIRE(problem != nullptr);
    CHECK(std::string(problem).find('\n') == std::string::npos);
  }
  // The refused bases are exactly those whose descriptor would need a nonzero base offset (for 128-byte row steps).
  for (std::uint32_t address = 0; address < 4096; address += 128)
    CHECK((tc::wgmma_tile_base_problem(tc::Swizzle::B128, address) == nullptr) ==
          (tc::k_major_tile_descriptor(tc::Swizzle::B128, address, 128).base_offset == 0));
}

TEST_CASE("the m64nNk16 accumulator map covers its 64 x N tile once, 4 warps of 16 rows", "[hopper]") {
  for (int n : {64, 128, 256}) {
    std::vector<int> hits(std::size_t(64) * n, 0);
    for (int warp = 0; warp < 4; ++warp)
      for (int lane = 0; lane < 32; ++lane)
        for (int i = 0; i < n / 2; ++i) {
          const tc::Coord c = tc::wgmma_m64nNk16_d_coord(warp, lane, i);
          REQUIRE(c.row >= 16 * warp);
          REQUIRE(c.row < 16 * warp + 16);
          REQUIRE(c.col >= 0);
          REQUIRE(c.col < n);
          ++hits[std::size_t(c.row) * n + c.col];
        }
    for (int h : hits) CHECK(h == 1);
  }
  // Lane 5 (row 1, column pair 1) of warp 2: registers 0, 1 at row 33, columns 2, 3; register 2 eight rows down.
  CHECK(tc::wgmma_m64nNk16_d_coord(2, 5, 0) == tc::Coord{33, 2});
  CHECK(tc::wgmma_m64nNk16_d_coord(2, 5, 1) == tc::Coord{33, 3});
  CHECK(tc::wgmma_m64nNk16_d_coord(2, 5, 2) == tc::Coord{41, 2});
  CHECK(tc::wgmma_m64nNk16_d_coord(2, 5, 4) == tc::Coord{33, 10});
}

TEST_CASE("the mbarrier ring: no stage overwritten before release, no wait on a phase that cannot come",
          "[hopper][ring]") {
  CHECK(tc::ring_slot(0, 4).stage == 0);
  CHECK(tc::ring_slot(5, 4).stage == 1);
  CHECK(tc::ring_slot(5, 4).parity == 1);
  CHECK(tc::ring_slot(9, 4).parity == 0);
  CHECK(tc::ring_empty_wait_parity(2, 4) == 1);  // the first round passes on a fresh barrier
  CHECK(tc::MbarrierModel(2).try_wait_parity(1));
  CHECK_FALSE(tc::MbarrierModel(2).try_wait_parity(0));
  for (int stages : {1, 2, 3, 4, 6})
    for (int consumers : {1, 2})
      for (unsigned seed = 0; seed < 50; ++seed) {
        INFO("stages " << stages << ", consumers " << consumers << ", seed " << seed);
        CHECK(tc::simulate_ring(stages, consumers, 3 * stages + 2, seed, tc::ring_full_parity,
                                tc::ring_empty_wait_parity));
        // The model can fail: a producer waiting on "empty" for the tile's own parity stalls the first round.
        CHECK_FALSE(tc::simulate_ring(stages, consumers, 3 * stages + 2, seed, tc::ring_full_parity,
                                      tc::ring_full_parity));
      }
}

TEST_CASE("the empty-barrier parity is the previous phase's: the current one would stall the first round",
          "[hopper][ring]") {
  // A producer that waited on a fresh "empty" barrier for the slice's own parity would wait for a release that no
  // consumer can make yet: the kernel would hang before its first load.
  tc::MbarrierModel empty(1);
  CHECK_FALSE(empty.try_wait_parity(tc::ring_slot(0, 4).parity));
  CHECK(empty.try_wait_parity(tc::ring_empty_wait_parity(0, 4)));
}

TEST_CASE("the TMA map's rules, each with its one-line error", "[hopper][tma]") {
  alignas(16) static unsigned char buffer[64];
  const tc::Tma2d good{buffer, 2, 8192, 8192, 8192 * 2, 64, 128, tc::Swizzle::B128};
  CHECK_FALSE(tc::tma_2d_problem(good));
  auto problem = [&](auto edit) { return tma_problem_after(good, tc::tma_2d_problem, edit); };
  CHECK(problem([](tc::Tma2d& t) { t.box_rows = 257; }) == "TMA box rows is 257 elements; it must be 1..256");
  CHECK(problem([](tc::Tma2d& t) { t.box_inner = 0; }) == "TMA box inner dimension is 0 elements; it must be 1..256");
  CHECK(problem([](tc::Tma2d& t) { t.box_inner = 12; }) ==
        "TMA box inner dimension is 24 bytes; it must be a multiple of 16");
  CHECK(problem([](tc::Tma2d& t) { t.box_inner = 128; }) ==
        "TMA box inner dimension is 256 bytes; the 128-byte swizzle holds at most 128");
  CHECK(problem([](tc::Tma2d& t) { t.row_stride_bytes = 8190 * 2; }).find("multiple of 16") != std::string::npos);
  CHECK(problem([](tc::Tma2d& t) { t.base = buffer + 8; }) == "TMA base address must be 16-byte aligned");
  CHECK(problem([](tc::Tma2d& t) { t.rows = 0; }) == "TMA dimension 0 is outside 1..2^32");
  CHECK(problem([](tc::Tma2d& t) { t.row_stride_bytes = 1024; }) ==
        "TMA row stride 1024 bytes is shorter than a row");
  tc::Tma2d unswizzled = good;
  unswizzled.swizzle = tc::Swizzle::None;
  unswizzled.box_inner = 256;
  CHECK_FALSE(tc::tma_2d_problem(unswizzled));  // no swizzle: only the 256-element box limit applies
}

TEST_CASE("a K-major descriptor addresses each element where TMA put it", "[hopper][wgmma]") {
  // TMA writes a box of `rows` rows of one span each, row after row, under the swizzle: element (mn, k) at byte
  // mn * span + k * e of the tile, swizzled. The descriptor's model must read it from there.
  for (tc::Swizzle s : kModes) {
    const int span = tc::swizzle_span_bytes(s);
    const std::uint32_t tile = 3 * 1024;  // on every mode's repeat
    const tc::WgmmaDescriptorFields f = tc::k_major_tile_descriptor(s, tile, span);
    CHECK(f.stride_byte_offset == std::uint32_t(8 * span));
    for (int e : {1, 2}) {
      int differ = 0;
      for (int mn = 0; mn < 128; ++mn)
        for (int k = 0; k < span / e; ++k)
          differ += tc::wgmma_operand_address(f, tc::WgmmaMajor::K, e, mn, k) !=
                    tc::swizzle_address(s, tile + std::uint32_t(mn * span + k * e));
      INFO("K-major, " << span << "B, " << e << "-byte elements");
      CHECK(differ == 0);
    }
  }
}

TEST_CASE("an MN-major descriptor: LBO steps between panels of M or N, SBO between groups of 8 k", "[hopper][wgmma]") {
  // V of attention, [keys][head_dim] with head_dim contiguous, is B of P V in MN-major form. TMA loads it in panels
  // of one span of head_dim (64 16-bit columns in 128B) by `keys` rows: element (n, k) at byte
  // (n / cols) * panel + k * span + (n % cols) * 2 of the tile, swizzled, with cols = span / 2.
  for (tc::Swizzle s : kModes) {
    const int span = tc::swizzle_span_bytes(s), cols = span / 2, keys = 32, n_total = 4 * cols;
    const std::uint32_t tile = 2 * 1024, panel = std::uint32_t(keys * span);
    const tc::WgmmaDescriptorFields f = tc::mn_major_tile_descriptor(s, tile, panel);
    CHECK(f.leading_byte_offset == panel);
    CHECK(f.stride_byte_offset == std::uint32_t(8 * span));
    CHECK(tc::decode_wgmma_descriptor(tc::encode_wgmma_descriptor(f)).leading_byte_offset == panel);
    auto tma_place = [&](int n, int k) {
      return tc::swizzle_address(s, tile + std::uint32_t(n / cols) * panel + std::uint32_t(k * span + (n % cols) * 2));
    };
    int differ = 0, differ_swapped = 0;
    tc::WgmmaDescriptorFields swapped = f;
    std::swap(swapped.leading_byte_offset, swapped.stride_byte_offset);
    for (int n = 0; n < n_total; ++n) {
      for (int k = 0; k < keys; ++k) {
        differ += tc::wgmma_operand_address(f, tc::WgmmaMajor::MN, 2, n, k) != tma_place(n, k);
        differ_swapped += tc::wgmma_operand_address(swapped, tc::WgmmaMajor::MN, 2, n, k) != tma_place(n, k);
      }
    }
    INFO("MN-major, " << span << "B");
    CHECK(differ == 0);
    CHECK(differ_swapped > 0);  // the two offsets are not interchangeable: the check can fail
    // Stepping K by one instruction (16 k) is a move of the start address by 16 rows of the span.
    const tc::WgmmaDescriptorFields next = tc::decode_wgmma_descriptor(
        tc::advance_wgmma_descriptor(tc::encode_wgmma_descriptor(f), std::uint32_t(16 * span)));
    int differ_next = 0;
    for (int n = 0; n < n_total; ++n)
      for (int k = 0; k < 16; ++k)
        differ_next += tc::wgmma_operand_address(next, tc::WgmmaMajor::MN, 2, n, k) != tma_place(n, 16 + k);
    CHECK(differ_next == 0);
  }
}

TEST_CASE("wgmma's register A covers the 64 x 16 slice once, and an accumulator is the next A", "[hopper][wgmma]") {
  std::set<std::pair<int, int>> seen;
  for (int warp = 0; warp < 4; ++warp)
    for (int lane = 0; lane < 32; ++lane)
      for (int i = 0; i < 8; ++i) {
        const tc::Coord c = tc::wgmma_m64nNk16_a_coord(warp, lane, i);
        CHECK((c.row >= 16 * warp && c.row < 16 * warp + 16 && c.col >= 0 && c.col < 16));
        seen.insert({c.row, c.col});
      }
  CHECK(seen.size() == 64 * 16);
  // Packed pairs are neighbours along K, as mma.sync's A: one 32-bit register holds (row, k) and (row, k + 1).
  for (int lane = 0; lane < 32; ++lane)
    for (int j = 0; j < 4; ++j) {
      const tc::Coord lo = tc::wgmma_m64nNk16_a_coord(1, lane, 2 * j);
      const tc::Coord hi = tc::wgmma_m64nNk16_a_coord(1, lane, 2 * j + 1);
      CHECK((hi.row == lo.row && hi.col == lo.col + 1));
    }
  static_assert(tc::wgmma_accumulator_is_next_a(), "D's registers 8j..8j+7 are the A fragment of k-slice j");
  CHECK(tc::wgmma_accumulator_is_next_a());
}

TEST_CASE("TMA maps of rank 3 and 4: the rules per dimension, each with its one-line error", "[hopper][tma]") {
  alignas(16) static unsigned char buffer[64];
  // [batch 2, seqlen 4096, heads 8, head_dim 128] bf16 read in place: dims (128, 4096, 8, 2).
  tc::TmaTensor good;
  good.base = buffer;
  good.element_bytes = 2;
  good.rank = 4;
  good.dims = {128, 4096, 8, 2};
  good.strides_bytes = {8 * 128 * 2, 128 * 2, 4096ull * 8 * 128 * 2};
  good.box = {64, 128, 1, 1};
  good.swizzle = tc::Swizzle::B128;
  CHECK_FALSE(tc::tma_problem(good));
  tc::TmaTensor rank3 = good;
  rank3.rank = 3;
  CHECK_FALSE(tc::tma_problem(rank3));
  auto problem = [&](auto edit) { return tma_problem_after(good, tc::tma_problem, edit); };
  CHECK(problem([](tc::TmaTensor& t) { t.rank = 6; }) == "TMA rank is 6; it must be 1..5");
  CHECK(problem([](tc::TmaTensor& t) { t.rank = 0; }) == "TMA rank is 0; it must be 1..5");
  CHECK(problem([](tc::TmaTensor& t) { t.box[2] = 0; }) == "TMA box dimension 2 is 0 elements; it must be 1..256");
  CHECK(problem([](tc::TmaTensor& t) { t.box[3] = 300; }) ==
        "TMA box dimension 3 is 300 elements; it must be 1..256");
  CHECK(problem([](tc::TmaTensor& t) { t.strides_bytes[1] = 100; }).find("TMA stride of dimension 2 is 100 bytes") ==
        0);
  CHECK(problem([](tc::TmaTensor& t) { t.strides_bytes[2] = std::uint64_t(1) << 40; })
            .find("TMA stride of dimension 3 is") == 0);
  CHECK(problem([](tc::TmaTensor& t) { t.dims[3] = 0; }) == "TMA dimension 0 is outside 1..2^32");
  CHECK(problem([](tc::TmaTensor& t) { t.strides_bytes[0] = 128; }) ==
        "TMA row stride 128 bytes is shorter than a row");
  // Dimensions past the rank are not read: a rank-2 map ignores what dims[2..] and box[2..] hold.
  tc::TmaTensor rank2 = good;
  rank2.rank = 2;
  rank2.box[2] = 0;
  rank2.dims[3] = 0;
  CHECK_FALSE(tc::tma_problem(rank2));
  // Tma2d is the rank-2 case, with the same rules and messages.
  const tc::Tma2d matrix{buffer, 2, 4096, 4096, 8192, 64, 128, tc::Swizzle::B128};
  const tc::TmaTensor as = tc::as_tensor(matrix);
  CHECK((as.rank == 2 && as.dims[0] == 4096 && as.dims[1] == 4096 && as.strides_bytes[0] == 8192 && as.box[0] == 64 &&
         as.box[1] == 128));
}
