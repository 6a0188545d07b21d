#include "fastcd/common/threads.hpp"

#include <dlfcn.h>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "fastcd/common/cancel.hpp"
#include "fastcd/common/check.hpp"

namespace fastcd {

namespace {

constexpr int kMaxThreads = 1024;

std::atomic<int> g_set{0};  ///< set_threads' value; 0 = not set

/// FASTCD_THREADS, read once (0 when unset or "auto"). A malformed value is an error at the first
/// call that needs it, naming the variable.
int env_threads() {
  static const int v = [] {
    const char* e = std::getenv("FASTCD_THREADS");
    return (e && *e) ? parse_thread_count(e, "FASTCD_THREADS") : 0;
  }();
  return v;
}

int hardware_threads() {
  const unsigned h = std::thread::hardware_concurrency();
  return h == 0 ? 1 : static_cast<int>(std::min<unsigned>(h, kMaxThreads));
}

/// One arena per concurrency (task_arena::execute is thread-safe, and arenas are costly to make).
tbb::task_arena& arena(int n) {
  static std::mutex m;
  static std::map<int, std::unique_ptr<tbb::task_arena>> arenas;
  std::lock_guard<std::mutex> lock(m);
  auto& a = arenas[n];
  if (!a) a = std::make_unique<tbb::task_arena>(n);
  return *a;
}

// ---- OpenBLAS, found at run time (CHOLMOD links the libblas.so.3 alternative, which is OpenBLAS
// on the machines fastcd is built for, and may be the reference BLAS elsewhere).
using SetThreads = void (*)(int);
using GetThreads = int (*)();
struct Blas {
  SetThreads set = nullptr;
  GetThreads get = nullptr;
};

const Blas& blas() {
  static const Blas b = [] {
    Blas r;
    auto find = [&](void* handle) {
      if (!handle) return;
      if (!r.set) r.set = reinterpret_cast<SetThreads>(dlsym(handle, "openblas_set_num_threads"));
      if (!r.get) r.get = reinterpret_cast<GetThreads>(dlsym(handle, "openblas_get_num_threads"));
    };
    find(RTLD_DEFAULT);
    // In a Python extension module (loaded RTLD_LOCAL) the BLAS is not in the global scope: ask
    // for the already-loaded libraries by name (RTLD_NOLOAD loads nothing new).
    for (const char* name : {"libblas.so.3", "libopenblas.so.0", "libopenblasp.so.0"}) {
      if (r.set && r.get) break;
      find(dlopen(name, RTLD_NOW | RTLD_NOLOAD));
    }
    if (!r.set || !r.get) r = Blas{};
    return r;
  }();
  return b;
}

std::mutex g_blas_mutex;
int g_blas_scopes = 0;
int g_blas_saved = 1;

}  // namespace

int parse_thread_count(const std::string& text, const std::string& what) {
  if (text == "auto" || text == "0") return 0;
  long v = -1;
  if (!text.empty() && text.size() <= 5 && text.find_first_not_of("0123456789") == std::string::npos)
    v = std::stol(text);
  FASTCD_CHECK(v >= 1 && v <= kMaxThreads, what, " must be a thread count in [1, ", kMaxThreads, "] or 'auto', got '",
               text, "'");
  return static_cast<int>(v);
}

bool threads_set_explicitly() { return g_set.load(std::memory_order_relaxed) > 0 || env_threads() > 0; }

int threads() {
  const int s = g_set.load(std::memory_order_relaxed);
  if (s > 0) return s;
  const int e = env_threads();
  return e > 0 ? e : hardware_threads();
}

int fine_threads() { return threads_set_explicitly() ? threads() : 1; }

void set_threads(int n) {
  FASTCD_CHECK(n >= 0 && n <= kMaxThreads, "set_threads: n must be in [0, ", kMaxThreads, "] (0 = default), got ", n);
  g_set.store(n, std::memory_order_relaxed);
}

void parallel_for(Index n, Index grain, const std::function<void(Index, Index)>& body, int max_threads) {
  if (n <= 0) return;
  grain = std::max<Index>(grain, 1);
  const int t = max_threads > 0 ? max_threads : threads();
  if (t <= 1 || n <= grain) {
    body(0, n);
    return;
  }
  // The caller's job token goes with every chunk: a task stolen by another job's thread while it
  // waits answers to this job's cancellation, not to that thread's.
  const CancelToken* token = current_cancel_token();
  auto run = [&] {
    tbb::parallel_for(tbb::blocked_range<Index>(0, n, grain), [&](const tbb::blocked_range<Index>& r) {
      const CancelScope scope(token);
      body(r.begin(), r.end());
    });
  };
  // Inside another fastcd parallel loop (a character's precompute run per character): share that
  // loop's threads instead of adding more.
  if (tbb::this_task_arena::current_thread_index() != tbb::task_arena::not_initialized &&
      tbb::this_task_arena::max_concurrency() <= t)
    run();
  else
    arena(t).execute(run);
}

SingleThreadedBlas::SingleThreadedBlas() {
  const Blas& b = blas();
  if (!b.set) return;
  std::lock_guard<std::mutex> lock(g_blas_mutex);
  if (g_blas_scopes++ == 0) {
    g_blas_saved = b.get();
    if (g_blas_saved != 1) b.set(1);
  }
}

SingleThreadedBlas::~SingleThreadedBlas() {
  const Blas& b = blas();
  if (!b.set) return;
  std::lock_guard<std::mutex> lock(g_blas_mutex);
  if (--g_blas_scopes == 0 && g_blas_saved != 1) b.set(g_blas_saved);
}

int blas_threads() {
  const Blas& b = blas();
  return b.get ? b.get() : 0;
}

}  // namespace fastcd
