#include "fastcd/viz/video.hpp"

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <bit>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "fastcd/common/cancel.hpp"
#include "fastcd/io/atomic_file.hpp"

extern char** environ;

namespace fastcd {

namespace {

// The ffmpeg children alive now (for terminate_encoders).
std::mutex g_encoders_mutex;
std::vector<pid_t> g_encoders;

void register_encoder(pid_t pid) {
  std::lock_guard<std::mutex> lock(g_encoders_mutex);
  g_encoders.push_back(pid);
}

void unregister_encoder(pid_t pid) {
  std::lock_guard<std::mutex> lock(g_encoders_mutex);
  std::erase(g_encoders, pid);
}

// Blocks SIGPIPE in this thread while alive (so writing into a pipe whose
// reader died returns EPIPE instead of killing the process) and discards a
// SIGPIPE raised meanwhile.
class SigpipeBlocker {
 public:
  SigpipeBlocker() {
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &s, &old_);
    sigset_t pend;
    sigpending(&pend);
    was_pending_ = sigismember(&pend, SIGPIPE) == 1;
  }
  ~SigpipeBlocker() {
    if (!was_pending_) {
      sigset_t pend;
      sigpending(&pend);
      if (sigismember(&pend, SIGPIPE) == 1) {
        sigset_t s;
        sigemptyset(&s);
        sigaddset(&s, SIGPIPE);
        const timespec zero{0, 0};
        while (sigtimedwait(&s, nullptr, &zero) < 0 && errno == EINTR) {
        }
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlocker(const SigpipeBlocker&) = delete;
  SigpipeBlocker& operator=(const SigpipeBlocker&) = delete;

 private:
  sigset_t old_;
  bool was_pending_ = false;
};

// An `ffmpeg` child process reading from a pipe; its stdout goes to
// /dev/null and its stderr into an anonymous temporary file.
class FfmpegProcess {
 public:
  explicit FfmpegProcess(const std::vector<std::string>& args) {
    std::string tmpl = (std::filesystem::temp_directory_path() / "fastcd-ffmpeg-XXXXXX").string();
    err_fd_ = ::mkostemp(tmpl.data(), O_CLOEXEC);
    if (err_fd_ < 0)
      throw std::runtime_error("cannot create a temporary file for ffmpeg's messages: " +
                               std::string(std::strerror(errno)));
    ::unlink(tmpl.c_str());

    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) {
      const int e = errno;
      ::close(err_fd_);
      err_fd_ = -1;
      throw std::runtime_error(std::string("cannot create a pipe to ffmpeg: ") + std::strerror(e));
    }

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, p[0], 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, err_fd_, 2);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t def;
    sigemptyset(&def);
    sigaddset(&def, SIGPIPE);
    posix_spawnattr_setsigdefault(&attr, &def);
    sigset_t mask;
    sigemptyset(&mask);
    posix_spawnattr_setsigmask(&attr, &mask);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

    std::vector<char*> argv;
    for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
    argv.push_back(nullptr);
    const int rc = ::posix_spawnp(&pid_, argv[0], &fa, &attr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    ::close(p[0]);
    if (rc != 0) {
      ::close(p[1]);
      ::close(err_fd_);
      err_fd_ = -1;
      pid_ = -1;
      if (rc == ENOENT) throw std::runtime_error("ffmpeg was not found on PATH; install ffmpeg to write videos");
      throw std::runtime_error(std::string("cannot start ffmpeg: ") + std::strerror(rc));
    }
    in_fd_ = p[1];
    register_encoder(pid_);
  }

  FfmpegProcess(const FfmpegProcess&) = delete;
  FfmpegProcess& operator=(const FfmpegProcess&) = delete;

  // Unwinding before finish() (a render error, a cancellation): ffmpeg must not go on to
  // write a file nobody wants, so it is killed rather than waited for.
  ~FfmpegProcess() {
    if (in_fd_ >= 0) ::close(in_fd_);
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      int status;
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      unregister_encoder(pid_);
    }
    if (err_fd_ >= 0) ::close(err_fd_);
  }

  /// Writes all bytes; false if ffmpeg stopped reading (or another error).
  bool write_all(const unsigned char* data, std::size_t n) {
    while (n > 0) {
      const ssize_t w = ::write(in_fd_, data, n);
      if (w < 0) {
        if (errno == EINTR) continue;
        write_errno_ = errno;
        return false;
      }
      data += w;
      n -= static_cast<std::size_t>(w);
    }
    return true;
  }

  /// Closes ffmpeg's input, waits for it and throws std::runtime_error with
  /// its error output if it failed (or if `input_failed`).
  void finish(const std::string& out_path, bool input_failed) {
    ::close(in_fd_);
    in_fd_ = -1;
    int status = 0;
    pid_t r;
    while ((r = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    const int wait_errno = errno;
    unregister_encoder(pid_);
    pid_ = -1;
    errno = wait_errno;
    std::string why;
    if (r < 0) {
      why = std::string("cannot wait for ffmpeg: ") + std::strerror(errno);
    } else if (WIFSIGNALED(status)) {
      why = "ffmpeg was killed by signal " + std::to_string(WTERMSIG(status));
    } else if (WIFEXITED(status) && WEXITSTATUS(status) != 0) {
      why = "ffmpeg failed with exit status " + std::to_string(WEXITSTATUS(status));
    } else if (input_failed) {
      why = std::string("ffmpeg stopped reading frames (") + std::strerror(write_errno_) + ")";
    } else {
      return;
    }
    const std::string msg = error_output();
    throw std::runtime_error(why + " while writing '" + out_path + "'" + (msg.empty() ? std::string() : ": " + msg));
  }

 private:
  std::string error_output() {
    if (err_fd_ < 0) return {};
    std::string out;
    ::lseek(err_fd_, 0, SEEK_SET);
    char buf[4096];
    ssize_t n;
    while ((n = ::read(err_fd_, buf, sizeof buf)) > 0 && out.size() < 64 * 1024)
      out.append(buf, static_cast<std::size_t>(n));
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r' || out.back() == ' ')) out.pop_back();
    if (out.size() > 4000) out = "..." + out.substr(out.size() - 4000);
    return out;
  }

  pid_t pid_ = -1;
  int in_fd_ = -1;
  int err_fd_ = -1;
  int write_errno_ = 0;
};

// ffmpeg does not always fail when its output does: with writes refused (EFBIG under a file
// size limit) it can exit 0 and leave a truncated file. So the result is checked itself: an MP4
// is a sequence of top-level boxes (32-bit size + type, size 1 = a 64-bit size follows) that
// must tile the file exactly and include the movie header ('moov') and the media ('mdat').
void check_mp4_complete(const std::string& path, const std::string& out_path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw std::runtime_error("ffmpeg left no readable '" + out_path + "': " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  const off_t size = ::lseek(fd, 0, SEEK_END);
  off_t pos = 0;
  bool moov = false, mdat = false;
  while (pos < size) {
    unsigned char h[16];
    if (size - pos < 8 || ::pread(fd, h, 8, pos) != 8) break;
    std::uint64_t box = (std::uint64_t(h[0]) << 24) | (std::uint64_t(h[1]) << 16) | (std::uint64_t(h[2]) << 8) | h[3];
    const std::string type(reinterpret_cast<const char*>(h + 4), 4);
    if (box == 1) {
      if (size - pos < 16 || ::pread(fd, h + 8, 8, pos + 8) != 8) break;
      box = 0;
      for (int k = 8; k < 16; ++k) box = (box << 8) | h[k];
    } else if (box == 0) {
      box = static_cast<std::uint64_t>(size - pos);  // "to the end of the file"
    }
    if (box < 8 || box > static_cast<std::uint64_t>(size - pos)) break;
    moov = moov || type == "moov";
    mdat = mdat || type == "mdat";
    pos += static_cast<off_t>(box);
  }
  if (pos != size || !moov || !mdat)
    throw std::runtime_error("ffmpeg reported success but '" + out_path + "' is truncated or incomplete (" +
                             std::to_string(size) + " bytes" + (moov ? "" : ", no movie header") +
                             "): the disk may be full");
}

}  // namespace

void terminate_encoders() noexcept {
  std::lock_guard<std::mutex> lock(g_encoders_mutex);
  for (const pid_t pid : g_encoders) ::kill(pid, SIGKILL);
  // The owners reap them (their waitpid returns once the child is gone): reaping here would
  // let the pid be reused under them.
}

void encode_mp4(const std::string& mp4_path, int W, int H, int fps, int total,
                const std::function<VideoFrame(int frame)>& render,
                const std::function<void(int done, int total)>& progress) {
  if (W <= 0 || H <= 0 || W % 2 != 0 || H % 2 != 0)
    throw std::invalid_argument("encode_mp4: frame size must be even and positive, got " + std::to_string(W) + " x " +
                                std::to_string(H));
  if (fps < 1 || total < 1)
    throw std::invalid_argument("encode_mp4: fps and the frame count must be >= 1, got " + std::to_string(fps) +
                                " and " + std::to_string(total));
  const std::size_t row_bytes = static_cast<std::size_t>(W) * 4;
  const char* pix_fmt = std::endian::native == std::endian::little ? "bgra" : "argb";
  write_file_atomically(mp4_path, [&](const std::string& tmp) {
    const std::vector<std::string> args = {"ffmpeg",   "-hide_banner",
                                           "-nostdin", "-loglevel",
                                           "error",    "-y",
                                           "-f",       "rawvideo",
                                           "-pix_fmt", pix_fmt,
                                           "-s",       std::to_string(W) + "x" + std::to_string(H),
                                           "-r",       std::to_string(fps),
                                           "-i",       "pipe:0",
                                           "-an",      "-c:v",
                                           "libx264",  "-preset",
                                           "veryfast", "-pix_fmt",
                                           "yuv420p",  "-crf",
                                           "20",       "-f",
                                           "mp4",      "file:" + tmp};
    FfmpegProcess ff(args);
    SigpipeBlocker no_sigpipe;
    bool input_failed = false;
    for (int f = 0; f < total && !input_failed; ++f) {
      detail::throw_if_cancelled("encode_mp4");
      const VideoFrame frame = render(f);
      const unsigned char* data = frame.data;
      const std::ptrdiff_t stride = frame.stride;
      if (data == nullptr) throw std::invalid_argument("encode_mp4: frame " + std::to_string(f) + " has no pixels");
      if (static_cast<std::size_t>(stride) == row_bytes) {
        input_failed = !ff.write_all(data, row_bytes * static_cast<std::size_t>(H));
      } else {
        for (int r = 0; r < H && !input_failed; ++r)
          input_failed = !ff.write_all(data + static_cast<std::size_t>(r) * stride, row_bytes);
      }
      if (!input_failed && progress) progress(f + 1, total);
    }
    ff.finish(mp4_path, input_failed);
    check_mp4_complete(tmp, mp4_path);
  });
}

void FrameFeed::publish(int ready) {
  {
    std::lock_guard<std::mutex> lock(m_);
    if (ready <= ready_) return;
    ready_ = ready;
  }
  cv_.notify_all();
}

void FrameFeed::abort(const std::string& why) {
  {
    std::lock_guard<std::mutex> lock(m_);
    aborted_ = true;
    why_ = why;
  }
  cv_.notify_all();
}

void FrameFeed::wait(int frame) const {
  std::unique_lock<std::mutex> lock(m_);
  while (frame >= ready_) {
    if (aborted_) throw std::runtime_error(why_);
    cv_.wait_for(lock, std::chrono::milliseconds(50));
    if (frame >= ready_ && !aborted_) detail::throw_if_cancelled("a video waiting for its frames");
  }
}

}  // namespace fastcd
