// Command-line parsing for the chapter binaries: --name value or --name=value, with one-line errors.
//
// A program declares its options (integers with a range, reals, choices, flags), then parses argv. Bad input throws
// tc::UsageError whose what() is one line naming the option and the problem; tc::run_main (main.hpp) prints it as
// "error: ..." and exits with tc::kExitUsage (2). Rejected: unknown options, positional arguments, a missing value,
// a value that is not entirely a number ("12x", "1e3" for an integer), integers outside their range (sizes default
// to >= 1, so 0 and negatives are rejected), reals that are not finite, values outside a choice list, and shape lists
// with an item that is not S or MxNxK of positive int32 sizes.
// --help prints the usage and parse() returns false.
#pragma once

#include "tc/gemm_args.hpp"  // GemmShape

#include <cstdint>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace tc {

// Bad command-line input. It is an invalid argument, so code that handles std::invalid_argument (tc::run_main)
// handles it too.
class UsageError : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

// A comma-separated list of GEMM shapes, each "S" (S x S x S) or "MxNxK", e.g. "1024,4096" or "17x33x65,4096".
// M, N and S must be in [1, 2^31 - 1]; K in [0, 2^31 - 1], since k = 0 is a legal GEMM (C = beta * C). Errors:
// UsageError naming `option` and the bad item, one line.
std::vector<GemmShape> parse_gemm_shapes(const std::string& option, const std::string& text);

// A comma-separated list of integers in [min, max], e.g. "1,16,64" (chapter 10's --tokens). Errors: UsageError naming
// `option` and the bad item (empty, not entirely a number, or out of range), one line.
std::vector<int> parse_int_list(const std::string& option, const std::string& text, int min = 1,
                                int max = std::numeric_limits<std::int32_t>::max());

class Cli {
 public:
  Cli(std::string program, std::string summary);

  // An integer option; values outside [min, max] are errors.
  Cli& add_int(const std::string& name, std::int64_t default_value, const std::string& help, std::int64_t min = 1,
               std::int64_t max = std::numeric_limits<std::int32_t>::max());
  Cli& add_real(const std::string& name, double default_value, const std::string& help);
  Cli& add_choice(const std::string& name, const std::string& default_value, const std::vector<std::string>& choices,
                  const std::string& help);
  Cli& add_flag(const std::string& name, const std::string& help);
  // Free text, e.g. a path; an empty default means "not given".
  Cli& add_string(const std::string& name, const std::string& default_value, const std::string& help);
  // A list of GEMM shapes (parse_gemm_shapes), checked when parsed.
  Cli& add_shapes(const std::string& name, const std::string& default_value, const std::string& help);

  // Parses argv[1..argc). Returns false if --help was given (usage already printed to stdout); throws UsageError.
  bool parse(int argc, const char* const* argv);

  std::int64_t get_int(const std::string& name) const;
  double get_real(const std::string& name) const;
  const std::string& get_choice(const std::string& name) const;
  bool get_flag(const std::string& name) const;
  const std::string& get_string(const std::string& name) const;
  std::vector<GemmShape> get_shapes(const std::string& name) const;
  // Whether argv named this option (any kind), as opposed to its default standing. Errors: std::logic_error for an
  // undeclared name (the program's bug).
  bool given(const std::string& name) const;

  std::string usage() const;

 private:
  enum class Kind { Int, Real, Choice, Flag, String, Shapes };
  struct Option {
    Kind kind;
    std::string help;
    std::string value;  // as given (or the default); flags hold "1" or ""
    bool given = false;  // argv named it
    std::int64_t min = 0;
    std::int64_t max = 0;
    std::vector<std::string> choices;
  };
  Option& declare(const std::string& name, Kind kind, const std::string& help);
  const Option& find(const std::string& name, Kind kind) const;
  void assign(const std::string& name, Option& opt, const std::string& value);

  std::string program_;
  std::string summary_;
  std::vector<std::string> order_;  // declaration order, for usage()
  std::map<std::string, Option> options_;
};

}  // namespace tc
