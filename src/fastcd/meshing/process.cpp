#include "fastcd/meshing/process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <thread>

#include "fastcd/common/cancel.hpp"

extern char** environ;

namespace fastcd::detail {

int run_program(const std::vector<std::string>& args, const std::string& log_path, double timeout_seconds,
                const char* who) {
  if (args.empty()) throw std::invalid_argument(std::string(who) + ": no program to run");
  std::vector<char*> argv;
  for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 1, log_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, 1, 2);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0)
    throw std::runtime_error(std::string(who) + ": cannot run '" + args[0] + "': " + std::strerror(rc) +
                             (rc == ENOENT ? " (not installed? Debian: apt-get install " + args[0] + ")" : ""));
  const auto t0 = std::chrono::steady_clock::now();
  for (;;) {
    int status = 0;
    const pid_t w = waitpid(pid, &status, WNOHANG);
    if (w == pid) {
      if (WIFEXITED(status)) return WEXITSTATUS(status);
      if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
      continue;
    }
    if (w < 0 && errno != EINTR) throw std::runtime_error(std::string(who) + ": waitpid: " + std::strerror(errno));
    const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const bool cancel = cancel_requested();
    if (cancel || elapsed > timeout_seconds) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      if (cancel) throw_if_cancelled(who);
      throw std::runtime_error(std::string(who) + ": '" + args[0] + "' did not finish within " +
                               std::to_string(static_cast<long>(timeout_seconds)) + " s; killed");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

std::string last_lines(const std::string& path, int n) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);)
    if (l.find_first_not_of(" \t\r") != std::string::npos) lines.push_back(l);
  std::string out;
  for (std::size_t i = lines.size() > static_cast<std::size_t>(n) ? lines.size() - static_cast<std::size_t>(n) : 0;
       i < lines.size(); ++i)
    out += (out.empty() ? "" : " | ") + lines[i];
  return out;
}

}  // namespace fastcd::detail
