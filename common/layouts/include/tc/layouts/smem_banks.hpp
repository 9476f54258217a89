// Shared-memory banks: the bank each lane's access hits, and what one warp-wide access costs in wavefronts.
//
// Shared memory is 32 banks of 4 bytes: byte address a lies in bank (a / 4) % 32. In one wavefront every bank
// delivers one 4-byte word, to any number of lanes (lanes reading the same word share it: a broadcast). An access
// that needs w distinct words from one bank takes w wavefronts, and the bank conflicts are the wavefronts beyond the
// fewest the bytes could take (128 bytes per wavefront).
// A warp's access wider than 4 bytes per lane is served in phases of 128 bytes: 8 lanes each for 16-byte accesses
// (st.shared.v4 / uint4 stores), one 8x8 matrix (8 lanes, one 16-byte row address each) for ldmatrix. Conflicts are
// counted per phase; lanes of different phases never conflict with each other.
// The calculator is host code on explicit addresses, so the kernel's own address functions (chapter 04's tile
// config) feed it, and ncu's l1tex__data_bank_conflicts_pipe_lsu_mem_shared counters check it (docs/results/04_*).
// Units: bytes; banks 0..31; lanes 0..31.
// Source: CUDA C++ Programming Guide, "Shared Memory" under "Compute Capability 5.x" (32 banks of 32 bits, broadcast
// within a word; later architectures keep it); PTX ISA, "Warp-level matrix load instruction: ldmatrix" (each lane
// of a group of 8 supplies one row address of 16 bytes per 8x8 matrix).
#pragma once

#include "tc/layouts/lane_ids.hpp"  // tc::kWarpSize

#include <cuda_runtime_api.h>  // __host__ __device__ for host-only compilers too

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace tc {

inline constexpr int kSmemBanks = 32;
inline constexpr int kBankBytes = 4;
inline constexpr int kWavefrontBytes = kSmemBanks * kBankBytes;  // 128: the most one wavefront can deliver

__host__ __device__ constexpr int smem_bank(std::int64_t byte_address) {
  return int(byte_address / kBankBytes % kSmemBanks);
}

// One lane's access: `bytes` bytes from byte `address` (relative to a 128-byte-aligned base, as every shared
// allocation here is).
struct SmemAccess {
  int lane = 0;
  std::int64_t address = 0;
  int bytes = 0;
};

// One phase: its accesses, the distinct words each bank must deliver, and the wavefronts that takes.
struct PhaseCost {
  std::vector<SmemAccess> accesses;
  std::array<int, kSmemBanks> words_per_bank{};  // distinct 4-byte words wanted from each bank
  int wavefronts = 0;                            // max over banks of words_per_bank
  int min_wavefronts = 0;                        // the distinct bytes wanted / 128, rounded up
  int conflicts() const { return wavefronts - min_wavefronts; }
};

inline PhaseCost phase_cost(std::vector<SmemAccess> accesses) {
  PhaseCost cost;
  std::array<std::set<std::int64_t>, kSmemBanks> words;
  std::set<std::int64_t> all_words;
  for (const SmemAccess& a : accesses)
    for (std::int64_t w = a.address / kBankBytes; w < (a.address + a.bytes + kBankBytes - 1) / kBankBytes; ++w) {
      words[smem_bank(w * kBankBytes)].insert(w);
      all_words.insert(w);
    }
  for (int b = 0; b < kSmemBanks; ++b) {
    cost.words_per_bank[b] = int(words[b].size());
    if (cost.words_per_bank[b] > cost.wavefronts) cost.wavefronts = cost.words_per_bank[b];
  }
  cost.min_wavefronts = int((all_words.size() * kBankBytes + kWavefrontBytes - 1) / kWavefrontBytes);
  cost.accesses = std::move(accesses);
  return cost;
}

// A whole warp-wide access: its phases, and their wavefronts and conflicts summed.
struct AccessCost {
  std::vector<PhaseCost> phases;
  int wavefronts = 0;
  int conflicts = 0;
};

inline AccessCost access_cost(std::vector<PhaseCost> phases) {
  AccessCost cost;
  for (const PhaseCost& p : phases) {
    cost.wavefronts += p.wavefronts;
    cost.conflicts += p.conflicts();
  }
  cost.phases = std::move(phases);
  return cost;
}

// A warp's vector access, `bytes` (4, 8 or 16) per lane at lane_address[lane]: phases of 128 / bytes consecutive
// lanes (32, 16 or 8).
inline AccessCost vector_access_cost(const std::array<std::int64_t, kWarpSize>& lane_address, int bytes) {
  const int lanes_per_phase = kWavefrontBytes / bytes;
  std::vector<PhaseCost> phases;
  for (int first = 0; first < kWarpSize; first += lanes_per_phase) {
    std::vector<SmemAccess> accesses;
    for (int lane = first; lane < first + lanes_per_phase; ++lane)
      accesses.push_back({lane, lane_address[lane], bytes});
    phases.push_back(phase_cost(std::move(accesses)));
  }
  return access_cost(std::move(phases));
}

// ldmatrix (.x1, .x2, .x4 = row_addresses.size() / 8 matrices): lane i supplies row_addresses[i], the 16-byte row
// i % 8 of matrix i / 8, and each matrix is one phase.
inline AccessCost ldmatrix_cost(const std::vector<std::int64_t>& row_addresses) {
  std::vector<PhaseCost> phases;
  for (std::size_t first = 0; first + 8 <= row_addresses.size(); first += 8) {
    std::vector<SmemAccess> accesses;
    for (std::size_t lane = first; lane < first + 8; ++lane) accesses.push_back({int(lane), row_addresses[lane], 16});
    phases.push_back(phase_cost(std::move(accesses)));
  }
  return access_cost(std::move(phases));
}

// The row addresses of one 16 x 16 8-bit WMMA fragment load from a shared tile whose lines (rows of a row_major
// matrix_a, columns of a col_major matrix_b: K runs along them) are ld_bytes apart, starting at byte `start`. On
// sm_80 and sm_90 such a load compiles to one LDSM.16.M88.2 (docs/results/04_int8_imma_shared_sass_sm90.txt): lane
// i < 16 supplies line i, lines 0..7 are matrix 0 and 8..15 matrix 1.
inline std::vector<std::int64_t> wmma_8bit_fragment_rows(std::int64_t start, int ld_bytes) {
  std::vector<std::int64_t> rows;
  for (int line = 0; line < 16; ++line) rows.push_back(start + std::int64_t(line) * ld_bytes);
  return rows;
}

// The accesses as a figure: one panel per phase, a row per lane and a column per bank, each cell the lane's access
// in that bank; columns where a bank must deliver more than one word are marked red. Written by
// common/layouts/src/smem_banks.cpp.
std::string bank_svg(const std::string& title, const AccessCost& cost);

}  // namespace tc
