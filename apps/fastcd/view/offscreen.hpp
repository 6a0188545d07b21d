#pragma once
// An OpenGL 3.3 core context without any window or X server: EGL on Mesa's surfaceless
// platform, drawing into a framebuffer object (fastcd view --screenshot / --record).
namespace fastcd::cli::view {

class Offscreen {
 public:
  /// Makes a w x h offscreen framebuffer current.
  /// @throws std::runtime_error saying which EGL or GL step failed.
  Offscreen(int w, int h);
  ~Offscreen();
  Offscreen(const Offscreen&) = delete;
  Offscreen& operator=(const Offscreen&) = delete;

 private:
  void* display_ = nullptr;
  void* context_ = nullptr;
  unsigned fbo_ = 0, colour_ = 0, depth_ = 0;
};

}  // namespace fastcd::cli::view
