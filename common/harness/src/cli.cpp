#include "tc/cli.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <sstream>

namespace tc {
namespace {

bool parse_integer(const std::string& text, std::int64_t& out) {
  const char* first = text.data();
  const char* last = first + text.size();
  if (first != last && *first == '+') ++first;  // from_chars rejects a leading '+', people write it
  auto [ptr, ec] = std::from_chars(first, last, out);
  return ec == std::errc() && ptr == last && first != last;
}

bool parse_real(const std::string& text, double& out) {
  if (text.empty()) return false;
  char* end = nullptr;
  out = std::strtod(text.c_str(), &end);
  return end == text.c_str() + text.size() && std::isfinite(out);
}

}  // namespace

std::vector<GemmShape> parse_gemm_shapes(const std::string& option, const std::string& text) {
  auto bad = [&](const std::string& item) {
    return UsageError("--" + option + " expects sizes like 4096 or 17x33x65 (M, N >= 1, K >= 0), comma-separated; " +
                      "got '" + item + "'");
  };
  // K (the third of MxNxK) may be 0, a GEMM that only scales C; M, N and a square S may not.
  auto size = [&](const std::string& digits, const std::string& item, std::int64_t min) {
    std::int64_t v = 0;
    if (!parse_integer(digits, v) || v < min || v > std::numeric_limits<std::int32_t>::max()) throw bad(item);
    return static_cast<int>(v);
  };
  std::vector<GemmShape> shapes;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::vector<int> dims;
    std::size_t from = 0;
    while (true) {
      const std::size_t x = item.find('x', from);
      const std::string digits = item.substr(from, x == std::string::npos ? std::string::npos : x - from);
      dims.push_back(size(digits, item, dims.size() == 2 ? 0 : 1));
      if (x == std::string::npos) break;
      from = x + 1;
    }
    if (dims.size() == 1) shapes.push_back({dims[0], dims[0], dims[0]});
    else if (dims.size() == 3) shapes.push_back({dims[0], dims[1], dims[2]});
    else throw bad(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return shapes;
}

std::vector<int> parse_int_list(const std::string& option, const std::string& text, int min, int max) {
  std::vector<int> values;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::int64_t v = 0;
    if (!parse_integer(item, v) || v < min || v > max) {
      throw UsageError("--" + option + " expects integers in [" + std::to_string(min) + ", " + std::to_string(max) +
                       "], comma-separated; got '" + item + "'");
    }
    values.push_back(static_cast<int>(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return values;
}

Cli::Cli(std::string program, std::string summary) : program_(std::move(program)), summary_(std::move(summary)) {
  declare("help", Kind::Flag, "print this help and exit");
}

Cli::Option& Cli::declare(const std::string& name, Kind kind, const std::string& help) {
  if (options_.count(name) != 0) throw std::logic_error("Cli: option --" + name + " declared twice");
  order_.push_back(name);
  Option& opt = options_[name];
  opt.kind = kind;
  opt.help = help;
  return opt;
}

Cli& Cli::add_int(const std::string& name, std::int64_t default_value, const std::string& help, std::int64_t min,
                  std::int64_t max) {
  Option& opt = declare(name, Kind::Int, help);
  opt.value = std::to_string(default_value);
  opt.min = min;
  opt.max = max;
  return *this;
}

Cli& Cli::add_real(const std::string& name, double default_value, const std::string& help) {
  std::ostringstream text;
  text << default_value;
  declare(name, Kind::Real, help).value = text.str();
  return *this;
}

Cli& Cli::add_choice(const std::string& name, const std::string& default_value,
                     const std::vector<std::string>& choices, const std::string& help) {
  Option& opt = declare(name, Kind::Choice, help);
  opt.value = default_value;
  opt.choices = choices;
  return *this;
}

Cli& Cli::add_flag(const std::string& name, const std::string& help) {
  declare(name, Kind::Flag, help);
  return *this;
}

Cli& Cli::add_string(const std::string& name, const std::string& default_value, const std::string& help) {
  declare(name, Kind::String, help).value = default_value;
  return *this;
}

Cli& Cli::add_shapes(const std::string& name, const std::string& default_value, const std::string& help) {
  parse_gemm_shapes(name, default_value);  // a bad default is the program's bug; say so at once
  declare(name, Kind::Shapes, help).value = default_value;
  return *this;
}

void Cli::assign(const std::string& name, Option& opt, const std::string& value) {
  switch (opt.kind) {
    case Kind::Int: {
      std::int64_t v = 0;
      if (!parse_integer(value, v)) throw UsageError("--" + name + " expects an integer, got '" + value + "'");
      if (v < opt.min || v > opt.max) {
        throw UsageError("--" + name + " must be in [" + std::to_string(opt.min) + ", " + std::to_string(opt.max) +
                         "], got " + value);
      }
      break;
    }
    case Kind::Real: {
      double v = 0.0;
      if (!parse_real(value, v)) throw UsageError("--" + name + " expects a finite number, got '" + value + "'");
      break;
    }
    case Kind::Choice: {
      bool known = false;
      std::string list;
      for (const std::string& c : opt.choices) {
        known = known || c == value;
        list += (list.empty() ? "" : ", ") + c;
      }
      if (!known) throw UsageError("--" + name + " must be one of " + list + "; got '" + value + "'");
      break;
    }
    case Kind::String:
      if (value.empty()) throw UsageError("--" + name + " needs a non-empty value");
      break;
    case Kind::Shapes:
      parse_gemm_shapes(name, value);
      break;
    case Kind::Flag:
      break;
  }
  opt.value = value;
}

bool Cli::parse(int argc, const char* const* argv) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0 || arg.size() == 2) {
      throw UsageError("unexpected argument '" + arg + "' (options look like --name value; see --help)");
    }
    std::string name = arg.substr(2);
    std::string value;
    bool has_value = false;
    if (const auto eq = name.find('='); eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
      has_value = true;
    }
    auto it = options_.find(name);
    if (it == options_.end()) throw UsageError("unknown option '--" + name + "' (see --help)");
    Option& opt = it->second;
    opt.given = true;
    if (opt.kind == Kind::Flag) {
      if (has_value) throw UsageError("--" + name + " takes no value");
      opt.value = "1";
      continue;
    }
    if (!has_value) {
      if (i + 1 >= argc) throw UsageError("--" + name + " needs a value");
      value = argv[++i];
    }
    assign(name, opt, value);
  }
  if (get_flag("help")) {
    std::fputs(usage().c_str(), stdout);
    return false;
  }
  return true;
}

const Cli::Option& Cli::find(const std::string& name, Kind kind) const {
  auto it = options_.find(name);
  if (it == options_.end() || it->second.kind != kind) {
    throw std::logic_error("Cli: option --" + name + " was not declared with this type");
  }
  return it->second;
}

std::int64_t Cli::get_int(const std::string& name) const {
  std::int64_t v = 0;
  parse_integer(find(name, Kind::Int).value, v);
  return v;
}
double Cli::get_real(const std::string& name) const {
  double v = 0.0;
  parse_real(find(name, Kind::Real).value, v);
  return v;
}
const std::string& Cli::get_choice(const std::string& name) const { return find(name, Kind::Choice).value; }
bool Cli::get_flag(const std::string& name) const { return !find(name, Kind::Flag).value.empty(); }

bool Cli::given(const std::string& name) const {
  const auto it = options_.find(name);
  if (it == options_.end()) throw std::logic_error("Cli: no option --" + name + " was declared");
  return it->second.given;
}
const std::string& Cli::get_string(const std::string& name) const { return find(name, Kind::String).value; }
std::vector<GemmShape> Cli::get_shapes(const std::string& name) const {
  return parse_gemm_shapes(name, find(name, Kind::Shapes).value);
}

std::string Cli::usage() const {
  std::string out = "usage: " + program_ + " [options]\n" + summary_ + "\n\noptions:\n";
  for (const std::string& name : order_) {
    const Option& opt = options_.at(name);
    std::string left = "  --" + name;
    if (opt.kind == Kind::Int) left += " N";
    if (opt.kind == Kind::Real) left += " X";
    if (opt.kind == Kind::String) left += " TEXT";
    if (opt.kind == Kind::Shapes) left += " S|MxNxK,...";
    if (opt.kind == Kind::Choice) {
      std::string list;
      for (const std::string& c : opt.choices) list += (list.empty() ? "" : "|") + c;
      left += " " + list;
    }
    // Help text starts in column 35; a longer option spec gets its help on the next line.
    if (left.size() < 34) left.resize(34, ' ');
    else left += "\n" + std::string(34, ' ');
    out += left + " " + opt.help;
    std::string facts;
    if (opt.kind != Kind::Flag && !opt.value.empty()) facts = "default: " + opt.value;
    if (opt.kind == Kind::Int && opt.min > 1)
      facts += (facts.empty() ? "" : "; ") + ("at least " + std::to_string(opt.min));
    if (!facts.empty()) out += " (" + facts + ")";
    out += "\n";
  }
  return out;
}

}  // namespace tc
