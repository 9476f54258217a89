// Which sources a results file measured, and whether they have changed since (docs/results/README.md, "Which results
// predate the code").
//
// A results file's "# " header carries two lines that `doc_sync record` writes:
//   # commit:  62d53ec (2026-11-26)            the tree the run built; free text after the first word
//   # sources: 1f3a0c... over 41 files (sources/08_..._h200.txt.sources)
// The manifest docs/results/sources/<results file>.sources lists, for every repository file the measured binaries
// were compiled from, a hash of the file as it was then (file_hash) and its path. The list comes from the build's
// dependency files (the compiler's -MD output that CMake's Makefile generator keeps beside each object, found through
// each target's CMakeFiles/<target>.dir/DependInfo.cmake and the DependInfo files of the targets it links), so a header
// a kernel includes counts and a file it does not include does not. The `# sources:` digest is a hash of the listed
// hashes alone: it ties the manifest to its results file, and moving a file without changing it changes nothing.
//
// A file counts as unchanged wherever it now lies: the check looks for its hash among all the tree's files, so a
// header moved to another folder (#include lines count by file name) leaves the runs that compiled it current.
// The hash is 64-bit FNV-1a (Fowler, Noll and Vo; www.isthe.com/chongo/tech/comp/fnv): it must be the same on every
// machine and compiler, which std::hash does not promise, and it only has to notice edits, not resist forgery, so a
// cryptographic hash (and a library to provide it) would buy nothing here.
// Errors: std::runtime_error naming the file or line at fault.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "text_files.hpp"

namespace source_record {

namespace fs = std::filesystem;

inline constexpr const char* kAbsent = "absent";  // a listed file that did not exist in the measured tree

// 64-bit FNV-1a of `bytes`, as 16 lower-case hex digits.
inline std::string content_hash(const std::string& bytes) {
  std::uint64_t h = 0xcbf29ce484222325ull;  // the FNV-1a 64-bit offset basis
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ull;  // the FNV 64-bit prime
  }
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(h));
  return text;
}

// The hash of a source file as it is now, or kAbsent when there is no such file. An #include line counts by the
// file name it includes, not the folder: moving a header (and changing the paths that include it) changes nothing
// that was compiled, so it must not make a run stale; including another file does.
inline std::string file_hash(const fs::path& file) {
  if (!fs::is_regular_file(file)) return kAbsent;
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string());
  static const std::regex include(R"re(^(\s*#\s*include\s*)([<"])([^>"]*/)?([^/>"]*)([>"].*)$)re");
  std::string normalized;
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    normalized += std::regex_match(line, m, include) ? m[1].str() + m[2].str() + m[4].str() + m[5].str() : line;
    normalized += '\n';
  }
  return content_hash(normalized);
}

struct Entry {
  std::string hash;  // content_hash of the file as measured, or kAbsent
  std::string path;  // relative to the repository root, '/'-separated
};

// The `# sources:` digest: a hash of the entries' hashes in the manifest's order (by path), not of their paths.
inline std::string digest_of(const std::vector<Entry>& entries) {
  std::string hashes;
  for (const Entry& e : entries) hashes += e.hash + "\n";
  return content_hash(hashes);
}

// The prerequisites of every rule in a Make-syntax dependency file (the compiler's -MD output): backslash-newline
// continues a line, "\ " is a space inside a path, and a token ending in ':' is a rule's target.
inline std::vector<std::string> depfile_prerequisites(const std::string& text) {
  std::vector<std::string> out;
  std::string token;
  auto flush = [&] {
    if (!token.empty() && token.back() != ':') out.push_back(token);
    token.clear();
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      flush();
      ++i;
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && text[i + 1] == ' ') {
      token += ' ';
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      flush();
      continue;
    }
    token += c;
  }
  flush();
  return out;
}

// The quoted strings of one `set(NAME ...)` block of a DependInfo.cmake file.
inline std::vector<std::string> cmake_set_strings(const std::string& text, const std::string& name) {
  const auto at = text.find("set(" + name);
  if (at == std::string::npos) return {};
  const auto close = text.find("\n  )", at);
  const std::string block = text.substr(at, close == std::string::npos ? std::string::npos : close - at);
  std::vector<std::string> out;
  static const std::regex quoted("\"([^\"]*)\"");
  for (std::sregex_iterator it(block.begin(), block.end(), quoted), end; it != end; ++it) out.push_back((*it)[1]);
  return out;
}

// The CMakeFiles/<target>.dir/DependInfo.cmake of `target` anywhere under `build`; empty when there is none.
inline fs::path depend_info_of(const fs::path& build, const std::string& target) {
  const std::string want = target + ".dir";
  for (const auto& entry : fs::recursive_directory_iterator(build)) {
    if (entry.is_directory() && entry.path().filename() == want &&
        entry.path().parent_path().filename() == "CMakeFiles" && fs::exists(entry.path() / "DependInfo.cmake")) {
      return entry.path() / "DependInfo.cmake";
    }
  }
  return {};
}

// The build folders of a ':'-separated list ("build/workshop-solutions:build/workshop": a results file whose runs
// used two configurations of the same targets).
inline std::vector<fs::path> build_list(const std::string& builds) {
  std::vector<fs::path> out;
  for (std::size_t from = 0;;) {
    const auto at = builds.find(':', from);
    out.push_back(builds.substr(from, at == std::string::npos ? std::string::npos : at - from));
    if (at == std::string::npos) return out;
    from = at + 1;
  }
}

// The repository files (relative paths, sorted) that `targets`, and the targets they link, were compiled from,
// according to the dependency files of the `builds` that hold them (each target in at least one), built by CMake's
// Makefile generator (the presets' default; Ninja folds the files into its own log). Files of the build trees
// themselves, and of .deps, are left out: they are generated or staged, not the project's sources.
inline std::vector<std::string> repository_sources(const fs::path& root, const std::vector<fs::path>& builds,
                                                   const std::vector<std::string>& targets) {
  const fs::path repo = fs::weakly_canonical(root);
  std::vector<std::pair<fs::path, fs::path>> pending;  // (DependInfo.cmake, the top of its build)
  for (const std::string& t : targets) {
    bool found = false;
    for (const fs::path& b : builds) {
      const fs::path top = fs::weakly_canonical(b);
      const fs::path info = depend_info_of(top, t);
      if (info.empty()) continue;
      pending.push_back({info, top});
      found = true;
    }
    if (!found) {
      throw std::runtime_error("no target '" + t + "' (no CMakeFiles/" + t + ".dir/DependInfo.cmake) in the build " +
                               "folders given: configure and build it there first");
    }
  }
  std::set<fs::path> seen_info;
  std::set<std::string> files;
  while (!pending.empty()) {
    const fs::path info = fs::weakly_canonical(pending.back().first), top = pending.back().second;
    pending.pop_back();
    if (!seen_info.insert(info).second) continue;
    const std::string text = docs_tools::read_text(info);
    for (const std::string& linked : cmake_set_strings(text, "CMAKE_TARGET_LINKED_INFO_FILES")) {
      pending.push_back({linked, top});
    }
    // Four strings an object: source, object, dependency-file format, dependency file (relative to the build's top).
    const std::vector<std::string> deps = cmake_set_strings(text, "CMAKE_DEPENDS_DEPENDENCY_FILES");
    const fs::path compile_dir = info.parent_path().parent_path().parent_path();  // <dir>/CMakeFiles/<t>.dir/..
    for (std::size_t i = 0; i + 3 < deps.size(); i += 4) {
      const fs::path depfile = fs::path(deps[i + 3]).is_absolute() ? fs::path(deps[i + 3]) : top / deps[i + 3];
      if (!fs::exists(depfile)) {
        throw std::runtime_error(depfile.string() + " is missing: build " + info.parent_path().stem().string() +
                                 " in " + top.string() + " with the Makefile generator first");
      }
      std::vector<std::string> prereqs = depfile_prerequisites(docs_tools::read_text(depfile));
      prereqs.push_back(deps[i]);  // the source itself, whether or not the compiler listed it
      for (const std::string& p : prereqs) {
        const fs::path abs = fs::weakly_canonical(fs::path(p).is_absolute() ? fs::path(p) : compile_dir / p);
        const fs::path rel = abs.lexically_relative(repo);
        const std::string r = rel.generic_string();
        if (rel.empty() || r.rfind("..", 0) == 0 || abs.string().rfind(top.string() + "/", 0) == 0 ||
            r.rfind(".deps/", 0) == 0 || r.rfind("build/", 0) == 0) {
          continue;
        }
        files.insert(r);
      }
    }
  }
  if (files.empty()) {
    throw std::runtime_error("no file of " + repo.string() + " among the targets' dependencies: is the build folder a "
                             "build of this checkout?");
  }
  return {files.begin(), files.end()};
}

// What a results file's two record lines and its manifest say.
struct Record {
  std::string commit;    // the `# commit:` text
  std::string history;   // the `# history:` text: why the file is a log of runs that cannot be repeated; empty: none
  std::string digest;    // the `# sources:` digest
  std::string manifest;  // the manifest's path relative to docs/results
  std::vector<std::string> targets;
  std::vector<Entry> entries;
};

// The record of docs/results/<name>. Errors: no `# commit:` or `# sources:` line, a manifest that is missing or
// malformed, or one whose hashes no longer give the results file's digest (the two were not written together).
inline Record read_record(const fs::path& results_dir, const std::string& name) {
  Record r;
  for (const std::string& line : docs_tools::read_lines(results_dir / name)) {
    if (line.rfind('#', 0) != 0) continue;
    static const std::regex commit(R"re(^# commit: +(\S.*)$)re"),
        sources(R"re(^# sources: +(\S+) over \d+ files \((\S+)\)$)re"), history(R"re(^# history: +(\S.*)$)re");
    std::smatch m;
    if (std::regex_match(line, m, commit)) r.commit = m[1];
    if (std::regex_match(line, m, history)) r.history = m[1];
    if (std::regex_match(line, m, sources)) {
      r.digest = m[1];
      r.manifest = m[2];
    }
  }
  const std::string how = "; record it with docs/tools/record_sources.sh (docs/results/README.md)";
  if (r.commit.empty()) throw std::runtime_error("docs/results/" + name + " has no '# commit:' line" + how);
  if (r.digest.empty()) throw std::runtime_error("docs/results/" + name + " has no '# sources:' line" + how);
  const fs::path manifest = results_dir / r.manifest;
  for (const std::string& line : docs_tools::read_lines(manifest)) {
    if (line.rfind("# targets: ", 0) == 0) {
      std::istringstream words(line.substr(11));
      for (std::string t; words >> t;) r.targets.push_back(t);
    }
    if (line.empty() || line[0] == '#') continue;
    const auto space = line.find(' ');
    if (space == std::string::npos) throw std::runtime_error(manifest.string() + ": bad line '" + line + "'");
    r.entries.push_back({line.substr(0, space), line.substr(space + 1)});
  }
  if (digest_of(r.entries) != r.digest) {
    throw std::runtime_error(manifest.string() + " does not give the digest docs/results/" + name +
                             " records: the two were not written together; record the run again");
  }
  return r;
}

// The hashes of every source file of the repository now (file_hash), wherever it lies: the files under `root` but
// for .git, .deps, build folders and docs/results. Matching a record against these rather than against its paths
// is what lets a file move without making the runs that compiled it stale.
inline std::set<std::string> hashes_in_tree(const fs::path& root) {
  std::set<std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = it->path().lexically_relative(root);
    const std::string top = rel.begin()->string();
    if (it->is_directory() && (top == ".git" || top == ".deps" || top.rfind("build", 0) == 0 ||
                               rel.generic_string() == "docs/results")) {
      it.disable_recursion_pending();
      continue;
    }
    if (it->is_regular_file()) out.insert(file_hash(it->path()));
  }
  return out;
}

// The listed files that changed since the run: those whose measured contents no file of the tree holds now (an
// edited file; a moved one still matches), and those that did not exist then but do now.
inline std::vector<std::string> changed_since(const fs::path& root, const Record& r, const std::set<std::string>& now) {
  std::vector<std::string> out;
  for (const Entry& e : r.entries) {
    const bool changed = e.hash == kAbsent ? fs::exists(root / e.path) : now.count(e.hash) == 0;
    if (changed) out.push_back(e.path);
  }
  return out;
}

// Writes docs/results/sources/<name>.sources and puts the two record lines into docs/results/<name> (replacing any
// earlier ones, else after its leading "# " lines). `tree` is where the measured sources are read: the repository
// itself, or a checkout of an older commit when a record is reconstructed for a run made before records were kept.
inline void write_record(const fs::path& root, const fs::path& results_file, const std::vector<fs::path>& builds,
                         const std::string& commit, const std::vector<std::string>& targets, const fs::path& tree) {
  const fs::path results_dir = results_file.parent_path();
  const std::string name = results_file.filename().string();
  std::vector<Entry> entries;
  for (const std::string& path : repository_sources(root, builds, targets))
    entries.push_back({file_hash(tree / path), path});
  const std::string manifest = "sources/" + name + ".sources";
  fs::create_directories(results_dir / "sources");
  {
    std::ofstream out(results_dir / manifest);
    out << "# docs/results/" << name << ": the repository files its binaries were compiled from (their build's "
        << "dependency files)\n# targets:";
    for (const std::string& t : targets) out << ' ' << t;
    out << "\n# each line: 64-bit FNV-1a of the file as measured (#include lines by file name; \"" << kAbsent
        << "\": not in that tree), then its path\n";
    for (const Entry& e : entries) out << e.hash << ' ' << e.path << '\n';
    if (!out) throw std::runtime_error("cannot write " + (results_dir / manifest).string());
  }
  const std::string commit_line = "# commit:  " + commit;
  const std::string sources_line =
      "# sources: " + digest_of(entries) + " over " + std::to_string(entries.size()) + " files (" + manifest + ")";
  std::vector<std::string> lines = docs_tools::read_lines(results_file);
  lines.erase(std::remove_if(
                  lines.begin(), lines.end(),
                  [](const std::string& l) { return l.rfind("# commit:", 0) == 0 || l.rfind("# sources:", 0) == 0; }),
              lines.end());
  std::size_t at = 0;
  while (at < lines.size() && lines[at].rfind("# ", 0) == 0) ++at;
  lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), {commit_line, sources_line});
  std::ofstream out(results_file);
  for (const std::string& l : lines) out << l << '\n';
  if (!out) throw std::runtime_error("cannot write " + results_file.string());
}

// The results files of docs/results (every regular file but README.md; the sources/ folder holds manifests).
inline std::vector<std::string> results_files(const fs::path& results_dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(results_dir)) {
    if (entry.is_regular_file() && entry.path().filename() != "README.md")
      names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// The staleness list docs/results/README.md quotes: every results file and its commit, the stale ones first, each
// with how many of its sources changed and up to three of them, the chapters' own files before common's; last, the
// logs whose `# history:` line says why their runs cannot be repeated (variants that were never committed), which
// are neither stale nor current.
inline std::vector<std::string> staleness_lines(const fs::path& root) {
  const fs::path results_dir = root / "docs/results";
  const std::set<std::string> now = hashes_in_tree(root);
  std::vector<std::string> stale, current, history;
  for (const std::string& name : results_files(results_dir)) {
    const Record r = read_record(results_dir, name);
    const std::string head = "  " + name + " (" + r.commit.substr(0, r.commit.find(' ')) + ")";
    if (!r.history.empty()) {  // a log of what was measured on the way: its code is gone, so it is never rerun
      history.push_back(head + ": " + r.history);
      continue;
    }
    std::vector<std::string> changed = changed_since(root, r, now);
    if (changed.empty()) {
      current.push_back(head);
      continue;
    }
    std::stable_partition(changed.begin(), changed.end(),
                          [](const std::string& p) { return p.rfind("common/", 0) != 0; });
    std::string line =
        head + ": " + std::to_string(changed.size()) + " of " + std::to_string(r.entries.size()) + " changed: ";
    for (std::size_t i = 0; i < changed.size() && i < 3; ++i) line += (i ? ", " : "") + changed[i];
    if (changed.size() > 3) line += " and " + std::to_string(changed.size() - 3) + " more";
    stale.push_back(line);
  }
  std::vector<std::string> out = {"stale, sources changed since the run: " + std::to_string(stale.size())};
  out.insert(out.end(), stale.begin(), stale.end());
  out.push_back("current, sources as measured: " + std::to_string(current.size()));
  out.insert(out.end(), current.begin(), current.end());
  if (!history.empty()) {
    out.push_back("history, logs of runs that cannot be repeated (a `# history:` line says why): " +
                  std::to_string(history.size()));
    out.insert(out.end(), history.begin(), history.end());
  }
  return out;
}

}  // namespace source_record
