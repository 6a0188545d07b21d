#include "interrupt.hpp"

#include <semaphore.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include "fastcd/common/cancel.hpp"
#if FASTCD_HAVE_VIZ
#include "fastcd/viz/video.hpp"
#endif

namespace fastcd::cli {

namespace {

// How long the normal unwinding may take before the watchdog ends the process itself.
constexpr auto kGrace = std::chrono::milliseconds(600);

sem_t g_wake;
// The watchdog thread may read these after main has returned and the exit handlers run (the
// normal unwinding took longer than the grace period): they are never destroyed.
std::mutex& g_mutex = *new std::mutex;  // guards g_phase and g_paths
std::string& g_phase = *new std::string("starting");
std::vector<std::string>& g_paths = *new std::vector<std::string>;

const char* signal_name(int sig) { return sig == SIGINT ? "SIGINT" : sig == SIGTERM ? "SIGTERM" : "a signal"; }

extern "C" void on_signal(int sig) {
  g_interrupt_signal = sig;
  fastcd::request_cancel();
  std::signal(sig, SIG_DFL);
  sem_post(&g_wake);  // async-signal-safe
}

std::atomic<bool> g_reported{false};

[[noreturn]] void watchdog() {
  while (sem_wait(&g_wake) != 0) {
  }
  std::this_thread::sleep_for(kGrace);
  const int sig = g_interrupt_signal;
#if FASTCD_HAVE_VIZ
  terminate_encoders();  // no ffmpeg may finish a file after we are gone
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
#endif
  if (!claim_interrupt_report()) {
    // main unwound and reported just now: let it exit, and end the process only if it does not.
    std::this_thread::sleep_for(kGrace);
    ::_exit(128 + sig);
  }
  std::string phase;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    phase = g_phase;
    for (const auto& p : g_paths) {
      std::error_code ec;
      std::filesystem::remove_all(p, ec);
    }
  }
  std::fflush(stdout);
  std::fprintf(stderr, "fastcd: error: %s\n", interrupted_message(sig, phase).c_str());
  std::fflush(stderr);
  ::_exit(128 + sig);
}

}  // namespace

void install_interrupt_handlers() {
  sem_init(&g_wake, 0, 0);
  std::thread(watchdog).detach();
  struct sigaction sa {};
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  sigaction(SIGINT, &sa, nullptr);
  sigaction(SIGTERM, &sa, nullptr);
}

std::string interrupted_message(int sig, const std::string& where) {
  return std::string("interrupted by ") + signal_name(sig) + " while " + where +
         "; nothing was written (partial output removed)";
}

void check_interrupt(const std::string& where) {
  const int sig = g_interrupt_signal;
  if (sig != 0) throw Interrupted(sig, interrupted_message(sig, where));
}

void set_phase(const std::string& phase) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_phase = phase;
}

bool claim_interrupt_report() { return !g_reported.exchange(true); }

std::string current_phase() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_phase;
}

OutputFolderCaller output_folder_caller() {
  OutputFolderCaller c;
  c.out_option = "--out";
  c.force_option = "--force";
  c.watch = [](const std::string& path) {
    std::lock_guard<std::mutex> lock(g_mutex);
    g_paths.push_back(path);
  };
  c.unwatch = [](const std::string& path) {
    std::lock_guard<std::mutex> lock(g_mutex);
    const auto it = std::find(g_paths.begin(), g_paths.end(), path);
    if (it != g_paths.end()) g_paths.erase(it);
  };
  c.restored = [](const std::filesystem::path& target) {
    std::fprintf(stdout, "restored the earlier bake '%s' (a killed fastcd run was replacing it)\n",
                 target.string().c_str());
    std::fflush(stdout);
  };
  return c;
}

}  // namespace fastcd::cli
