// The driver both of chapter 10's sweeps (tools/split_sweep.cu, tools/schedule_sweep.cu) run under: the run header
// and --help name the tool, the suite names the shapes (no --sizes), 20 timed launches after 20 ms of rest each, and
// --suite short|full (default full; held-out too for the schedule sweep). Host only. Errors: none; GemmDriver's own
// at parse.
#pragma once

#include "tc/chapter_driver.cuh"
#include "tc/gemm_driver.hpp"

#include <string>

inline tc::DriverConfig sweep_config(const char* program, const std::string& title, const std::string& summary) {
  tc::ChapterIdentity identity = tc::this_chapter();
  identity.program = program;  // the run header and --help name this tool, not the chapter binary
  tc::DriverConfig config{identity, title, summary, ""};
  config.sizes_flag = false;
  config.default_repeats = 20;
  config.rest_flag = true;
  config.default_rest_ms = 20;
  return config;
}

// --suite: short or full, and held-out too where with_held_out (suite.hpp's held-out suite).
inline void add_suite_flag(tc::GemmDriver& driver, bool with_held_out = false) {
  if (with_held_out)
    driver.cli().add_choice("suite", "full", {"short", "full", "held-out"},
                            "short: Llama-3-8B; full: both models; held-out: the held-out suite (suite.hpp)");
  else
    driver.cli().add_choice("suite", "full", {"short", "full"}, "short: Llama-3-8B; full: both models");
}
