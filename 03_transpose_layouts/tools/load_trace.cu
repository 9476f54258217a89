// Chapter 03 -- load_trace: shows compute-sanitizer which addresses one warp's load_matrix_sync reads.
//
// WMMA does not say how load_matrix_sync reads memory, and a value probe (tc/wmma_probe.cuh) only shows where data
// ends up, not which lane fetched it. So this program points one warp's load at a 16 x 16 tile that lies in no
// allocation (64 MB past a 1 MB buffer). compute-sanitizer memcheck then reports every lane's access of the first load
// instruction -- its address and size -- before the kernel is stopped; docs/tools/wmma_load_trace.sh turns those
// reports into (lane, line, element, bytes) rows, docs/results/03_wmma_load_trace_sm90.txt. Run alone, the load
// faults and the program exits 3 (CUDA error) by design: the access is the measurement.
// Usage: compute-sanitizer --tool memcheck 03_load_trace --fragment matrix_a --type f16 --layout row_major --ld 64
// Exit codes: 2 bad flags; 3 the CUDA error the out-of-bounds load raises; 77 no GPU of SM >= 7.5.
// Source: compute-sanitizer documentation, "Memcheck Tool" (out-of-bounds reports name thread, size and address).
#include "chapter_config.hpp"

#include "tc/arch_guard.cuh"
#include "tc/check.hpp"
#include "tc/cli.hpp"
#include "tc/device.hpp"
#include "tc/device_buffer.hpp"
#include "tc/main.hpp"

#include <cuda_fp16.h>
#include <mma.h>

#include <cstdint>
#include <cstdio>

namespace {

// One warp loads a 16 x 16 x 16 fragment of kind Use, element T and layout L from `tile` and stores a sum of its
// elements so that the load cannot be optimized away.
template <typename Use, typename T, typename L>
__global__ void load_trace_kernel(const T* tile, int ld, float* sink) {
  nvcuda::wmma::fragment<Use, 16, 16, 16, T, L> f;
  nvcuda::wmma::load_matrix_sync(f, tile, ld);
  float sum = 0.0f;
  for (int i = 0; i < f.num_elements; ++i) sum += static_cast<float>(f.x[i]);
  sink[threadIdx.x] = sum;
}

template <typename Use, typename T>
void launch(const std::string& layout, const void* tile, int ld, float* sink) {
  constexpr int kOneWarp = 32;  // load_matrix_sync is warp-collective
  if (layout == "row_major") {
    load_trace_kernel<Use, T, nvcuda::wmma::row_major><<<1, kOneWarp>>>(static_cast<const T*>(tile), ld, sink);
  } else {
    load_trace_kernel<Use, T, nvcuda::wmma::col_major><<<1, kOneWarp>>>(static_cast<const T*>(tile), ld, sink);
  }
}

}  // namespace

int main(int argc, char** argv) {
  return tc::run_main([&] {
    tc::Cli cli("03_load_trace", "One warp's load_matrix_sync from an address in no allocation, for compute-sanitizer "
                                 "memcheck to report (see the header of load_trace.cu).");
    cli.add_choice("fragment", "matrix_a", {"matrix_a", "matrix_b"}, "fragment kind")
        .add_choice("type", "f16", {"f16", "s8"}, "element type")
        .add_choice("layout", "row_major", {"row_major", "col_major"}, "fragment layout")
        .add_int("ld", 64, "leading dimension in elements (a multiple of 16 keeps WMMA's 16-byte rule for both types)",
                 16, 4096);
    if (!cli.parse(argc, argv)) return tc::kExitOk;
    tc::require_kernel_image(tc::chapter::kArchitectures);  // a build without code for this GPU stops here, exit 5
    const int ld = int(cli.get_int("ld"));
    if (ld % 16 != 0) throw tc::UsageError("--ld must be a multiple of 16 (16 bytes of s8, 32 of f16)");
    tc::require_sm(tc::chapter::kMinSm, "03_load_trace");

    tc::DeviceBuffer<float> sink(32);
    constexpr std::size_t kBufferBytes = std::size_t(1) << 20;
    tc::DeviceBuffer<std::uint8_t> buffer(kBufferBytes);
    // 64 MB past the end of a 1 MB allocation: far from it and from `sink`, so no lane's access lands in either.
    const std::uint8_t* tile = buffer.data() + (std::size_t(64) << 20);
    std::printf("tile %p ld %d fragment %s type %s layout %s\n", static_cast<const void*>(tile), ld,
                cli.get_choice("fragment").c_str(), cli.get_choice("type").c_str(),
                cli.get_choice("layout").c_str());
    std::fflush(stdout);  // the address must precede compute-sanitizer's reports in the log
    const bool a = cli.get_choice("fragment") == "matrix_a", f16 = cli.get_choice("type") == "f16";
    if (a && f16) launch<nvcuda::wmma::matrix_a, __half>(cli.get_choice("layout"), tile, ld, sink.data());
    if (a && !f16) launch<nvcuda::wmma::matrix_a, signed char>(cli.get_choice("layout"), tile, ld, sink.data());
    if (!a && f16) launch<nvcuda::wmma::matrix_b, __half>(cli.get_choice("layout"), tile, ld, sink.data());
    if (!a && !f16) launch<nvcuda::wmma::matrix_b, signed char>(cli.get_choice("layout"), tile, ld, sink.data());
    tc::check_launch();
    TC_CHECK(cudaDeviceSynchronize());  // raises the fault the out-of-bounds load causes (exit 3)
    return tc::kExitOk;
  });
}
