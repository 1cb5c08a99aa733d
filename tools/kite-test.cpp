// kite-test: runs the test cases a Kite program carries in its leading
// comment block (docs/kite-test.md).
//
//   // run: 25
//   // expect: 75025
//
//   kite-test prog.kite other.kite          compile each file once, run each case
//   kite-test --device gpu --lanes 32 *.kite   kite-run's options pass through
//   kite-test --races prog.kite             each case in kite-interp --races
//
// Each file is compiled by kitec and each case run by kite-run (with
// --races, by kite-interp --races, the race detector), found beside
// kite-test's own executable, else on PATH. Their output goes to files
// in a private temporary directory, which is read back once the process has
// exited: no pipes, so a chatty program cannot block on a full one.
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iostream>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "host/options.h"

extern char **environ;

namespace {

// One `// run:` line and what follows it.
struct Case {
  int line = 0;
  std::string args;                 // as written after `run:`
  std::vector<std::string> expect;  // `// expect:` lines, in order
  bool unordered = false;           // `// expect-unordered`
  std::vector<std::string> errors;  // `// expect-error:` texts
};

struct TestFile {
  std::vector<Case> cases;
  std::vector<std::string> compile_errors;    // `// compile-error:` texts
  std::vector<std::string> compile_warnings;  // `// compile-warning:` texts
};

std::string trim_right(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

// Reads the header: the lines at the top of the file that start with `//`
// (after optional white space). A directive is `// word: text`; `// word:`
// lines whose word looks like a misspelt directive (it starts with run,
// expect or compile) are errors rather than silently ignored comments.
// Throws std::runtime_error with "line N: ..." on a malformed header.
TestFile parse_header(const std::string &text) {
  static const std::vector<std::string> known = {
      "run", "expect", "expect-unordered", "expect-error", "compile-error", "compile-warning"};
  TestFile t;
  std::istringstream in(text);
  std::string line;
  int n = 0;
  auto fail = [&](const std::string &msg) {
    throw std::runtime_error("line " + std::to_string(n) + ": " + msg);
  };
  while (std::getline(in, line)) {
    ++n;
    size_t p = line.find_first_not_of(" \t");
    if (p == std::string::npos || line.compare(p, 2, "//") != 0) break;
    p = line.find_first_not_of(" \t", p + 2);
    if (p == std::string::npos) continue;
    size_t w = p;
    while (w < line.size() && (std::islower(static_cast<unsigned char>(line[w])) || line[w] == '-'))
      ++w;
    std::string word = line.substr(p, w - p);
    bool colon = w < line.size() && line[w] == ':';
    std::string rest = line.substr(colon ? w + 1 : w);
    bool at_end = trim_right(rest).empty();
    bool is_known = std::find(known.begin(), known.end(), word) != known.end();
    // `// expect-unordered` stands alone; every other directive has a colon.
    if (word == "expect-unordered" && (colon || at_end)) {
      if (!at_end) fail("'expect-unordered' takes no text");
    } else if (!colon) {
      continue;
    } else if (!is_known) {
      if (word.rfind("run", 0) == 0 || word.rfind("expect", 0) == 0 ||
          word.rfind("compile", 0) == 0)
        fail("unknown directive '" + word + ":' (kite-test knows run:, expect:, " +
             "expect-unordered, expect-error:, compile-error: and compile-warning:)");
      continue;
    }
    // The text starts after one optional space and ends before trailing
    // white space, so `// expect: 5 ` and `// expect:5` both expect "5".
    if (!rest.empty() && rest[0] == ' ') rest.erase(0, 1);
    rest = trim_right(rest);
    if (word == "run") {
      if (!t.compile_errors.empty()) fail("a file with 'compile-error:' has no 'run:' cases");
      t.cases.push_back(Case{n, rest, {}, false, {}});
    } else if (word == "compile-error") {
      if (!t.cases.empty()) fail("a file with 'run:' cases cannot expect a compile error");
      if (rest.empty()) fail("'compile-error:' needs the text the error must contain");
      t.compile_errors.push_back(rest);
    } else if (word == "compile-warning") {
      if (rest.empty()) fail("'compile-warning:' needs the text the warning must contain");
      t.compile_warnings.push_back(rest);
    } else {
      if (t.cases.empty()) fail("'" + word + "' before the first 'run:' line");
      Case &c = t.cases.back();
      if (word == "expect")
        c.expect.push_back(rest);
      else if (word == "expect-unordered")
        c.unordered = true;
      else {
        if (rest.empty()) fail("'expect-error:' needs the text the error message must contain");
        c.errors.push_back(rest);
      }
    }
  }
  if (t.cases.empty() && t.compile_errors.empty())
    throw std::runtime_error(
        "no test cases (no '// run: ARGS' or '// compile-error: TEXT' line in the comment lines "
        "that start the file)");
  return t;
}

std::optional<std::string> read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::vector<std::string> split_lines(const std::string &s) {
  std::vector<std::string> lines;
  std::istringstream in(s);
  std::string l;
  while (std::getline(in, l)) lines.push_back(l);
  return lines;
}

std::vector<std::string> split_words(const std::string &s) {
  std::vector<std::string> words;
  std::istringstream in(s);
  std::string w;
  while (in >> w) words.push_back(w);
  return words;
}

std::string dirname_of(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

bool is_executable(const std::string &path) {
  struct stat st;
  return stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && access(path.c_str(), X_OK) == 0;
}

// kitec or kite-run: beside this executable, else the bare name for PATH.
std::string find_tool(const std::string &name) {
  char buf[4096];
  ssize_t len = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (len > 0) {
    buf[len] = 0;
    std::string beside = dirname_of(buf) + "/" + name;
    if (is_executable(beside)) return beside;
  }
  return name;
}

struct Result {
  int status = -1;  // the exit status; 128 + N for a signal
  std::string out, err;
};

// Runs argv with stdin from /dev/null and stdout/stderr into files under dir
// (named after tag), waits for it and reads both back. A program that
// cannot be started is reported as status 127 with the reason in err, as a
// shell would.
Result run_process(const std::vector<std::string> &argv, const std::string &dir,
                   const std::string &tag) {
  std::string out_path = dir + "/" + tag + ".out", err_path = dir + "/" + tag + ".err";
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  posix_spawn_file_actions_addopen(&fa, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
  std::vector<char *> cargv;
  for (const std::string &a : argv) cargv.push_back(const_cast<char *>(a.c_str()));
  cargv.push_back(nullptr);
  pid_t pid;
  int rc = posix_spawnp(&pid, cargv[0], &fa, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  Result r;
  if (rc != 0) {
    r.status = 127;
    r.err = "cannot run " + argv[0] + ": " + std::strerror(rc);
    return r;
  }
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
  }
  r.status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
  r.out = read_file(out_path).value_or("");
  r.err = read_file(err_path).value_or("");
  unlink(out_path.c_str());
  unlink(err_path.c_str());
  return r;
}

std::string indent(const std::vector<std::string> &lines) {
  if (lines.empty()) return "    (nothing)\n";
  std::string s;
  for (const std::string &l : lines) s += "    " + l + "\n";
  return s;
}

std::string indent_text(const std::string &text) { return indent(split_lines(text)); }

struct Options {
  std::string kitec, kite_run, kite_interp;
  bool races = false;                    // run each case in kite-interp --races instead of kite-run
  std::vector<std::string> run_options;  // passed to kite-run before the program
  std::vector<std::string> kitec_options;
  std::string tmpdir;
};

// Tests one file; returns its report (one PASS/FAIL line, then details) and
// whether it passed.
std::pair<bool, std::string> test_file(const Options &o, const std::string &path, int index) {
  auto fail = [&](const std::string &why) {
    std::string msg = "FAIL " + path + ": " + why;
    if (msg.back() != '\n') msg += "\n";
    return std::make_pair(false, msg);
  };
  std::optional<std::string> text = read_file(path);
  if (!text) return fail(std::string("cannot read the file: ") + std::strerror(errno));
  TestFile t;
  try {
    t = parse_header(*text);
  } catch (const std::runtime_error &e) {
    return fail(e.what());
  }
  std::string tag = "f" + std::to_string(index);
  std::string artifact = o.tmpdir + "/" + tag + ".kart";
  std::vector<std::string> cc = {o.kitec};
  cc.insert(cc.end(), o.kitec_options.begin(), o.kitec_options.end());
  cc.insert(cc.end(), {path, "-o", artifact});
  Result c = run_process(cc, o.tmpdir, tag + "-kitec");
  if (!t.compile_errors.empty()) {
    unlink(artifact.c_str());
    if (c.status == 0) return fail("compiling succeeded, but a compile error was expected");
    for (const std::string &e : t.compile_errors)
      if (c.err.find(e) == std::string::npos)
        return fail("the compile error does not contain \"" + e + "\"\n  kitec said:\n" +
                    indent_text(c.err));
    return {true, "PASS " + path + " (compile error)\n"};
  }
  if (c.status != 0) return fail("compiling failed:\n" + indent_text(c.err));
  for (const std::string &w : t.compile_warnings)
    if (c.err.find(w) == std::string::npos) {
      unlink(artifact.c_str());
      return fail("kitec's messages do not contain \"" + w + "\"\n  kitec said:\n" +
                  indent_text(c.err));
    }
  std::string dir = dirname_of(path);
  std::string report;
  int failed = 0;
  for (size_t k = 0; k < t.cases.size(); ++k) {
    const Case &cs = t.cases[k];
    // kite-interp takes kite-run's command line, and the source itself (it
    // runs the checked source, not the compiled file).
    std::vector<std::string> argv = {o.races ? o.kite_interp : o.kite_run};
    if (o.races) argv.push_back("--races");
    argv.insert(argv.end(), o.run_options.begin(), o.run_options.end());
    argv.push_back(o.races ? path : artifact);
    // `--` so that arguments such as -5 are never read as options.
    argv.push_back("--");
    for (std::string w : split_words(cs.args)) {
      // @file names a file relative to the program, as the program's author sees it.
      if (w.size() > 1 && w[0] == '@' && w[1] != '/') w = "@" + dir + "/" + w.substr(1);
      argv.push_back(w);
    }
    Result r = run_process(argv, o.tmpdir, tag + "-run");
    std::string where = "line " + std::to_string(cs.line) + " (run: " + cs.args + "): ";
    std::vector<std::string> actual = split_lines(r.out);
    std::string problem;
    if (!cs.errors.empty()) {
      if (r.status == 0)
        problem = "the run succeeded, but an error was expected\n";
      else
        for (const std::string &e : cs.errors)
          if (r.err.find(e) == std::string::npos) {
            problem = "the error does not contain \"" + e + "\"\n";
            break;
          }
      if (!problem.empty()) problem += "  stderr:\n" + indent_text(r.err);
    } else if (r.status != 0) {
      problem = "exit status " + std::to_string(r.status) + "\n  stderr:\n" + indent_text(r.err);
    }
    // With expect-error and no expect lines, the output is not checked.
    if (problem.empty() && (cs.errors.empty() || !cs.expect.empty())) {
      std::vector<std::string> want = cs.expect, got = actual;
      if (cs.unordered) {
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
      }
      if (want != got)
        problem = std::string("the output differs") + (cs.unordered ? " (in any order)" : "") +
                  "\n  expected:\n" + indent(cs.expect) + "  actual:\n" + indent(actual) +
                  (r.err.empty() ? "" : "  stderr:\n" + indent_text(r.err));
    }
    if (!problem.empty()) {
      ++failed;
      report += "  " + where + problem;
    }
  }
  unlink(artifact.c_str());
  size_t n = t.cases.size();
  std::string cases = std::to_string(n) + (n == 1 ? " case" : " cases");
  if (failed == 0) return {true, "PASS " + path + " (" + cases + ")\n"};
  return {false,
          "FAIL " + path + ": " + std::to_string(failed) + " of " + cases + " failed\n" + report};
}

// True for kite-run's options that take a value as the next word.
bool takes_value(const std::string &opt) {
  const kite::host::OptionSpec *spec = kite::host::find_option(kite::host::Tool::Run, opt);
  return spec && *spec->value != '\0';
}

}  // namespace

int main(int argc, char **argv) {
  CLI::App app{"kite-test: runs the test cases written at the top of Kite programs"};
  app.name("kite-test");
  app.set_version_flag("--version", "kite-test " KITE_VERSION,
                       "print kite-test's version and exit");
  std::vector<std::string> files;
  std::string device;
  int jobs = 1;
  std::vector<std::string> kitec_options;
  app.add_option("files", files, "Kite programs with test headers");
  app.add_option("--device", device,
                 "the device to run on: cpu, gpu or an index (kite-run's; default: kite-run's)");
  app.add_option("-j,--jobs", jobs, "test this many files at once")
      ->check(CLI::Range(1, 64))
      ->capture_default_str();
  bool races = false;
  app.add_flag("--races", races,
               "run each case in kite-interp --races, the race detector, instead of kite-run: "
               "a race fails the case with its report");
  app.add_option("--kitec-option", kitec_options,
                 "pass this option to kitec (repeatable), e.g. --kitec-option=-O0")
      ->allow_extra_args(false);
  app.footer(
      "Every other option (one not listed above) is passed to kite-run, with its value:\n"
      "kite-test --lanes 32 --heap 64M prog.kite\n");
  // kite-run's options are told apart from kite-test's before CLI11 sees the
  // command line: a word starting with '-' that is not kite-test's own goes
  // to kite-run, with the next word when that option takes a value.
  Options o;
  std::vector<std::string> own;
  static const std::vector<std::string> own_options = {"--device", "-j", "--jobs", "--kitec-option",
                                                       "--races",  "-h", "--help", "--version"};
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    std::string name = a.substr(0, a.find('='));
    bool mine = std::find(own_options.begin(), own_options.end(), name) != own_options.end() ||
                (a.size() > 2 && a.rfind("-j", 0) == 0 && std::isdigit((unsigned char)a[2]));
    if (a.empty() || a[0] != '-' || mine) {
      own.push_back(a);
      // The value of one of kite-test's own options may start with '-'.
      if ((a == "--device" || a == "-j" || a == "--jobs" || a == "--kitec-option") && i + 1 < argc)
        own.push_back(argv[++i]);
      continue;
    }
    o.run_options.push_back(a);
    if (name == a && takes_value(a) && i + 1 < argc) o.run_options.push_back(argv[++i]);
  }
  std::reverse(own.begin(), own.end());
  try {
    app.parse(own);
  } catch (const CLI::ParseError &e) {
    if (e.get_exit_code() == 0) return app.exit(e);
    std::cerr << "kite-test: error: " << e.what() << "\n";
    return 1;
  }
  if (files.empty()) {
    std::cerr << "kite-test: error: no files to test (kite-test [options] FILE.kite...)\n";
    return 1;
  }
  o.kitec = find_tool("kitec");
  o.kite_run = find_tool("kite-run");
  o.kite_interp = find_tool("kite-interp");
  o.races = races;
  o.kitec_options = kitec_options;
  if (!device.empty()) o.run_options.insert(o.run_options.begin(), {"--device", device});
  const char *tmp = std::getenv("TMPDIR");
  std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/kite-test.XXXXXX";
  if (!mkdtemp(templ.data())) {
    std::cerr << "kite-test: error: cannot make a temporary directory " << templ << ": "
              << std::strerror(errno) << "\n";
    return 1;
  }
  o.tmpdir = templ;

  // Files are tested by `jobs` threads; reports are printed in the order of
  // the command line as soon as every earlier file is done.
  std::vector<std::optional<std::pair<bool, std::string>>> results(files.size());
  std::mutex mu;
  std::atomic<size_t> next{0};
  size_t printed = 0;
  int passed = 0, failed = 0;
  auto worker = [&] {
    for (size_t i; (i = next++) < files.size();) {
      auto r = test_file(o, files[i], static_cast<int>(i));
      std::lock_guard<std::mutex> lock(mu);
      results[i] = std::move(r);
      while (printed < files.size() && results[printed]) {
        std::cout << results[printed]->second << std::flush;
        (results[printed]->first ? passed : failed)++;
        ++printed;
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 0; t < std::min<int>(jobs, static_cast<int>(files.size())); ++t)
    threads.emplace_back(worker);
  for (std::thread &t : threads) t.join();
  rmdir(o.tmpdir.c_str());
  std::cout << files.size() << (files.size() == 1 ? " file: " : " files: ") << passed << " passed, "
            << failed << " failed\n";
  return failed == 0 ? 0 : 1;
}
