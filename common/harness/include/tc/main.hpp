// run_main: the error handling every chapter's main() shares.
//
// return tc::run_main([&] { ...; return tc::kExitOk; });
// Runs the body and maps what escapes it to the exit codes in exit_codes.hpp, printing one line to stderr:
//   std::invalid_argument, tc::UsageError among them (bad flags, impossible sizes or strides)
//                                                         -> "error: ..." and kExitUsage (2);
//   tc::TooLargeError (tc::require_memory: the problem does not fit, checked before allocating)
//                                                         -> "error: ..." and kExitTooLarge (6);
//   std::bad_alloc (host memory too small for the problem)  -> "error: out of host memory ..." and kExitCudaError (3);
//   any other std::exception, tc::CudaError among them (a failed CUDA or cuBLAS call, e.g. out of memory)
//                                                         -> "error: ..." and kExitCudaError (3).
// The body's own return value (kExitOk or kExitMismatch) is passed through; kExitNoGpu comes from tc::require_sm.
// print_run_header: the three lines every chapter's output starts with, so a saved run names its command and GPU:
// "# <title>", "# command: <program> <arguments as given>", "# device:  <tc::describe of GPU 0, or why there is none>".
// write_text_file: what the chapters' --svg options write with; a path that cannot be written is bad input (a
// tc::UsageError naming the path and the system's reason, so exit 2), not a crash. make_folder creates a folder and
// its parents (the --svg, --out and --csv folders a user names need not exist yet).
// Figure, write_figures and figure_tool_main: a chapter's committed figures (docs/figures/) as {file, svg}, written by
// the chapter's --svg option and by its host-only figure program (NN_*/tools/), whose whole main() is
// figure_tool_main: --out DIR (default docs/figures), one "wrote <path>" line per file, exit 2 for a bad flag or a
// file that cannot be written.
#pragma once

#include "tc/check.hpp"
#include "tc/cli.hpp"
#include "tc/device.hpp"
#include "tc/exit_codes.hpp"
#include "tc/memory.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include <unistd.h>  // access(): POSIX; this project builds on Linux (memory.cpp reads /proc/meminfo too)

namespace tc {

inline void print_run_header(const std::string& title, const std::string& program, int argc, char** argv) {
  std::string command = program;
  for (int i = 1; i < argc; ++i) command += std::string(" ") + argv[i];
  std::printf("# %s\n# command: %s\n# device:  %s\n", title.c_str(), command.c_str(),
              describe(query_device()).c_str());
}

// Creates `dir` and its parents where missing. Errors: tc::UsageError naming the folder and the reason.
inline void make_folder(const std::string& dir) {
  std::error_code error;
  if (dir.empty() || std::filesystem::is_directory(dir, error)) return;
  if (!std::filesystem::create_directories(dir, error) && error)
    throw UsageError("cannot create the folder " + dir + ": " + error.message());
}

// Checks, before a run, that the run's output can go where the user asked, so that a bad path fails at once (exit 2)
// rather than after minutes of work: require_appendable_file opens `path` for appending (creating it, empty, and its
// folder where missing: what appending would do anyway); require_writable_folder creates `dir` where missing and asks
// the system whether it may be written. Errors: tc::UsageError naming the path and the system's reason.
inline void require_appendable_file(const std::string& path) {
  make_folder(std::filesystem::path(path).parent_path().string());
  std::ofstream out(path, std::ios::app);
  if (!out) throw UsageError("cannot write " + path + ": " + std::strerror(errno));
}
inline void require_writable_folder(const std::string& dir) {
  make_folder(dir);
  if (access(dir.c_str(), W_OK) != 0) throw UsageError("cannot write into " + dir + ": " + std::strerror(errno));
}

inline void write_text_file(const std::string& path, const std::string& text) {
  make_folder(std::filesystem::path(path).parent_path().string());
  std::ofstream out(path);
  if (!(out << text)) throw UsageError("cannot write " + path + ": " + std::strerror(errno));
}

struct Figure {
  std::string file;  // its name under docs/figures/
  std::string svg;
};

// Writes each figure as dir/file; returns the paths written. Errors: tc::UsageError.
inline std::vector<std::string> write_figures(const std::string& dir, const std::vector<Figure>& figures) {
  std::vector<std::string> paths;
  for (const Figure& f : figures) {
    paths.push_back(dir + "/" + f.file);
    write_text_file(paths.back(), f.svg);
  }
  return paths;
}

template <typename Body>
int run_main(Body&& body);

inline int figure_tool_main(int argc, char** argv, const std::string& program, const std::string& summary,
                            const std::function<std::vector<Figure>()>& figures) {
  return run_main([&] {
    Cli cli(program, summary);
    cli.add_string("out", "docs/figures", "folder to write the figures into");
    if (!cli.parse(argc, argv)) return kExitOk;
    for (const std::string& path : write_figures(cli.get_string("out"), figures()))
      std::printf("wrote %s\n", path.c_str());
    return kExitOk;
  });
}

template <typename Body>
int run_main(Body&& body) {
  try {
    return body();
  } catch (const std::invalid_argument& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitUsage;
  } catch (const TooLargeError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitTooLarge;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "error: out of host memory (the problem is too large for this machine's RAM)\n");
    return kExitCudaError;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return kExitCudaError;
  }
}

}  // namespace tc
