#!/usr/bin/env bash
# levers_summary.sh <build dir>: writes, on stdout, docs/results/08_levers_h200.txt: one line per lever tried on
# chapter 08's step 4 on the way to step 5, each with the variant's figure and step 4's from the same process, the
# effect (the variant's speed over step 4's, minus 1), and whether the chapter kept it. Every figure is picked out of
# docs/results/08_development_runs_h200.txt by `doc_sync pick`, with a pattern as a value link's, so the summary cannot
# hold a number that file does not; the file's blocks hold each run's command and full output. The summary carries
# that file's record (its `# history:`, `# commit:` and `# sources:` lines): it measured nothing of its own.
# docs/08 ("What was tried") links its table's numbers here. Needs a build folder with doc_sync built.
# Errors: a pattern that selects no line, or several, stops the script (exit 1) naming it; bad usage exits 2.
set -euo pipefail
build=${1:?usage: levers_summary.sh <build dir>}
root=$(cd "$(dirname "$0")/../.." && pwd)
runs="${root}/docs/results/08_development_runs_h200.txt"
doc_sync="${build}/docs/doc_sync"
[ -x "${doc_sync}" ] || { echo "error: ${doc_sync} not built: cmake --build ${build} --target doc_sync" >&2; exit 1; }
pick() { "${doc_sync}" pick "${runs}" "$1"; }

# The third set's and later blocks print rows "<size> <kernel> <TFLOP/s> <% cuBLAS>" or, where a run took rounds,
# "SUMMARY <size> random <kernel> median % cuBLAS <median>%"; the second set's, the chapter's table rows.
table() { echo "== $1 >>> ^$2x$2x$2 +$3 +f16->f32 +TN +\\S+ +(\\S+)"; }  # second set: TFLOP/s of a table row
row() { echo "== run $1: >>> ^$2 $3 +(\\S+)"; }                             # third set on: TFLOP/s of a row
median() { echo "== run $1: >>> ^SUMMARY $2 random $3 +median % cuBLAS +(\\S+)%"; }

echo "# Chapter 08: the levers tried on step 4 on the way to step 5, one a line, from the development runs"
echo "# (08_development_runs_h200.txt; docs/tools/levers_summary.sh picks every figure out of it)."
echo "# size: M = N = K; fp16 in, fp32 out, TN, random operands. unit: TFLOP/s, or % of cublasGemmEx (the median of"
echo "# three rounds) where the run took rounds; the variant and step 4 ran in one process, one after the other."
echo "# effect: the variant's figure over step 4's, minus 1, as a %: its change in speed. run: the block of the"
echo "# development runs file the figures come from. kept: whether the chapter's code does it now."
grep -E '^# (history|commit|sources):' "${runs}"
printf '%-4s %-50s %5s %-8s %8s %8s %7s  %-8s %s\n' id lever size unit variant "step 4" effect kept run

n=0
lever() {  # lever <text> <size> <unit> <variant pattern> <step 4 pattern> <kept> <run>
  local variant base
  variant=$(pick "$4") || { echo "error: lever '$1': no single line for: $4" >&2; exit 1; }
  base=$(pick "$5") || { echo "error: lever '$1': no single line for: $5" >&2; exit 1; }
  n=$((n + 1))
  printf 'L%02d  %-50s %5s %-8s %8s %8s %+6.1f%%  %-8s %s\n' "$n" "$1" "$2" "$3" "$variant" "$base" \
    "$(awk -v v="$variant" -v b="$base" 'BEGIN { print (v / b - 1) * 100 }')" "$6" "$7"
}

lever "consumer 1 starts 3 slices behind consumer 0" 4096 TFLOP/s \
  "$(table 'consumer stagger' 4096 'stagger 3')" "$(table 'consumer stagger' 4096 'stagger 0')" no "stagger"
lever "3 stages, 4 staging buffers a consumer" 4096 TFLOP/s \
  "$(table 'stages and grid' 4096 's3 b4')" "$(table 'stages and grid' 4096 base)" no "stages and grid"
lever "every resident block (132), not whole groups (128)" 4096 TFLOP/s \
  "$(table 'stages and grid' 4096 'grid all')" "$(table 'stages and grid' 4096 base)" no "stages and grid"
split="the epilogue's barriers split"
lever "epilogue barriers split (bar.arrive + bar.sync)" 4096 TFLOP/s \
  "$(table "${split}" 4096 'split barriers')" "$(table "${split}" 4096 base)" no "barriers split"
lever "one barrier a chunk, per-warp TMA stores" 4096 TFLOP/s \
  "$(row 3 4096 'C warp 8K x2 1bar')" "$(row 3 4096 'step 4')" no "run 3"
lever "four 4 KB staging buffers a consumer, not two 8 KB" 4096 TFLOP/s \
  "$(row 3 4096 'D wg 4K x4 1bar')" "$(row 3 4096 'step 4')" no "run 3"
lever "16-byte st.global from shared, not TMA stores" 4096 TFLOP/s \
  "$(row 5 4096 'K vec st.global')" "$(row 5 4096 'step 4')" no "run 5"
lever "C^T = B^T A^T: cuBLAS's 256 x 128 tile" 4096 TFLOP/s \
  "$(row 8 4096 'T transposed 256x128')" "$(row 8 4096 'step 4')" no "run 8"
lever "2 x 2 clusters (A shared along N too)" 4096 TFLOP/s \
  "$(row 10 4096 'U 2x2 cluster')" "$(row 10 4096 'step 4')" no "run 10"
lever "per-slice descriptor work hoisted out of the loop" 4096 TFLOP/s \
  "$(row 19 4096 'V hoisted descriptors')" "$(row 19 4096 'step 4')" yes "run 19"
lever "epilogue interleaved with the next tile's slice" 4096 TFLOP/s \
  "$(row 20 4096 'W4 overlap n64')" "$(row 20 4096 'step 4')" no "run 20"
lever "8 stages of 32-wide slices, not 4 of 64" 4096 TFLOP/s \
  "$(row 22 4096 'X S8')" "$(row 22 4096 'step 4')" no "run 22"
lever "L2 prefetch of the slices 2 ahead" 4096 TFLOP/s \
  "$(row 22 4096 'X PF2')" "$(row 22 4096 'step 4')" no "run 22"
lever "evict_first on the C stores" 4096 TFLOP/s \
  "$(row 22 4096 'X EF')" "$(row 22 4096 'step 4')" no "run 22"
lever "no L2 promotion on the operand maps" 4096 %gemmEx \
  "$(median 27 4096 'X promo none')" "$(median 27 4096 'X base')" no "run 27"
lever "consecutive clusters share A panels, not B" 4096 %gemmEx \
  "$(median 26 4096 'X O1 wave-transposed')" "$(median 26 4096 'X base')" no "run 26"
lever "each stage released as its wgmmas finish" 4096 %gemmEx \
  "$(median 27 4096 'X wait0')" "$(median 27 4096 'X base')" no "run 27"
lever "C^T tile and that early release together" 4096 %gemmEx \
  "$(median 30 4096 'XT wait0')" "$(median 30 4096 'step 4')" no "run 30"
lever "ping-pong consumers, a 128 x 128 tile each" 4096 %gemmEx \
  "$(median 31 4096 'PP S6 128x128')" "$(median 31 4096 'step 4')" no "run 31"
lever "prefetch.tensormap at the start" 4096 %gemmEx \
  "$(median 32 4096 'X pfmap')" "$(median 32 4096 'X base')" no "run 32"
lever "end on the stores' reads, not their writes" 4096 %gemmEx \
  "$(median 32 4096 'X readfinish')" "$(median 32 4096 'X base')" no "run 32"
lever "a suspend-time hint on every mbarrier wait" 4096 %gemmEx \
  "$(median 33 4096 'X hint both')" "$(median 33 4096 'X base')" no "run 33"
lever "stream-K tail over all 132 SMs" 4096 %gemmEx \
  "$(median 35 4096 'SK132 stream-K tail')" "$(median 35 4096 'step 4')" no "run 35"
lever "stream-K tail over all 132 SMs" 8192 %gemmEx \
  "$(median 34 8192 'SK132 stream-K tail')" "$(median 34 8192 'step 4')" no "run 34"
lever "consumers split along N, as cuBLAS's" 4096 %gemmEx \
  "$(median 37 4096 'G 128x256 split N')" "$(median 37 4096 'step 4')" no "run 37"
lever "192 x 256 tiles (3 stages, early release)" 4096 %gemmEx \
  "$(median 40 4096 'G 192x256 N S3 w0')" "$(median 40 4096 'step 4')" "step 5" "run 40"
lever "192 x 256 tiles (3 stages, early release)" 6144 %gemmEx \
  "$(median 40 6144 'G 192x256 N S3 w0')" "$(median 40 6144 'step 4')" "step 5" "run 40"
lever "192 x 256 tiles (3 stages, early release)" 8192 %gemmEx \
  "$(median 40 8192 'G 192x256 N S3 w0')" "$(median 40 8192 'step 4')" "step 5" "run 40"

# The other development-run figures docs/08 quotes, a line each, the figure first.
echo
echo "# Other figures docs/08 quotes from the development runs: the figure, its unit, what ran, and where."
printf '%-4s %8s %-8s %s\n' id figure unit "what ran (development runs file block)"
m=0
figure() {  # figure <unit> <pattern> <what ran>
  local value
  value=$(pick "$2") || { echo "error: figure '$3': no single line for: $2" >&2; exit 1; }
  m=$((m + 1))
  printf 'Q%02d  %8s %-8s %s\n' "$m" "$value" "$1" "$3"
}
step8192() { echo "^8192x8192x8192  $1 +bf16\\->f32  TN  \\S+ +(\\S+) +$2"; }  # the first set's rows, by cuBLAS's
figure TFLOP/s "$(step8192 '4 TMA-store epilogue' 785.2)" \
  "step 4, groups of 16 tile rows on 128 blocks, 8192^3, bf16 in (tile order)"
figure TFLOP/s "$(step8192 '4 TMA-store epilogue' 785.9)" \
  "step 4, groups of 8 tile rows on 132 blocks, 8192^3, bf16 in (tile order)"
figure TFLOP/s "$(step8192 '3 2-block clusters' 782)" \
  "step 3 with the remote arrive as mbarrier.arrive.release.cluster, 8192^3, bf16 in (remote arrive)"
figure TFLOP/s "$(step8192 '2 persistent' 782)" "step 2 in the same run (remote arrive)"
figure TFLOP/s "$(step8192 '3 2-block clusters' 783.6)" \
  "step 3 with the default .release.cta remote arrive, 8192^3, bf16 in (remote arrive)"
pct() { echo "== run $1: >>> ^$2x$2x$2  +$3  +$4 +TN +\\S+ +\\S+ +\\S+ +(\\S+)%"; }  # % cuBLAS of a table row
for run in 41 42; do
  for type in f16 bf16; do
    figure %gemmEx "$(pct "${run}" 4096 '5 taller tiles' "${type}\\->f32")" \
      "step 5 at 4096^3, ${type} in, fp32 out, in a later call (run ${run})"
  done
done
figure %gemmEx "$(pct '19, then' 12288 '4 TMA-store epilogue' 'f16->f32')" \
  "step 4 at 12288^3, fp16 in, fp32 out, 40 launches a timing (run 19, then)"
figure %gemmEx "$(pct '19, then' 12288 '4 TMA-store epilogue' 'bf16->bf16')" \
  "step 4 at 12288^3, bf16 in and out, 40 launches a timing (run 19, then)"
