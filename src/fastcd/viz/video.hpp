#pragma once
// H.264 / yuv420p MP4 encoding through an `ffmpeg` child process (found on PATH): raw 32-bit
// frames are piped in, the file is written atomically (temporary file + rename), and ffmpeg's
// own error output is quoted when it fails. It stops at fastcd::request_cancel() (between
// frames; the encoder is killed and its partial file removed). Used by the 2D and 3D renderers; nothing here
// prints.
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>

namespace fastcd {

/// One raw frame handed to encode_mp4: `height` rows of `width` 4-byte pixels, row r starting
/// at data + r * stride. Pixels are Cairo's ARGB32 in native byte order (B, G, R, A in memory
/// on little-endian machines).
struct VideoFrame {
  const unsigned char* data = nullptr;
  std::ptrdiff_t stride = 0;
};

/// Encodes `total` frames of width x height pixels (both even, as yuv420p needs) into an
/// H.264 / yuv420p MP4 (crf 20) at `fps`. `render(f)` returns frame f (0-based); its pixels must
/// stay valid until the next call. `progress` (optional) is called after each frame with
/// (f + 1, total).
/// @throws std::invalid_argument for odd or non-positive sizes, fps < 1 or total < 1.
/// @throws std::runtime_error if ffmpeg is missing or fails (its error output is in the
///         message) or the file cannot be written; no partial file is left.
void encode_mp4(const std::string& mp4_path, int width, int height, int fps, int total,
                const std::function<VideoFrame(int frame)>& render,
                const std::function<void(int done, int total)>& progress = {});

/// Frames that are still being produced while a video of them is written, e.g. by a simulation
/// on another thread: the producer makes frame f's data final, then calls publish(f + 1); the
/// writer calls wait(f) before it reads frame f. publish() releases and wait() acquires, so the
/// frame data need no other synchronisation. A producer that fails calls abort(): the writer's
/// wait then throws, and nothing half-made is encoded. Thread-safe.
class FrameFeed {
 public:
  /// Frames [0, ready) are final. Never goes back: a smaller count is ignored.
  void publish(int ready);
  /// The frames will never all come: every wait() for one not yet published throws
  /// std::runtime_error("<why>").
  void abort(const std::string& why);
  /// Blocks until frame `frame` is published. Throws std::runtime_error after abort() and
  /// fastcd::Cancelled after request_cancel() (checked every 50 ms while waiting).
  void wait(int frame) const;

 private:
  mutable std::mutex m_;
  mutable std::condition_variable cv_;
  int ready_ = 0;
  bool aborted_ = false;
  std::string why_;
};

/// Kills (SIGKILL) every ffmpeg child encode_mp4 is feeding now, from any thread: for
/// a program that must end at once (a second signal, a watchdog) and may not leave an encoder
/// behind to finish a file. The interrupted encode_mp4 calls then fail as ffmpeg being killed.
void terminate_encoders() noexcept;

}  // namespace fastcd
