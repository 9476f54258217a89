// The spill canary of cmake/ptxas_scan.cmake (test ptxas_scan_sees_the_spill_canary): a kernel that must spill, so
// that the scan proves it still reads ptxas's resource lines. __launch_bounds__(1024, 2) caps it at 32 registers a
// thread (65536 registers / 2048 threads), and 96 floats stay live across the loop: ptxas must spill about 64 of them
// to local memory. Compiled by the test alone; never linked, never run.
__global__ void __launch_bounds__(1024, 2) ptxas_spill_canary_kernel(const float* in, float* out, int n) {
  float acc[96];
#pragma unroll
  for (int i = 0; i < 96; ++i) acc[i] = in[i * blockDim.x + threadIdx.x];
  for (int it = 0; it < n; ++it) {
#pragma unroll
    for (int i = 0; i < 96; ++i) acc[i] = acc[i] * acc[(i + 1) % 96] + 1.0f;
  }
  float sum = 0.0f;
#pragma unroll
  for (int i = 0; i < 96; ++i) sum += acc[i] * float(i);
  out[threadIdx.x] = sum;
}
