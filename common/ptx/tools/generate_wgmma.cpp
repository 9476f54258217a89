// Writes common/ptx/include/tc/wgmma_mma_async.cuh: one wrapper per wgmma.mma_async instruction the project uses,
// for every N, in both forms (A from shared memory, A from registers).
//
// Why a generator: inline asm takes its text and operand lists as literals, so a wrapper for m64n256k16 spells out
// 128 registers that m64n64k16 spells out 32 of, and no template can write either. Written by hand, the wrappers
// repeated the same 27 lines per type and hard-coded the immediates (`p, 1, 1, 0, 0`) in every copy. Here each form
// is written once, below, and the header is its output. The test common:wgmma_wrappers_match_their_generator fails
// when the committed header differs from what this program writes; `cmake --build <build> --target
// generate_wgmma_wrappers` rewrites it.
//
// Usage: generate_wgmma <output file>. Exit 0, or 1 with a one-line error when the file cannot be written.
// Source: PTX ISA, "wgmma.mma_async" (syntax of both forms, the valid shapes, the immediates), "Register Fragments
// and Shared Memory Matrix Layouts".
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

namespace {

// One operand type family: the instruction's type suffixes, the C++ types, and its K.
struct Family {
  const char* atype;      // PTX .atype = .btype: "f16", "bf16", "e4m3", "e5m2", "s8", "u8"
  const char* dtype;      // PTX .dtype: "f32" or "s32"
  const char* input;      // the C++ type the dispatcher takes: "__half", ...
  const char* acc;        // the C++ accumulator type: "float" or "std::int32_t"
  const char* constraint;  // the accumulator's asm constraint: "+f" or "+r"
  int k;                  // 16 (16-bit) or 32 (8-bit)
  bool transposable;      // only 16-bit types take imm-trans-a and imm-trans-b
  bool negatable;         // floating-point types take imm-scale-a and imm-scale-b (1 here: no negation)
};

const Family kFamilies[] = {
    {"f16", "f32", "__half", "float", "+f", 16, true, true},
    {"bf16", "f32", "__nv_bfloat16", "float", "+f", 16, true, true},
    {"e4m3", "f32", "__nv_fp8_e4m3", "float", "+f", 32, false, true},
    {"e5m2", "f32", "__nv_fp8_e5m2", "float", "+f", 32, false, true},
    {"s8", "s32", "std::int8_t", "std::int32_t", "+r", 32, false, false},
    {"u8", "s32", "std::uint8_t", "std::int32_t", "+r", 32, false, false},
};

// The N each family is written for. 16-bit: every N the ISA allows (8 to 256 in steps of 8): attention picks its key
// block and head dimension among them. 8-bit: the N that both of its accumulators allow (an s32 D takes 8, 16, 24,
// then multiples of 16).
std::vector<int> widths(const Family& f) {
  std::vector<int> n;
  for (int v = 8; v <= 256; v += 8) {
    if (f.k == 16 || v <= 24 || v % 16 == 0) n.push_back(v);
  }
  return n;
}

// items joined by ", ", wrapped to at most `width` columns, continuation lines indented by `indent` spaces.
std::string wrap(const std::vector<std::string>& items, int first_column, int indent, int width = 120) {
  std::string out;
  int column = first_column;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const std::string piece = items[i] + (i + 1 < items.size() ? "," : "");
    if (i > 0 && column + 1 + int(piece.size()) > width) {
      out += "\n" + std::string(indent, ' ');
      column = indent;
    } else if (i > 0) {
      out += " ";
      column += 1;
    }
    out += piece;
    column += int(piece.size());
  }
  return out;
}

std::string name(const Family& f, int n) {
  return "wgmma_m64n" + std::to_string(n) + "k" + std::to_string(f.k) + "_" + f.dtype + "_" + f.atype + "_" + f.atype;
}

// One wrapper: form "SS" (desc_a) or "RS" (four A registers).
void write_wrapper(std::ostream& out, const Family& f, int n, bool registers_a) {
  const int regs = n / 2;
  const std::string fn = name(f, n);
  const std::string instruction = "wgmma.mma_async.sync.aligned.m64n" + std::to_string(n) + "k" + std::to_string(f.k) +
                                  "." + f.dtype + "." + f.atype + "." + f.atype;
  out << "// " << instruction << ", " << (registers_a ? "RS (A in registers)" : "SS (A in shared memory)")
      << ":\n//   D (64 x " << n << ", " << regs << " " << f.dtype << " registers a thread) = A (64 x " << f.k
      << ") * B (" << f.k << " x " << n << ") + (scale_d ? D : 0).\n";
  if (f.transposable) {
    out << (registers_a ? "template <WgmmaMajor MajorB = WgmmaMajor::K>\n"
                        : "template <WgmmaMajor MajorA = WgmmaMajor::K, WgmmaMajor MajorB = WgmmaMajor::K>\n");
  }
  const std::string head = "__device__ inline void " + fn + "(";
  std::vector<std::string> params = {std::string(f.acc) + " (&d)[" + std::to_string(regs) + "]",
                                     registers_a ? "const std::uint32_t (&a)[4]" : "std::uint64_t desc_a",
                                     "std::uint64_t desc_b", "bool scale_d) {"};
  out << head << wrap(params, int(head.size()), int(head.size())) << "\n";

  // Operand numbering: D's registers, then A (a descriptor or 4 registers), B's descriptor, scale-d, the majors.
  std::vector<std::string> d_list;
  for (int i = 0; i < regs; ++i) d_list.push_back("%" + std::to_string(i));
  int next = regs;
  std::string a_operand;
  if (registers_a) {
    a_operand = "{%" + std::to_string(next) + ", %" + std::to_string(next + 1) + ", %" + std::to_string(next + 2) +
                ", %" + std::to_string(next + 3) + "}";
    next += 4;
  } else {
    a_operand = "%" + std::to_string(next++);
  }
  const std::string b_operand = "%" + std::to_string(next++);
  const std::string scale_operand = "%" + std::to_string(next++);
  std::string tail = "p";
  if (f.negatable) tail += ", 1, 1";  // imm-scale-a, imm-scale-b: no negation
  if (f.transposable) {
    if (!registers_a) tail += ", %" + std::to_string(next++);  // imm-trans-a
    tail += ", %" + std::to_string(next++);                     // imm-trans-b
  }

  out << "  asm volatile(\n";
  out << "      \"{\\n.reg .pred p;\\nsetp.ne.b32 p, " << scale_operand << ", 0;\\n\"\n";
  out << "      \"" << instruction << "\\n\"\n";
  // The register list, a string literal per line.
  // 6 spaces and two quotes around each line, and a space kept at each line's end so the pieces join as "%25, %26".
  std::string list = "{" + wrap(d_list, 0, 0, 111) + "},";
  std::istringstream lines(list);
  for (std::string line; std::getline(lines, line);) {
    out << "      \"" << line << (line.back() == ',' && line != list.substr(list.size() - line.size()) ? " " : "")
        << "\"\n";
  }
  out << "      \" " << a_operand << ", " << b_operand << ", " << tail << ";\\n}\\n\"\n";
  std::vector<std::string> outputs;
  for (int i = 0; i < regs; ++i) {
    outputs.push_back("\"" + std::string(f.constraint) + "\"(d[" + std::to_string(i) + "])");
  }
  out << "      : " << wrap(outputs, 8, 8) << "\n";
  std::vector<std::string> inputs;
  if (registers_a) {
    for (int i = 0; i < 4; ++i) inputs.push_back("\"r\"(a[" + std::to_string(i) + "])");
  } else {
    inputs.push_back("\"l\"(desc_a)");
  }
  inputs.push_back("\"l\"(desc_b)");
  inputs.push_back("\"r\"(int(scale_d))");
  if (f.transposable) {
    if (!registers_a) inputs.push_back("\"n\"(int(MajorA))");
    inputs.push_back("\"n\"(int(MajorB))");
  }
  out << "      : " << wrap(inputs, 8, 8) << ");\n}\n\n";
}

// The dispatcher of one K and form: a template on N and the input type that names the wrapper above.
void write_dispatcher(std::ostream& out, int k, bool registers_a) {
  const bool sixteen = k == 16;
  const std::string fn = std::string("wgmma_m64nNk") + std::to_string(k) + (registers_a ? "_rs" : "");
  std::string majors, forward;
  if (sixteen && registers_a) {
    majors = ", WgmmaMajor MajorB = WgmmaMajor::K";
    forward = "<MajorB>";
  } else if (sixteen) {
    majors = ", WgmmaMajor MajorA = WgmmaMajor::K, WgmmaMajor MajorB = WgmmaMajor::K";
    forward = "<MajorA, MajorB>";
  }
  out << "// " << fn << "<N, Input" << (sixteen ? (registers_a ? ", MajorB" : ", MajorA, MajorB") : "")
      << ">: the " << (registers_a ? "RS" : "SS") << " wrapper above for N and Input\n//   ("
      << (sixteen ? "__half or __nv_bfloat16" : "__nv_fp8_e4m3, __nv_fp8_e5m2, std::int8_t or std::uint8_t")
      << "):\n//   a kernel templated on its tile and precision names one call.\n";
  out << "template <int N, typename Input" << majors << ">\n";
  const std::string acc = sixteen ? "float" : "wgmma_k32_accumulator_t<Input>";
  const std::string a_param = registers_a ? "const std::uint32_t (&a)[4]" : "std::uint64_t desc_a";
  const std::string head = "__device__ inline void " + fn + "(";
  out << head
      << wrap({acc + " (&d)[N / 2]", a_param, "std::uint64_t desc_b", "bool scale_d) {"}, int(head.size()),
              int(head.size()))
      << "\n";
  if (sixteen) {
    out << "  static_assert(N >= 8 && N <= 256 && N % 8 == 0, \"m64nNk16 takes N = 8, 16, ..., 256\");\n";
  } else {
    out << "  static_assert(N == 8 || N == 16 || N == 24 || (N >= 32 && N <= 256 && N % 16 == 0),\n"
           "                \"the N of both 8-bit accumulators: 8, 16, 24, 32, 48, ..., 256\");\n";
  }
  const std::string a_arg = registers_a ? "a" : "desc_a";
  bool first_family = true;
  for (const Family& f : kFamilies) {
    if (f.k != k) continue;
    out << "  " << (first_family ? "if" : "} else if") << " constexpr (std::is_same_v<Input, " << f.input << ">) {\n";
    first_family = false;
    bool first = true;
    for (int n : widths(f)) {
      out << "    " << (first ? "if" : "else if") << " constexpr (N == " << n << ") " << name(f, n) << forward << "(d, "
          << a_arg << ", desc_b, scale_d);\n";
      first = false;
    }
  }
  out << "  } else {\n    static_assert(sizeof(Input) == 0, \""
      << (sixteen ? "m64nNk16 takes f16 or bf16 operands" : "8-bit wgmma takes e4m3, e5m2, s8 or u8 operands")
      << "\");\n  }\n}\n\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: generate_wgmma <output file>\n");
    return 1;
  }
  std::ostringstream out;
  out << R"(// Generated by common/ptx/tools/generate_wgmma.cpp: do not edit; change the generator and run
// `cmake --build <build> --target generate_wgmma_wrappers` (common:wgmma_wrappers_match_their_generator checks it).
//
// wgmma.mma_async, one wrapper per instruction, named after it: wgmma_m64n<N>k<K>_<dtype>_<atype>_<btype>.
//   m64nNk16  f16 or bf16 operands, f32 D; every N from 8 to 256 in steps of 8.
//   m64nNk32  e4m3 or e5m2 operands (f32 D), s8 or u8 (s32 D); N = 8, 16, 24, 32, 48, 64, ..., 256.
// Each in two forms, told apart by A's parameter:
//   SS  A from shared memory: `std::uint64_t desc_a`, a matrix descriptor (tc/layouts/wgmma.hpp).
//   RS  A from registers: `const std::uint32_t (&a)[4]`, 8 16-bit or 16 8-bit elements a thread, packed low to high,
//       in the layout of tc::wgmma_m64nNk16_a_coord (16-bit; 8-bit packs 4 to a register along K).
// B always comes from shared memory (desc_b). D is N / 2 registers a thread, laid out as tc::wgmma_m64nNk16_d_coord
// says for every N and K.
// Operands:
//   scale_d   run time: D = A * B + (scale_d ? D : 0); false starts a fresh accumulation without zeroing D first.
//   MajorA, MajorB (16-bit only; template arguments, the instruction's imm-trans-a / imm-trans-b): K-major (0, the
//             default) or MN-major (1) operand in shared memory; its descriptor must describe the same major-ness
//             (tc::k_major_tile_descriptor, tc::mn_major_tile_descriptor). The RS form has only MajorB. 8-bit wgmma
//             takes K-major operands only.
//   imm-scale-a, imm-scale-b (floating-point types): 1, no negation.
// Protocol (tc/wgmma.cuh): wgmma_fence() before the first wgmma that reads registers written since (D, and A in the
// RS form), then any number of wgmmas, wgmma_commit_group(), wgmma_wait_group<N>(); D, the RS form's A registers and
// the shared operands may be touched again only once their group is complete.
// Preconditions: sm_90a; all 128 threads of the warpgroup execute each call, converged. Errors: none reported.
// Source: PTX ISA, "wgmma.mma_async" (9.7.15.5) and "Register Fragments and Shared Memory Matrix Layouts".
#pragma once

#include "tc/layouts/wgmma.hpp"  // tc::WgmmaMajor

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_fp8.h>

#include <cstdint>
#include <type_traits>

namespace tc {

// The accumulator type of an 8-bit wgmma on Input: s32 for s8 and u8, f32 for fp8.
template <typename Input>
using wgmma_k32_accumulator_t = std::conditional_t<std::is_integral_v<Input>, std::int32_t, float>;

)";
  for (const Family& f : kFamilies) {
    out << "// ---- " << f.atype << " operands, " << f.dtype << " D (m64nNk" << f.k << ") ----\n\n";
    for (int n : widths(f)) {
      write_wrapper(out, f, n, false);
      write_wrapper(out, f, n, true);
    }
  }
  out << "// ---- dispatchers ----\n\n";
  write_dispatcher(out, 16, false);
  write_dispatcher(out, 16, true);
  write_dispatcher(out, 32, false);
  write_dispatcher(out, 32, true);
  out << "}  // namespace tc\n";

  std::ofstream file(argv[1], std::ios::binary);
  file << out.str();
  if (!file.flush()) {
    std::fprintf(stderr, "generate_wgmma: cannot write %s\n", argv[1]);
    return 1;
  }
  return 0;
}
