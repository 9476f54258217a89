// doc_commands: every command the docs show must run as written. Host test docs:commands_run_as_written.
//
// Where commands are found: lines of ```sh / ```bash blocks in README.md, docs/*.md and docs/results/README.md
// (backslash continuations joined, "# ..." comments dropped, "&&" chains split, leading NAME=value environment
// assignments dropped); code spans in the "command" column of
// docs/results/README.md; and the "# command:" line that starts every saved run in docs/results.
// What each must satisfy:
//   cmake --workflow|--build|--preset P, ctest --preset P   P is a preset of that kind in CMakePresets.json;
//   cmake --build <dir> [--target T], ctest --test-dir <dir> <dir> is a preset's binaryDir, T a target of the build;
//   build/<preset>/<path>/<program> args, cd <dir> && ./<program> args, or a bare chapter program name with args
//       the program exists in this build (build/<preset>/ is mapped to it), and run with the arguments as written
//       and CUDA_VISIBLE_DEVICES="" (no GPU: it parses its flags, runs its host part and exits 0 or 77) it does not
//       fail; --svg, --out and --csv point into a scratch folder instead of the repository;
//   docs/tools/<script> args    the script exists and is executable, and its build/ paths exist in this build;
//       ptxas_resources.sh, which needs no GPU, runs for real and must print its table.
// Other commands (grep, cuobjdump, ncu...) are named in prose only and not checked.
// Usage: doc_commands <repository root> <build dir>; exit 0 if every command holds, 1 listing each that does not,
// 2 for bad usage.
#include "text_files.hpp"

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

using docs_tools::read_text;
using docs_tools::trim;

// A command as the docs show it, with where it was found.
struct Command {
  std::string text, where;
};

// Shell words: spaces separate, '...' and "..." group, a backslash escapes the next character. Enough for the docs.
std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> out;
  std::string word;
  bool in_word = false;
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quote) {
      if (c == quote) quote = 0;
      else word += c;
    } else if (c == '\'' || c == '"') {
      quote = c;
      in_word = true;
    } else if (c == '\\' && i + 1 < line.size()) {
      word += line[++i];
      in_word = true;
    } else if (c == ' ' || c == '\t') {
      if (in_word) out.push_back(word);
      word.clear();
      in_word = false;
    } else {
      word += c;
      in_word = true;
    }
  }
  if (in_word) out.push_back(word);
  return out;
}

// Splits a command line on "&&" and drops output redirections ("> file", "2>&1", "| ..."): what is run, not where
// its output goes.
std::vector<std::vector<std::string>> simple_commands(const std::string& line) {
  std::vector<std::vector<std::string>> out(1);
  const std::vector<std::string> w = words(line);
  for (std::size_t i = 0; i < w.size(); ++i) {
    if (w[i] == "&&") {
      out.emplace_back();
    } else if (w[i] == "|") {
      break;
    } else if (w[i] == ">" || w[i] == ">>") {
      ++i;  // and its file
    } else if (w[i].rfind("2>", 0) == 0 || w[i].rfind(">", 0) == 0) {
      continue;
    } else {
      out.back().push_back(w[i]);
    }
  }
  return out;
}

// Commands in ```sh and ```bash blocks of one Markdown file.
void fenced_commands(const fs::path& md, const std::string& shown, std::vector<Command>& out) {
  std::istringstream in(read_text(md));
  bool in_block = false;
  std::string line, pending;
  int number = 0, start = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("```", 0) == 0) {
      const std::string lang = trim(line.substr(3));
      in_block = !in_block && (lang == "sh" || lang == "bash");
      continue;
    }
    if (!in_block) continue;
    // "  # comment" ends a command (a '#' inside quotes does not occur in these blocks).
    const auto hash = line.find(" #");
    std::string text = trim(hash == std::string::npos ? line : line.substr(0, hash));
    if (text.rfind("#", 0) == 0) continue;
    if (pending.empty()) start = number;
    if (!text.empty() && text.back() == '\\') {
      pending += text.substr(0, text.size() - 1) + " ";
      continue;
    }
    pending += text;
    if (!trim(pending).empty()) out.push_back({trim(pending), shown + ":" + std::to_string(start)});
    pending.clear();
  }
}

// Code spans of the results README's command column (the third cell of each table row) that start like a command.
void results_table_commands(const fs::path& md, std::vector<Command>& out) {
  std::istringstream in(read_text(md));
  std::string line;
  int number = 0;
  const std::regex span("`([^`]+)`");
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind("| `", 0) != 0) continue;
    std::vector<std::string> cells;
    std::string cell;
    for (std::size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '|' && line[i - 1] != '\\') {
        cells.push_back(cell);
        cell.clear();
      } else {
        cell += line[i];
      }
    }
    if (cells.size() < 3) continue;
    for (std::sregex_iterator it(cells[2].begin(), cells[2].end(), span), end; it != end; ++it) {
      std::string text = (*it)[1].str();
      std::string unescaped;  // "\|" in a table cell is a pipe in the command
      for (std::size_t i = 0; i < text.size(); ++i) {
        if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == '|') continue;
        unescaped += text[i];
      }
      if (unescaped.find(' ') == std::string::npos && unescaped.find('/') == std::string::npos) continue;
      out.push_back({unescaped, "docs/results/README.md:" + std::to_string(number)});
    }
  }
}

// The "# command:" line of every saved run.
void results_file_commands(const fs::path& root, std::vector<Command>& out) {
  for (const auto& entry : fs::directory_iterator(root / "docs/results")) {
    if (entry.path().filename() == "README.md") continue;
    std::istringstream in(read_text(entry.path()));
    std::string line;
    for (int number = 1; number <= 5 && std::getline(in, line); ++number) {
      if (line.rfind("# command: ", 0) == 0) {
        out.push_back({trim(line.substr(11)), "docs/results/" + entry.path().filename().string() + ":" +
                                                  std::to_string(number)});
        break;
      }
    }
  }
}

// The presets by kind, and every configure preset's build folder relative to the repository ("build/default").
struct Presets {
  std::map<std::string, std::set<std::string>> names;  // "configurePresets" -> names
  std::set<std::string> build_dirs;
};

Presets read_presets(const fs::path& root) {
  const std::string json = read_text(root / "CMakePresets.json");
  Presets p;
  const char* kinds[] = {"configurePresets", "buildPresets", "testPresets", "workflowPresets"};
  for (const char* kind : kinds) {
    const auto begin = json.find(std::string("\"") + kind + "\"");
    if (begin == std::string::npos) continue;
    auto end = json.size();
    for (const char* other : kinds) {
      const auto at = json.find(std::string("\"") + other + "\"");
      if (at != std::string::npos && at > begin && at < end) end = at;
    }
    const std::string part = json.substr(begin, end - begin);
    const std::regex name("\"name\": \"([^\"]+)\"");
    for (std::sregex_iterator it(part.begin(), part.end(), name), e; it != e; ++it) p.names[kind].insert((*it)[1]);
  }
  const std::regex dir("\"binaryDir\": \"\\$\\{sourceDir\\}/([^\"]+)\"");
  for (std::sregex_iterator it(json.begin(), json.end(), dir), e; it != e; ++it) p.build_dirs.insert((*it)[1]);
  return p;
}

class Checker {
 public:
  Checker(fs::path root, fs::path build) : root_(std::move(root)), build_(std::move(build)), presets_(read_presets(root_)) {
    scratch_ = fs::temp_directory_path() / ("doc_commands_" + std::to_string(::getpid()));
    fs::create_directories(scratch_);
    const fs::path targets = build_ / "CMakeFiles/TargetDirectories.txt";
    std::istringstream in(read_text(targets));
    for (std::string line; std::getline(in, line);) {
      const auto slash = line.rfind('/');
      const auto dot = line.rfind(".dir");
      if (slash != std::string::npos && dot != std::string::npos && dot > slash) {
        targets_.insert(line.substr(slash + 1, dot - slash - 1));
      }
    }
  }
  ~Checker() {
    std::error_code ignored;
    fs::remove_all(scratch_, ignored);
  }

  // Returns the problems with one command (empty: it holds).
  std::vector<std::string> check(const Command& c) {
    std::vector<std::string> problems;
    std::string cd;  // "cd <dir> && ..." runs what follows in <dir>
    for (std::vector<std::string> w : simple_commands(c.text)) {
      // "NAME=value ... command": the shell's environment assignments for one command; the command is what is checked.
      while (!w.empty() && std::regex_match(w[0], std::regex("[A-Za-z_][A-Za-z0-9_]*=.*"))) w.erase(w.begin());
      if (w.empty()) continue;
      if (w[0] == "cd" && w.size() == 2) {
        cd = w[1];
        continue;
      }
      if (!cd.empty() && w[0].rfind("./", 0) == 0) w[0] = cd + "/" + w[0].substr(2);
      check_one(w, problems);
    }
    return problems;
  }

 private:
  // "build/<preset>/rest" -> the same path in this test's build, or "" (and a problem) if <preset> is no preset's.
  fs::path map_build_path(const std::string& path, std::vector<std::string>& problems) {
    for (const std::string& dir : presets_.build_dirs) {
      if (path == dir) return build_;
      if (path.rfind(dir + "/", 0) == 0) return build_ / path.substr(dir.size() + 1);
    }
    problems.push_back(path + ": no preset builds into " + path.substr(0, path.find('/', 6)));
    return {};
  }

  bool is_program_name(const std::string& name) {
    return std::regex_match(name, std::regex("0[1-9]_[a-z0-9_]+")) && targets_.count(name) > 0;
  }

  void require_preset(const char* kind, const std::string& name, std::vector<std::string>& problems) {
    if (presets_.names[kind].count(name) == 0) problems.push_back("no " + std::string(kind) + " entry named " + name);
  }

  void check_one(const std::vector<std::string>& w, std::vector<std::string>& problems) {
    const std::string& program = w[0];
    if (program == "cmake" || program == "ctest") {
      for (std::size_t i = 1; i + 1 < w.size(); ++i) {
        const std::string& opt = w[i];
        const std::string& arg = w[i + 1];
        if (opt == "--workflow" && w.size() > i + 2 && w[i + 1] == "--preset") {
          require_preset("workflowPresets", w[i + 2], problems);
          return;
        }
        if (opt == "--preset") {
          const bool build = std::find(w.begin(), w.end(), "--build") != w.end();
          require_preset(program == "ctest" ? "testPresets" : build ? "buildPresets" : "configurePresets", arg,
                         problems);
        } else if ((opt == "--build" && arg.rfind("build/", 0) == 0) || opt == "--test-dir" || opt == "-B") {
          map_build_path(arg, problems);
        } else if (opt == "--target" && targets_.count(arg) == 0) {
          problems.push_back("no target " + arg + " in this build");
        }
      }
      return;
    }
    if (program.rfind("docs/tools/", 0) == 0) {
      const fs::path script = root_ / program;
      struct stat st {};
      if (stat(script.c_str(), &st) != 0 || !(st.st_mode & S_IXUSR)) {
        problems.push_back(program + " does not exist or is not executable");
        return;
      }
      std::vector<std::string> args(w.begin() + 1, w.end());
      for (std::string& a : args) {
        if (a.rfind("build/", 0) == 0) {
          const fs::path mapped = map_build_path(a, problems);
          if (!mapped.empty() && !fs::exists(mapped)) problems.push_back(a + " does not exist in this build");
          a = mapped.string();
        }
      }
      if (program == "docs/tools/ptxas_resources.sh") {
        std::string out;
        const int rc = run(script.string(), args, {}, out);
        if (rc != 0 || out.find("\n== ") == std::string::npos) {
          problems.push_back(program + " exited " + std::to_string(rc) + " without its table:\n" + out);
        }
      }
      return;
    }
    fs::path exe;
    if (program.rfind("build/", 0) == 0) {
      exe = map_build_path(program, problems);
      if (exe.empty()) return;
    } else if (is_program_name(program)) {
      for (const auto& entry : fs::recursive_directory_iterator(build_)) {
        if (entry.path().filename() == program && entry.is_regular_file()) exe = entry.path();
      }
    } else {
      return;  // not a command this test runs
    }
    if (exe.empty() || !fs::exists(exe)) {
      problems.push_back(program + " is not built in " + build_.string());
      return;
    }
    std::vector<std::string> args(w.begin() + 1, w.end());
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
      if (args[i] == "--svg" || args[i] == "--out") args[i + 1] = scratch_.string();
      if (args[i] == "--csv") args[i + 1] = (scratch_ / "rows.csv").string();
    }
    std::string out;
    const int rc = run(exe.string(), args, "CUDA_VISIBLE_DEVICES=", out);
    if (rc != 0 && rc != 77) {
      problems.push_back(program + " exited " + std::to_string(rc) + " (0, or 77 without a GPU, expected): " +
                         last_line(out));
    }
  }

  static std::string last_line(const std::string& out) {
    const std::string t = out.substr(0, out.find_last_not_of("\n") + 1);
    const auto nl = t.rfind('\n');
    return nl == std::string::npos ? t : t.substr(nl + 1);
  }

  // Runs program with args (each single-quoted for the shell) under env, in the repository root; returns its exit code
  // and output (stdout and stderr).
  int run(const std::string& program, const std::vector<std::string>& args, const std::string& env, std::string& out) {
    auto quote = [](const std::string& s) {
      std::string q = "'";
      for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
      return q + "'";
    };
    std::string line = "cd " + quote(root_.string()) + " && " + (env.empty() ? "" : "env " + env + " ") + quote(program);
    for (const std::string& a : args) line += " " + quote(a);
    line += " 2>&1";
    FILE* pipe = popen(line.c_str(), "r");
    if (pipe == nullptr) return -1;
    char buffer[4096];
    while (std::fgets(buffer, sizeof buffer, pipe) != nullptr) out += buffer;
    const int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  fs::path root_, build_, scratch_;
  Presets presets_;
  std::set<std::string> targets_;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: doc_commands <repository root> <build dir>\n";
    return 2;
  }
  try {
    const fs::path root = argv[1];
    std::vector<Command> commands;
    fenced_commands(root / "README.md", "README.md", commands);
    for (const auto& entry : fs::directory_iterator(root / "docs")) {
      if (entry.path().extension() == ".md") {
        fenced_commands(entry.path(), "docs/" + entry.path().filename().string(), commands);
      }
    }
    fenced_commands(root / "docs/results/README.md", "docs/results/README.md", commands);
    results_table_commands(root / "docs/results/README.md", commands);
    results_file_commands(root, commands);
    Checker checker(root, argv[2]);
    int failed = 0;
    for (const Command& c : commands) {
      for (const std::string& problem : checker.check(c)) {
        ++failed;
        std::cout << c.where << ": `" << c.text << "`: " << problem << "\n";
      }
    }
    std::cout << commands.size() << " documented commands, " << failed << " problem(s)\n";
    return failed == 0 ? 0 : 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
}
