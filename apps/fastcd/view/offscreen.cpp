#include "view/offscreen.hpp"

#include <EGL/egl.h>
#include <EGL/eglext.h>
#define GL_GLEXT_PROTOTYPES 1
#include <GL/gl.h>
#include <GL/glext.h>

#include <stdexcept>
#include <string>

namespace fastcd::cli::view {

namespace {
[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("view: offscreen rendering: " + what + " (EGL error 0x" + [] {
    char b[16];
    std::snprintf(b, sizeof b, "%x", static_cast<unsigned>(eglGetError()));
    return std::string(b);
  }() + "); Mesa's EGL (libegl-mesa0) is needed");
}
}  // namespace

Offscreen::Offscreen(int w, int h) {
  auto get_display = reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (get_display == nullptr) fail("no eglGetPlatformDisplayEXT");
  EGLDisplay d = get_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (d == EGL_NO_DISPLAY) fail("no surfaceless display");
  EGLint major = 0, minor = 0;
  if (!eglInitialize(d, &major, &minor)) fail("eglInitialize failed");
  display_ = d;
  if (!eglBindAPI(EGL_OPENGL_API)) fail("no desktop OpenGL");
  const EGLint config_attribs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config = nullptr;
  EGLint n = 0;
  if (!eglChooseConfig(d, config_attribs, &config, 1, &n) || n < 1) {
    config = nullptr;  // surfaceless contexts need no config on Mesa
  }
  const EGLint ctx_attribs[] = {
      EGL_CONTEXT_MAJOR_VERSION,           3,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  EGLContext c = eglCreateContext(d, config, EGL_NO_CONTEXT, ctx_attribs);
  if (c == EGL_NO_CONTEXT) fail("no OpenGL 3.3 core context");
  context_ = c;
  if (!eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, c)) fail("cannot make the context current");
  glGenFramebuffers(1, &fbo_);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glGenRenderbuffers(1, &colour_);
  glBindRenderbuffer(GL_RENDERBUFFER, colour_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, w, h);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, colour_);
  glGenRenderbuffers(1, &depth_);
  glBindRenderbuffer(GL_RENDERBUFFER, depth_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT24, w, h);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) fail("the framebuffer is incomplete");
}

Offscreen::~Offscreen() {
  auto d = static_cast<EGLDisplay>(display_);
  if (context_ != nullptr) {
    glDeleteFramebuffers(1, &fbo_);
    glDeleteRenderbuffers(1, &colour_);
    glDeleteRenderbuffers(1, &depth_);
    eglMakeCurrent(d, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    eglDestroyContext(d, static_cast<EGLContext>(context_));
  }
  if (d != nullptr) eglTerminate(d);
}

}  // namespace fastcd::cli::view
