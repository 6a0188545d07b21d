#pragma once
// Shared pieces of the fastcd reader fuzz harnesses (libFuzzer).
//
// The readers take file paths, so every input is written to a file in a per-process temporary
// folder and read back. A reader may reject an input only with a std::exception whose message
// names the reader and the file ("read_obj: '<path>' line 3: ..."); any other outcome is a
// finding: a crash, a sanitizer report, a timeout or out-of-memory (libFuzzer), an exception
// that is not a std::exception, an error message that does not name the reader and the file,
// or a result that breaks the reader's documented contract (indices out of range, NaN
// positions, wrong shapes). Findings abort() so libFuzzer keeps the input.
#include <unistd.h>

#include <Eigen/Core>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

namespace fastcd::fuzz {

/// The process's temporary folder (created on first use, removed at exit).
inline const std::string& temp_dir() {
  static const std::string dir = [] {
    char tmpl[] = "/tmp/fastcd-fuzz-XXXXXX";
    const char* d = ::mkdtemp(tmpl);
    if (!d) {
      std::perror("mkdtemp");
      std::abort();
    }
    std::string s(d);
    static std::string* keep = new std::string(s);
    std::atexit([] {
      std::string cmd = "rm -rf '" + *keep + "'";
      if (std::system(cmd.c_str()) != 0) {
      }
    });
    return s;
  }();
  return dir;
}

/// Writes `n` bytes to <temp_dir>/<name> and returns the path.
inline std::string write_input(const std::string& name, const std::uint8_t* data, std::size_t n) {
  const std::string path = temp_dir() + "/" + name;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) {
    std::perror(path.c_str());
    std::abort();
  }
  if (n && std::fwrite(data, 1, n, f) != n) std::abort();
  std::fclose(f);
  return path;
}

[[noreturn]] inline void finding(const std::string& what) {
  std::fprintf(stderr, "\n*** fastcd fuzz finding: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

/// The message of a rejected input must contain `fn` followed by ": " and the quoted path of
/// one of the files read (or "cannot open '<path>'").
inline void check_message(const std::exception& e, const char* fn, const std::string& path,
                          const std::string& path2 = std::string()) {
  const std::string_view m = e.what();
  const std::string head = std::string(fn) + ": ";
  const bool names_fn = m.substr(0, head.size()) == head;
  const bool names_file = m.find("'" + path + "'") != std::string_view::npos ||
                          (!path2.empty() && m.find("'" + path2 + "'") != std::string_view::npos);
  if (!names_fn || !names_file)
    finding(std::string("error message does not name the reader '") + fn + "' and the file: " + std::string(m));
  if (m.find('\n') != std::string_view::npos) finding("error message spans several lines: " + std::string(m));
}

template <class M>
void check_finite(const M& A, const char* what) {
  // (allFinite() walks every column even when there are no rows: skip empty matrices.)
  if (A.size() > 0 && !A.allFinite()) finding(std::string(what) + " has a NaN or Inf entry");
}

template <class M>
void check_indices(const M& T, Eigen::Index n, const char* what) {
  if (T.size() && (T.minCoeff() < 0 || T.maxCoeff() >= n))
    finding(std::string(what) + " has an index out of [0, " + std::to_string(n) + ")");
}

inline void check(bool ok, const char* what) {
  if (!ok) finding(what);
}

}  // namespace fastcd::fuzz

/// Defines LLVMFuzzerTestOneInput: writes the input to <name>, runs BODY (which may use
/// `path`), treats a std::exception as a rejection checked by check_message(e, FN, path).
#define FASTCD_FUZZ_READER(NAME, FN, BODY)                                            \
  extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) { \
    const std::string path = ::fastcd::fuzz::write_input(NAME, data, size);           \
    try {                                                                             \
      BODY                                                                            \
    } catch (const std::exception& e) {                                               \
      ::fastcd::fuzz::check_message(e, FN, path);                                     \
    }                                                                                 \
    return 0;                                                                         \
  }
