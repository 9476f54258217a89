// Chapter 07's graded exercises (README, "Workshop mode"), host-checked with the tutorial's own tools: the descriptor
// against the fields of tc::k_major_tile_descriptor (tc/layouts/wgmma.hpp), the ring's parities by running the
// mbarrier ring model (tc::simulate_ring, tc/layouts/mbarrier_ring.hpp) with them. CUDA source only because the
// solutions are the chapter's own .cuh code; nothing here runs on a GPU.
#if TC_EXERCISE_SOLUTIONS
#include "exercises/solutions.hpp"
#else
#include "exercises/ex1_descriptor.hpp"
#include "exercises/ex2_ring_parity.hpp"
#endif

#include "tc/layouts/mbarrier_ring.hpp"
#include "tc/layouts/wgmma.hpp"
#include "tc_test/catch.hpp"
#include "tc_test/exercise.hpp"

#include <cstdint>

TEST_CASE("exercise 07.1: the wgmma descriptor of a K step", "[exercise]") {
  tc::exercise::grade([] {
    for (std::uint32_t slice = 0; slice < (1u << 18); slice += 1024 * 7)
      for (int kk = 0; kk < 4; ++kk) {
        const std::uint64_t got = ex07_1::k_step_descriptor(slice, kk);
        const tc::WgmmaDescriptorFields want = tc::k_major_tile_descriptor(tc::Swizzle::B128, slice + 32u * kk, 128);
        const tc::WgmmaDescriptorFields f = tc::decode_wgmma_descriptor(got);
        INFO("slice 0x" << std::hex << slice << std::dec << ", kk " << kk << ": start " << f.start_address
                        << " (want " << want.start_address << "), leading " << f.leading_byte_offset << ", stride "
                        << f.stride_byte_offset << " (want " << want.stride_byte_offset << "), base offset "
                        << f.base_offset << ", swizzle field " << (got >> 62) << " (want 1: 128B)");
        REQUIRE(f.start_address == want.start_address);
        REQUIRE(f.stride_byte_offset == want.stride_byte_offset);
        REQUIRE(f.base_offset == 0);
        REQUIRE(f.swizzle == tc::Swizzle::B128);
        // The leading byte offset is unused for a swizzled K-major operand (the ISA lets it be anything), and bits
        // 14-15, 30-31, 46-48 and 52-61 are reserved: they must be 0.
        REQUIRE((got & 0x3FF1C000C000C000ull) == 0);
      }
  });
}

TEST_CASE("exercise 07.2: the parities of an mbarrier ring", "[exercise]") {
  tc::exercise::grade([] {
    for (int stages : {1, 2, 3, 4, 6})
      for (int consumers : {1, 2})
        for (unsigned seed = 0; seed < 20; ++seed) {
          INFO("stages " << stages << ", consumers " << consumers << ", order " << seed
                         << ": a stage overwritten before release, a stale slice read, or a wait that never ends");
          REQUIRE(tc::simulate_ring(stages, consumers, 4 * stages + 3, seed, ex07_2::full_parity,
                                  ex07_2::empty_wait_parity));
        }
  });
}
