// Exit codes shared by every chapter binary, documented in README.md ("Exit codes").
#pragma once

namespace tc {

inline constexpr int kExitOk = 0;          // ran, and every result matched its reference
inline constexpr int kExitMismatch = 1;    // ran, and a result did not match its reference
inline constexpr int kExitUsage = 2;       // bad command line: unknown flag, bad value, impossible size
inline constexpr int kExitCudaError = 3;   // a CUDA or cuBLAS call failed (out of memory, launch failure, ...)
// 4 is deliberately unused: Catch2 3.x test executables exit 4 for a skipped test and ctest is told so
// (cmake/TcTesting.cmake), and a binary that cannot run must never be mistaken for a skip.
inline constexpr int kExitNoKernelImage = 5;  // the binary holds no code for this GPU (built for other architectures)
inline constexpr int kExitTooLarge = 6;  // the problem does not fit in host or GPU memory (checked before allocating)
inline constexpr int kExitNoGpu = 77;      // skipped: no GPU, or its SM is below the chapter's minimum
                                           // (77 is the "skipped" code of Automake and of ctest's SKIP_RETURN_CODE)
}  // namespace tc
