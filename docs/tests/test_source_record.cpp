// source_record.hpp: a results file's record of the sources it measured, read from a build's dependency files, and
// the staleness list doc_sync renders from it. Works in a scratch repository with a hand-made build folder laid out
// as CMake's Makefile generator lays it out (CMakeFiles/<target>.dir/DependInfo.cmake and a .o.d per object).
#include <unistd.h>  // getpid

#include <filesystem>
#include <fstream>
#include <string>

#include "source_record.hpp"
#include "tc_test/catch.hpp"

namespace fs = std::filesystem;

namespace {

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

// A repository with one chapter target, "ch", that links "lib": ch's main.cu includes ch/kernel.cuh and a system
// header; lib's file includes common/a.hpp and a header the build generated. Its results folder holds one run.
struct ScratchRepo {
  // One folder per process: ctest runs each test case as a process of its own, several at once (-j).
  fs::path root = fs::temp_directory_path() / ("tc_source_record_test_" + std::to_string(::getpid()));
  fs::path build = root / "build/default";

  ScratchRepo() {
    fs::remove_all(root);
    write(root / "ch/main.cu", "int main() {}\n");
    write(root / "ch/kernel.cuh", "// kernel\n");
    write(root / "common/a.hpp", "// a\n");
    write(root / "common/lib.cpp", "// lib\n");
    write(root / "common/unused.hpp", "// included by nothing\n");
    write(build / "common/generated.hpp", "// generated\n");
    const fs::path lib_info = build / "common/CMakeFiles/lib.dir/DependInfo.cmake";
    write(lib_info, "set(CMAKE_DEPENDS_DEPENDENCY_FILES\n  \"" + (root / "common/lib.cpp").string() +
                        "\" \"common/CMakeFiles/lib.dir/lib.cpp.o\" \"gcc\" \"common/CMakeFiles/lib.dir/lib.cpp.o.d\"\n"
                        "  )\n\nset(CMAKE_TARGET_LINKED_INFO_FILES\n  )\n");
    // A relative prerequisite resolves against the folder the compiler ran in (build/common for lib).
    write(build / "common/CMakeFiles/lib.dir/lib.cpp.o.d",
          "common/CMakeFiles/lib.dir/lib.cpp.o: " + (root / "common/lib.cpp").string() +
              " \\\n  ../../../common/a.hpp \\\n  " + (build / "common/generated.hpp").string() +
              " /usr/include/stdio.h\n");
    write(build / "ch/CMakeFiles/ch.dir/DependInfo.cmake",
          "set(CMAKE_DEPENDS_DEPENDENCY_FILES\n  \"" + (root / "ch/main.cu").string() +
              "\" \"ch/CMakeFiles/ch.dir/main.cu.o\" \"gcc\" \"ch/CMakeFiles/ch.dir/main.cu.o.d\"\n  )\n\n"
              "set(CMAKE_TARGET_LINKED_INFO_FILES\n  \"" +
              lib_info.string() + "\"\n  )\n");
    write(build / "ch/CMakeFiles/ch.dir/main.cu.o.d",
          "ch/CMakeFiles/ch.dir/main.cu.o: \\\n  " + (root / "ch/main.cu").string() + " \\\n  " +
              (root / "ch/kernel.cuh").string() + "\n" + (root / "ch/kernel.cuh").string() + ":\n");
    write(root / "docs/results/run.txt", "# command: ch\n# device: a GPU\n\n== result ==\n42\n");
  }
  ~ScratchRepo() { fs::remove_all(root); }
};

}  // namespace

TEST_CASE("the content hash is 64-bit FNV-1a", "[source_record]") {
  // The published FNV-1a 64 test vectors (the offset basis for "", and "a", "foobar").
  CHECK(source_record::content_hash("") == "cbf29ce484222325");
  CHECK(source_record::content_hash("a") == "af63dc4c8601ec8c");
  CHECK(source_record::content_hash("foobar") == "85944171f73967e8");
}

TEST_CASE("a depfile's prerequisites are every rule's, continuations and escaped spaces read", "[source_record]") {
  const std::vector<std::string> p =
      source_record::depfile_prerequisites("x.o: /a/b.cu \\\n  /a/my\\ dir/c.h\\\n /d.h\n/a/my\\ dir/c.h:\n");
  CHECK(p == std::vector<std::string>{"/a/b.cu", "/a/my dir/c.h", "/d.h"});
}

TEST_CASE("a record lists exactly the repository files the targets were compiled from", "[source_record]") {
  const ScratchRepo repo;
  const std::vector<std::string> files = source_record::repository_sources(repo.root, {repo.build}, {"ch"});
  // Through the linked target's DependInfo; without the system header, the generated one or the file nobody includes.
  CHECK(files == std::vector<std::string>{"ch/kernel.cuh", "ch/main.cu", "common/a.hpp", "common/lib.cpp"});
  CHECK(tc::test::thrown_message<std::runtime_error>([&] {
          source_record::repository_sources(repo.root, {repo.build}, {"nope"});
        }).find("no target 'nope'") != std::string::npos);
}

TEST_CASE("a recorded results file is current until one of its sources changes", "[source_record]") {
  const ScratchRepo repo;
  const fs::path results = repo.root / "docs/results";
  CHECK(tc::test::thrown_message<std::runtime_error>([&] {
          source_record::staleness_lines(repo.root);
        }).find("has no '# commit:' line") != std::string::npos);

  source_record::write_record(repo.root, results / "run.txt", {repo.build}, "abc1234 (today)", {"ch"}, repo.root);
  const std::vector<std::string> lines = docs_tools::read_lines(results / "run.txt");
  REQUIRE(lines.size() == 7);
  CHECK(lines[2] == "# commit:  abc1234 (today)");  // after the leading "# " lines, before the output
  CHECK(lines[3].rfind("# sources: ", 0) == 0);
  CHECK(lines[3].find(" over 4 files (sources/run.txt.sources)") != std::string::npos);
  CHECK(source_record::staleness_lines(repo.root) == std::vector<std::string>{"stale, sources changed since the run: 0",
                                                                              "current, sources as measured: 1",
                                                                              "  run.txt (abc1234)"});

  // Recording again replaces the two lines rather than adding more.
  source_record::write_record(repo.root, results / "run.txt", {repo.build}, "def5678", {"ch"}, repo.root);
  CHECK(docs_tools::read_lines(results / "run.txt").size() == 7);

  // A file nobody includes changes: still current. An included header changes: stale, naming it.
  write(repo.root / "common/unused.hpp", "// edited\n");
  CHECK(source_record::staleness_lines(repo.root)[0] == "stale, sources changed since the run: 0");
  write(repo.root / "common/a.hpp", "// a, edited\n");
  CHECK(source_record::staleness_lines(repo.root)[1] == "  run.txt (def5678): 1 of 4 changed: common/a.hpp");
  // A deleted file is a change.
  fs::remove(repo.root / "ch/kernel.cuh");
  CHECK(source_record::staleness_lines(repo.root)[1] ==
        "  run.txt (def5678): 2 of 4 changed: ch/kernel.cuh, common/a.hpp");
}

TEST_CASE("a log with a history line is listed apart, neither stale nor current", "[source_record]") {
  const ScratchRepo repo;
  const fs::path results = repo.root / "docs/results";
  write(results / "run.txt", "# command: ch, once per variant\n# history: variants never committed\n\n== a ==\n1\n");
  source_record::write_record(repo.root, results / "run.txt", {repo.build}, "abc1234 (today)", {"ch"}, repo.root);
  write(repo.root / "common/a.hpp", "// a, edited\n");  // its sources change: a log stays a log
  CHECK(source_record::staleness_lines(repo.root) ==
        std::vector<std::string>{"stale, sources changed since the run: 0", "current, sources as measured: 0",
                                 "history, logs of runs that cannot be repeated (a `# history:` line says why): 1",
                                 "  run.txt (abc1234): variants never committed"});
}

TEST_CASE("a moved source is no change, an edited include is", "[source_record]") {
  const ScratchRepo repo;
  write(repo.root / "ch/main.cu", "#include \"ch/kernel.cuh\"\n#include <cstdio>\nint main() {}\n");
  source_record::write_record(repo.root, repo.root / "docs/results/run.txt", {repo.build}, "abc1234", {"ch"},
                              repo.root);
  // kernel.cuh moves to another folder, and the line that includes it follows: nothing compiled changed.
  fs::create_directories(repo.root / "ch/kernels");
  fs::rename(repo.root / "ch/kernel.cuh", repo.root / "ch/kernels/kernel.cuh");
  write(repo.root / "ch/main.cu", "#include \"ch/kernels/kernel.cuh\"\n#include <cstdio>\nint main() {}\n");
  CHECK(source_record::staleness_lines(repo.root)[0] == "stale, sources changed since the run: 0");
  // Including another file is a change, even with the rest of the file as it was.
  write(repo.root / "ch/main.cu",
        "#include \"ch/kernels/kernel.cuh\"\n#include <cstdlib>\nint main() {}\n");
  CHECK(source_record::staleness_lines(repo.root)[1] == "  run.txt (abc1234): 1 of 4 changed: ch/main.cu");
}

TEST_CASE("a record reconstructed from an older tree hashes that tree's bytes", "[source_record]") {
  const ScratchRepo repo;
  const fs::path old_tree = repo.root.string() + "_old";
  fs::remove_all(old_tree);
  fs::create_directories(old_tree);
  fs::copy(repo.root / "ch", old_tree / "ch", fs::copy_options::recursive);
  fs::copy(repo.root / "common", old_tree / "common", fs::copy_options::recursive);
  write(old_tree / "ch/kernel.cuh", "// the kernel as it was\n");
  fs::remove(old_tree / "common/a.hpp");  // not yet written then: recorded as absent
  source_record::write_record(repo.root, repo.root / "docs/results/run.txt", {repo.build}, "0ld0ld0 (reconstructed)",
                              {"ch"}, old_tree);
  fs::remove_all(old_tree);
  const std::string manifest = docs_tools::read_text(repo.root / "docs/results/sources/run.txt.sources");
  CHECK(manifest.find("absent common/a.hpp\n") != std::string::npos);
  CHECK(source_record::staleness_lines(repo.root)[1] ==
        "  run.txt (0ld0ld0): 2 of 4 changed: ch/kernel.cuh, common/a.hpp");
}

TEST_CASE("a manifest that does not give its results file's digest is an error", "[source_record]") {
  const ScratchRepo repo;
  const fs::path results = repo.root / "docs/results";
  source_record::write_record(repo.root, results / "run.txt", {repo.build}, "abc1234", {"ch"}, repo.root);
  std::string manifest = docs_tools::read_text(results / "sources/run.txt.sources");
  manifest.replace(manifest.rfind('\n', manifest.size() - 2) + 1, 16, "0123456789abcdef");
  write(results / "sources/run.txt.sources", manifest);
  CHECK(tc::test::thrown_message<std::runtime_error>([&] {
          source_record::staleness_lines(repo.root);
        }).find("were not written together") != std::string::npos);
}
