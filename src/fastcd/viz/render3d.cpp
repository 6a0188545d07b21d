#include "fastcd/viz/render3d.hpp"

#include "fastcd/common/threads.hpp"
#include "fastcd/viz/painter.hpp"

#include <cairo.h>
#include <Eigen/Geometry>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace fastcd {

using namespace detail;  // shared Cairo / text / ffmpeg helpers (painter.hpp)

namespace {

constexpr double kAmbient = 0.25;  // shade = kAmbient + kDiffuse * |n . l|
constexpr double kDiffuse = 0.75;
constexpr double kLightUp = 0.5;  // key light: -f + kLightUp u - kLightLeft r
constexpr double kLightLeft = 0.1;
constexpr double kEdgeDarken = 0.6;      // edge colour = shaded face colour * this
constexpr double kNearFraction = 0.01;   // near plane at this fraction of |target - eye|
constexpr double kTextDpi = 100;         // title sizes are points at this resolution
constexpr int kMaxPanelPixels = 4096;    // per panel side
constexpr int kMaxFigurePixels = 16384;  // whole figure width

// default_camera: 35 degrees azimuth (from +z towards +x), 25 degrees elevation.
constexpr double kDefaultAzimuthDeg = 35, kDefaultElevationDeg = 25;
constexpr double kDefaultFill = 0.95;  // fraction of the half field of view used

constexpr double deg(double d) { return d * std::numbers::pi / 180.0; }

// Orthonormal camera basis: f view direction, r right, u up (on screen).
struct ViewBasis {
  Eigen::Vector3d f, r, u;
};

std::string vec_str(const Eigen::Vector3d& v) {
  return "(" + std::to_string(v.x()) + ", " + std::to_string(v.y()) + ", " + std::to_string(v.z()) + ")";
}

ViewBasis view_basis(const Camera& cam, const std::string& who) {
  if (!cam.eye.allFinite() || !cam.target.allFinite() || !cam.up.allFinite() || !std::isfinite(cam.fov_deg))
    throw std::invalid_argument(who + ": camera eye, target, up and fov_deg must be finite");
  if (!(cam.fov_deg > 0 && cam.fov_deg < 180))
    throw std::invalid_argument(who + ": camera fov_deg must be in (0, 180), got " + std::to_string(cam.fov_deg));
  const Eigen::Vector3d d = cam.target - cam.eye;
  if (!(d.norm() > 0)) throw std::invalid_argument(who + ": camera eye and target coincide at " + vec_str(cam.eye));
  ViewBasis b;
  b.f = d.normalized();
  const Eigen::Vector3d r = b.f.cross(cam.up);
  if (!(cam.up.norm() > 0) || !(r.norm() > 1e-9 * cam.up.norm()))
    throw std::invalid_argument(who + ": camera up " + vec_str(cam.up) + " is zero or parallel to the view direction " +
                                vec_str(b.f));
  b.r = r.normalized();
  b.u = b.r.cross(b.f);
  return b;
}

// Validates panels, cameras and options; returns the frame count. With a feed (streaming), the
// states are checked per frame as they are drawn (check_frame), here only F and the sizes.
int validate(const std::string& who, const std::vector<SurfacePanel>& panels, const std::vector<Camera>& cams,
             const SurfaceAnimationOptions& opt) {
  if (panels.empty()) throw std::invalid_argument(who + ": no panels");
  if (opt.fps < 1) throw std::invalid_argument(who + ": fps must be >= 1, got " + std::to_string(opt.fps));
  if (opt.panel_width < 2 || opt.panel_width > kMaxPanelPixels || opt.panel_height < 2 ||
      opt.panel_height > kMaxPanelPixels)
    throw std::invalid_argument(who + ": panel_width and panel_height must be in [2, " +
                                std::to_string(kMaxPanelPixels) + "], got " + std::to_string(opt.panel_width) + "x" +
                                std::to_string(opt.panel_height));
  if (static_cast<long long>(opt.panel_width) * static_cast<long long>(panels.size()) > kMaxFigurePixels)
    throw std::invalid_argument(who + ": " + std::to_string(panels.size()) + " panels of width " +
                                std::to_string(opt.panel_width) + " exceed " + std::to_string(kMaxFigurePixels) +
                                " pixels");
  if (opt.supersample < 1 || opt.supersample > 4)
    throw std::invalid_argument(who + ": supersample must be in [1, 4], got " + std::to_string(opt.supersample));
  for (double c : {opt.background.r, opt.background.g, opt.background.b})
    if (!(c >= 0 && c <= 1)) throw std::invalid_argument(who + ": background colour components must be in [0, 1]");
  if (cams.empty()) throw std::invalid_argument(who + ": no camera");
  for (const Camera& cam : cams) view_basis(cam, who);
  const bool lazy = opt.feed != nullptr;
  // The states checked here: all of them, or (streaming) none; check_panel needs one to run.
  auto check = [&](const std::string& pwho, const std::vector<Eigen::MatrixXd>& states, const Eigen::MatrixXi& F) {
    if (states.empty()) throw std::invalid_argument(pwho + " has no states");
    if (!lazy) return check_panel(pwho, states, 3, F, "F");
    check_panel(pwho, {Eigen::MatrixXd::Zero(F.size() > 0 ? F.maxCoeff() + 1 : 0, 3)}, 3, F, "F");
  };
  std::size_t frames = 0;
  for (std::size_t p = 0; p < panels.size(); ++p) {
    const SurfacePanel& pan = panels[p];
    const std::string pwho = who + ": panel " + std::to_string(p) + " ('" + pan.title + "')";
    for (double c : {pan.color.r, pan.color.g, pan.color.b})
      if (!(c >= 0 && c <= 1)) throw std::invalid_argument(pwho + ": color components must be in [0, 1]");
    check(pwho, pan.states, pan.F);
    frames = std::max(frames, pan.states.size());
    if (!pan.ghost_states.empty()) {
      check(pwho + " ghost", pan.ghost_states, pan.F);
      if (!lazy && pan.ghost_states[0].rows() != pan.states[0].rows())
        throw std::invalid_argument(pwho + ": the ghost has " + std::to_string(pan.ghost_states[0].rows()) +
                                    " vertices, the panel " + std::to_string(pan.states[0].rows()));
      for (double c : {pan.ghost_color.r, pan.ghost_color.g, pan.ghost_color.b})
        if (!(c >= 0 && c <= 1)) throw std::invalid_argument(pwho + ": ghost_color components must be in [0, 1]");
      if (!(pan.ghost_alpha > 0 && pan.ghost_alpha <= 1))
        throw std::invalid_argument(pwho + ": ghost_alpha must be in (0, 1], got " + std::to_string(pan.ghost_alpha));
      frames = std::max(frames, pan.ghost_states.size());
    }
  }
  if (frames > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::invalid_argument(who + ": too many frames");
  if (cams.size() != 1 && cams.size() != frames)
    throw std::invalid_argument(who + ": " + std::to_string(cams.size()) + " cameras for " + std::to_string(frames) +
                                " frames (give one, or one per frame)");
  return static_cast<int>(frames);
}

// A streamed frame, checked when it is drawn: #V x 3, finite, every index of F in range.
void check_frame(const std::string& who, const Eigen::MatrixXd& X, const Eigen::MatrixXi& F) {
  check_positions(X, 3, who);
  if (F.size() > 0 && F.maxCoeff() >= X.rows())
    throw std::invalid_argument(who + " has " + std::to_string(X.rows()) + " vertices, F indexes up to " +
                                std::to_string(F.maxCoeff()));
}

Rgb text_color(const Rgb& bg) {
  const double luma = 0.2126 * bg.r + 0.7152 * bg.g + 0.0722 * bg.b;
  return luma >= 0.5 ? kBlack : kWhite;
}

// Paints one panel's 3D view into a supersampled RGB24 image.
class SurfaceRenderer {
 public:
  SurfaceRenderer(const SurfacePanel& panel, const Camera& cam, const SurfaceAnimationOptions& opt)
      : panel_(panel), opt_(opt), ss_(opt.supersample) {
    w_ = opt.panel_width * ss_;
    h_ = opt.panel_height * ss_;
    set_camera(cam);
    cx_ = 0.5 * w_;
    cy_ = 0.5 * h_;
    surface_ = make_surface(w_, h_, CAIRO_FORMAT_RGB24);
    cr_ = make_context(surface_.get());
    cairo_set_antialias(cr_.get(), CAIRO_ANTIALIAS_NONE);  // no seams; smoothed by supersampling
    cairo_set_fill_rule(cr_.get(), CAIRO_FILL_RULE_WINDING);
    cairo_set_line_join(cr_.get(), CAIRO_LINE_JOIN_ROUND);
    cairo_set_line_width(cr_.get(), ss_);
    const auto nf = static_cast<std::size_t>(panel.F.rows());
    tris_.resize(nf);
    for (std::size_t t = 0; t < nf; ++t)
      for (int k = 0; k < 3; ++k) tris_[t][k] = panel.F(static_cast<Eigen::Index>(t), k);
    key_.resize(nf);
    shade_.resize(nf);
    order_.reserve(nf);
  }

  cairo_surface_t* surface() const { return surface_.get(); }

  void set_camera(const Camera& cam) {
    const ViewBasis b = view_basis(cam, "render");
    eye_ = cam.eye;
    f_ = b.f;
    r_ = b.r;
    u_ = b.u;
    near_ = kNearFraction * (cam.target - cam.eye).norm();
    light_ = (-b.f + kLightUp * b.u - kLightLeft * b.r).normalized();
    scale_ = 0.5 * std::min(w_, h_) / std::tan(0.5 * deg(cam.fov_deg));
  }

  /// Renders state `X` (#V x 3) into surface().
  void render(const Eigen::MatrixXd& X) {
    cairo_t* cr = cr_.get();
    set_color(cr, opt_.background);
    cairo_paint(cr);
    project(X);
    order_.clear();
    const Rgb& c = panel_.color;
    for (std::size_t t = 0; t < tris_.size(); ++t) {
      const auto& tri = tris_[t];
      const double z0 = depth_[static_cast<std::size_t>(tri[0])];
      const double z1 = depth_[static_cast<std::size_t>(tri[1])];
      const double z2 = depth_[static_cast<std::size_t>(tri[2])];
      if (z0 < near_ || z1 < near_ || z2 < near_) continue;
      if (out_[static_cast<std::size_t>(tri[0])] & out_[static_cast<std::size_t>(tri[1])] &
          out_[static_cast<std::size_t>(tri[2])])
        continue;  // entirely beyond one side of the view
      const Eigen::Vector3d a = X.row(tri[0]).transpose();
      const Eigen::Vector3d ab = X.row(tri[1]).transpose() - a;
      const Eigen::Vector3d ac = X.row(tri[2]).transpose() - a;
      const Eigen::Vector3d n = ab.cross(ac);
      const double len = n.norm();
      if (!(len > 0)) continue;
      const double s = kAmbient + kDiffuse * std::abs(n.dot(light_)) / len;
      shade_[t] = (to_byte(c.r * s) << 16) | (to_byte(c.g * s) << 8) | to_byte(c.b * s);
      key_[t] = z0 + z1 + z2;
      order_.push_back(static_cast<int>(t));
    }
    std::sort(order_.begin(), order_.end(),
              [&](int a, int b) { return key_[static_cast<std::size_t>(a)] > key_[static_cast<std::size_t>(b)]; });

    // Back to front; runs of equally shaded triangles share one fill (they
    // are consecutive in depth order, and add_triangle orients them alike).
    std::uint32_t run = 0;
    bool open = false;
    for (int t : order_) {
      const std::uint32_t code = shade_[static_cast<std::size_t>(t)];
      if (open && (code != run || opt_.edges)) flush(run);
      add_triangle(cr, pix_, tris_[static_cast<std::size_t>(t)]);
      run = code;
      open = true;
    }
    if (open) flush(run);
  }

 private:
  static std::uint32_t to_byte(double v) {
    return static_cast<std::uint32_t>(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
  }
  static Rgb from_code(std::uint32_t code, double k = 1.0) {
    return {k * ((code >> 16) & 0xff) / 255.0, k * ((code >> 8) & 0xff) / 255.0, k * (code & 0xff) / 255.0};
  }

  void flush(std::uint32_t code) {
    cairo_t* cr = cr_.get();
    set_color(cr, from_code(code));
    if (!opt_.edges) {
      cairo_fill(cr);
      return;
    }
    cairo_fill_preserve(cr);
    set_color(cr, from_code(code, kEdgeDarken));
    cairo_stroke(cr);
  }

  void project(const Eigen::MatrixXd& X) {
    const auto nv = static_cast<std::size_t>(X.rows());
    pix_.resize(2 * nv);
    depth_.resize(nv);
    out_.resize(nv);
    for (std::size_t v = 0; v < nv; ++v) {
      const Eigen::Vector3d q = X.row(static_cast<Eigen::Index>(v)).transpose() - eye_;
      const double z = q.dot(f_);
      depth_[v] = z;
      if (z < near_) {  // skipped by render(); keep the pixels finite
        pix_[2 * v] = pix_[2 * v + 1] = 0;
        out_[v] = 0;
        continue;
      }
      const double x = cx_ + scale_ * q.dot(r_) / z, y = cy_ - scale_ * q.dot(u_) / z;
      pix_[2 * v] = x;
      pix_[2 * v + 1] = y;
      out_[v] = static_cast<std::uint8_t>((x < 0) | ((x > w_) << 1) | ((y < 0) << 2) | ((y > h_) << 3));
    }
  }

  const SurfacePanel& panel_;
  const SurfaceAnimationOptions& opt_;
  int ss_;
  Eigen::Vector3d eye_, f_, r_, u_, light_;
  double near_ = 0, scale_ = 1, cx_ = 0, cy_ = 0;
  int w_ = 0, h_ = 0;
  SurfacePtr surface_;
  ContextPtr cr_;
  std::vector<std::array<int, 3>> tris_;
  std::vector<double> pix_, depth_, key_;
  std::vector<std::uint32_t> shade_;
  std::vector<std::uint8_t> out_;  // per vertex: left / right / above / below the view
  std::vector<int> order_;
};

// The whole figure: a static background (colour, titles) plus one renderer
// per panel, composited into `frame` by draw(f).
class Figure {
 public:
  Figure(const std::vector<SurfacePanel>& panels, const Camera& cam, const SurfaceAnimationOptions& opt)
      : panels_(panels), opt_(opt) {
    const int n = static_cast<int>(panels.size());
    // Layout of the title band (measured with a scratch context).
    SurfacePtr scratch = make_surface(2, 2);
    ContextPtr scr = make_context(scratch.get());
    Painter SP(scr.get(), kTextDpi);
    const double pad = SP.pt(6);
    double y = 0;
    double suptitle_top = 0, title_base = 0;
    bool any_title = false;
    for (const auto& p : panels) any_title = any_title || !p.title.empty();
    if (!opt.suptitle.empty()) {
      suptitle_top = pad;
      y = pad + SP.measure(Label{opt.suptitle, {}}, kSuptitleSize).height();
    }
    if (any_title) {
      const Painter::Box b = SP.measure(Label{"lp", {}}, kAxesTitleSize);
      title_base = y + pad + b.ascent;
      y = title_base + b.descent;
    }
    if (y > 0) y += pad;
    view_top_ = static_cast<int>(std::ceil(y));
    W_ = even_pixels(static_cast<double>(n) * opt.panel_width);
    H_ = even_pixels(static_cast<double>(view_top_ + opt.panel_height));

    background_ = make_surface(W_, H_);
    ContextPtr bcr = make_context(background_.get());
    Painter BP(bcr.get(), kTextDpi);
    set_color(bcr.get(), opt.background);
    cairo_paint(bcr.get());
    const Rgb ink = text_color(opt.background);
    if (!opt.suptitle.empty())
      BP.text(Label{opt.suptitle, {}}, W_ / 2.0, suptitle_top, kSuptitleSize, HA::Center, VA::Top, ink);
    for (int p = 0; p < n; ++p)
      BP.text(Label{panels[static_cast<std::size_t>(p)].title, {}}, (p + 0.5) * opt.panel_width, title_base,
              kAxesTitleSize, HA::Center, VA::Baseline, ink);
    cairo_surface_flush(background_.get());

    frame_ = make_surface(W_, H_);
    cr_ = make_context(frame_.get());
    renderers_.reserve(panels.size());
    for (const auto& p : panels) renderers_.emplace_back(p, cam, opt);
    // Ghosts: their own panels (kept alive here; reserved so the renderers' references stay valid).
    ghost_panels_.reserve(panels.size());
    ghost_opt_ = opt;
    ghost_opt_.background = Rgb{1, 1, 1};  // multiplied in: white leaves the panel unchanged
    for (const auto& p : panels) {
      if (p.ghost_states.empty()) {
        ghost_of_.push_back(-1);
        continue;
      }
      ghost_panels_.push_back({{}, p.F, "", p.ghost_color, {}, {}, 0.0});  // states: draw() passes them
      ghost_of_.push_back(static_cast<int>(ghosts_.size()));
      ghosts_.emplace_back(ghost_panels_.back(), cam, ghost_opt_);
    }
  }

  int width() const { return W_; }
  int height() const { return H_; }

  /// Draws frame f seen through `cam` (nullptr: the camera the figure was made with) and
  /// returns the W x H image holding it.
  cairo_surface_t* draw(int f, const Camera* cam = nullptr) {
    if (cam) {
      for (auto& R : renderers_) R.set_camera(*cam);
      for (auto& G : ghosts_) G.set_camera(*cam);
    }
    cairo_t* cr = cr_.get();
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_set_source_surface(cr, background_.get(), 0, 0);
    cairo_paint(cr);
    cairo_surface_flush(frame_.get());
    for (std::size_t p = 0; p < panels_.size(); ++p) {
      const SurfacePanel& pan = panels_[p];
      const auto& X = pan.states[std::min(static_cast<std::size_t>(f), pan.states.size() - 1)];
      if (opt_.feed)
        check_frame("panel " + std::to_string(p) + " ('" + pan.title + "'): state " + std::to_string(f), X, pan.F);
      SurfaceRenderer& R = renderers_[p];
      R.render(X);
      cairo_surface_flush(R.surface());
      SurfaceRenderer* G = nullptr;
      double alpha = 0.0;
      if (ghost_of_[p] >= 0) {
        G = &ghosts_[static_cast<std::size_t>(ghost_of_[p])];
        const auto& Y = pan.ghost_states[std::min(static_cast<std::size_t>(f), pan.ghost_states.size() - 1)];
        if (opt_.feed) {
          check_frame("panel " + std::to_string(p) + " ('" + pan.title + "'): ghost state " + std::to_string(f), Y,
                      pan.F);
          if (Y.rows() != X.rows())
            throw std::invalid_argument("panel " + std::to_string(p) + ": the ghost has " + std::to_string(Y.rows()) +
                                        " vertices at frame " + std::to_string(f) + ", the panel " +
                                        std::to_string(X.rows()));
        }
        G->render(Y);
        cairo_surface_flush(G->surface());
        alpha = pan.ghost_alpha;
      }
      composite(static_cast<int>(p), R.surface(), G ? G->surface() : nullptr, alpha);
    }
    cairo_surface_mark_dirty(frame_.get());
    return frame_.get();
  }

 private:
  // Writes panel p's view into the frame: each output pixel the mean of its supersample x
  // supersample block of `view` (a box filter), multiplied by (1 - alpha + alpha * ghost) when a
  // ghost is given (cairo's MULTIPLY painted with alpha: white leaves the view as it is).
  // Written by hand because cairo's resampling filters cost more than all the triangles.
  void composite(int p, cairo_surface_t* view, cairo_surface_t* ghost, double alpha) const {
    const int ss = opt_.supersample;
    const int x0 = p * opt_.panel_width;
    const int w = std::min(opt_.panel_width, W_ - x0), h = std::min(opt_.panel_height, H_ - view_top_);
    unsigned char* dst = cairo_image_surface_get_data(frame_.get());
    const int dst_stride = cairo_image_surface_get_stride(frame_.get());
    const unsigned char* src = cairo_image_surface_get_data(view);
    const int src_stride = cairo_image_surface_get_stride(view);
    const unsigned char* gh = ghost ? cairo_image_surface_get_data(ghost) : nullptr;
    const int gh_stride = ghost ? cairo_image_surface_get_stride(ghost) : 0;
    // Box mean: (sum * recip + 2^15) >> 16 (exact for ss = 1, 2, 4); ghost factor from a table.
    const auto recip = static_cast<std::uint32_t>(std::lround(65536.0 / (ss * ss)));
    std::array<std::uint32_t, 256> factor{};
    for (int g = 0; g < 256; ++g)
      factor[static_cast<std::size_t>(g)] =
          static_cast<std::uint32_t>(std::lround((1.0 - alpha + alpha * g / 255.0) * 65536.0));
    auto mean = [&](const unsigned char* base, int stride, int y, int x, std::uint32_t c[3]) {
      std::uint32_t s0 = 0, s1 = 0, s2 = 0;
      for (int dy = 0; dy < ss; ++dy) {
        const auto* row =
            reinterpret_cast<const std::uint32_t*>(base + static_cast<std::ptrdiff_t>(y * ss + dy) * stride) +
            static_cast<std::ptrdiff_t>(x) * ss;
        for (int dx = 0; dx < ss; ++dx) {
          const std::uint32_t v = row[dx];
          s0 += (v >> 16) & 0xffU;
          s1 += (v >> 8) & 0xffU;
          s2 += v & 0xffU;
        }
      }
      c[0] = (s0 * recip + 0x8000U) >> 16;
      c[1] = (s1 * recip + 0x8000U) >> 16;
      c[2] = (s2 * recip + 0x8000U) >> 16;
    };
    // The usual 2 x 2 supersampling: channels summed in pairs within one word (bytes 0 and 2,
    // then 1 and 3; four bytes fit in 10 bits, no carries cross), so a row vectorises.
    auto mean2 = [](const std::uint32_t* r0, const std::uint32_t* r1, int x) {
      constexpr std::uint32_t M = 0x00ff00ffU;
      const std::uint32_t a = r0[2 * x], b = r0[2 * x + 1], c = r1[2 * x], d = r1[2 * x + 1];
      const std::uint32_t lo = (((a & M) + (b & M) + (c & M) + (d & M) + 0x00020002U) >> 2) & M;
      const std::uint32_t hi =
          ((((a >> 8) & M) + ((b >> 8) & M) + ((c >> 8) & M) + ((d >> 8) & M) + 0x00020002U) >> 2) & M;
      return 0xff000000U | lo | ((hi & 0xffU) << 8);
    };
    if (ss == 2) {
      for (int y = 0; y < h; ++y) {
        auto* out =
            reinterpret_cast<std::uint32_t*>(dst + static_cast<std::ptrdiff_t>(view_top_ + y) * dst_stride) + x0;
        const auto* v0 = reinterpret_cast<const std::uint32_t*>(src + static_cast<std::ptrdiff_t>(2 * y) * src_stride);
        const auto* v1 =
            reinterpret_cast<const std::uint32_t*>(src + static_cast<std::ptrdiff_t>(2 * y + 1) * src_stride);
        for (int x = 0; x < w; ++x) out[x] = mean2(v0, v1, x);
        if (!gh) continue;
        const auto* g0 = reinterpret_cast<const std::uint32_t*>(gh + static_cast<std::ptrdiff_t>(2 * y) * gh_stride);
        const auto* g1 =
            reinterpret_cast<const std::uint32_t*>(gh + static_cast<std::ptrdiff_t>(2 * y + 1) * gh_stride);
        for (int x = 0; x < w; ++x) {
          const std::uint32_t g = mean2(g0, g1, x), c = out[x];
          if ((g & 0x00ffffffU) == 0x00ffffffU) continue;  // white ghost: the view as it is
          std::uint32_t o = 0xff000000U;
          for (int k = 0; k < 24; k += 8) o |= ((((c >> k) & 0xffU) * factor[(g >> k) & 0xffU] + 0x8000U) >> 16) << k;
          out[x] = o;
        }
      }
      return;
    }
    for (int y = 0; y < h; ++y) {
      auto* out = reinterpret_cast<std::uint32_t*>(dst + static_cast<std::ptrdiff_t>(view_top_ + y) * dst_stride) + x0;
      for (int x = 0; x < w; ++x) {
        std::uint32_t c[3], g[3];
        mean(src, src_stride, y, x, c);
        if (gh) {
          mean(gh, gh_stride, y, x, g);
          for (int k = 0; k < 3; ++k) c[k] = (c[k] * factor[g[k]] + 0x8000U) >> 16;
        }
        out[x] = 0xff000000U | (c[0] << 16) | (c[1] << 8) | c[2];
      }
    }
  }

  const std::vector<SurfacePanel>& panels_;
  const SurfaceAnimationOptions& opt_;
  int W_ = 0, H_ = 0, view_top_ = 0;
  SurfacePtr background_, frame_;
  ContextPtr cr_;
  std::vector<SurfaceRenderer> renderers_;
  SurfaceAnimationOptions ghost_opt_;
  std::vector<SurfacePanel> ghost_panels_;
  std::vector<int> ghost_of_;  ///< per panel: its ghost renderer, -1 for none
  std::vector<SurfaceRenderer> ghosts_;
};

}  // namespace

// ======================================================================
// Public API
// ======================================================================

namespace {

// default_camera's view: direction d (towards the eye), right r and up u on screen.
struct DefaultView {
  Eigen::Vector3d d, r, u;
  DefaultView() {
    const double az = deg(kDefaultAzimuthDeg), el = deg(kDefaultElevationDeg);
    d = Eigen::Vector3d(std::sin(az) * std::cos(el), std::sin(el), std::cos(az) * std::cos(el));
    const Eigen::Vector3d f = -d;
    r = f.cross(Eigen::Vector3d::UnitY()).normalized();
    u = r.cross(f);
  }
};

// The smallest distance from `target` along v.d at which the 8 corners of the box [lo, hi]
// lie inside `fill` of the half field of view, each at least 0.1 of the box's half diagonal in
// front of the eye. A point box is framed as if it had size 1.
double fit_distance(const DefaultView& v, double fov_deg, double fill, const Eigen::Vector3d& target,
                    Eigen::Vector3d lo, Eigen::Vector3d hi) {
  const Eigen::Vector3d c = 0.5 * (lo + hi);
  Eigen::Vector3d e = 0.5 * (hi - lo);
  if (!(e.maxCoeff() > 0)) e.setConstant(0.5);
  lo = c - e;
  hi = c + e;
  const double t = fill * std::tan(0.5 * deg(fov_deg));
  // Corner q (offset from the target) has depth D - q.d and must satisfy |q.r|, |q.u| <= t * depth.
  double D = 0;
  for (int i = 0; i < 8; ++i) {
    const Eigen::Vector3d q =
        Eigen::Vector3d((i & 1) ? hi.x() : lo.x(), (i & 2) ? hi.y() : lo.y(), (i & 4) ? hi.z() : lo.z()) - target;
    const double need = std::max(std::max(std::abs(q.dot(v.r)), std::abs(q.dot(v.u))) / t, 0.1 * e.norm());
    D = std::max(D, q.dot(v.d) + need);
  }
  return D;
}

// The smallest distance from `target` along v.d at which every point (the rows of each matrix in
// `sets`, a row stride keeping about 20k per set) lies inside `fill` of the half field of view,
// each at least `min_depth` in front of the eye.
double fit_points(const DefaultView& v, double fov_deg, double fill, const Eigen::Vector3d& target,
                  const std::vector<const Eigen::MatrixXd*>& sets, double min_depth) {
  const double t = fill * std::tan(0.5 * deg(fov_deg));
  double D = 0;
  for (const Eigen::MatrixXd* X : sets) {
    const Eigen::Index step = std::max<Eigen::Index>(1, X->rows() / 20000);
    for (Eigen::Index i = 0; i < X->rows(); i += step) {
      const Eigen::Vector3d q = X->row(i).transpose() - target;
      D = std::max(D, q.dot(v.d) + std::max(std::max(std::abs(q.dot(v.r)), std::abs(q.dot(v.u))) / t, min_depth));
    }
  }
  return D;
}

// Aims at the middle of what the points cover on screen (not the middle of their 3D box, which
// an oblique view shows off-centre) and returns the fitted distance; `target` starts at the box
// centre and is moved within the view plane. Three rounds settle it to well under a pixel.
double centre_and_fit(const DefaultView& v, double fov_deg, double fill, Eigen::Vector3d& target,
                      const std::vector<const Eigen::MatrixXd*>& sets, double min_depth) {
  double D = fit_points(v, fov_deg, fill, target, sets, min_depth);
  for (int round = 0; round < 3; ++round) {
    double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
    for (const Eigen::MatrixXd* X : sets) {
      const Eigen::Index step = std::max<Eigen::Index>(1, X->rows() / 20000);
      for (Eigen::Index i = 0; i < X->rows(); i += step) {
        const Eigen::Vector3d q = X->row(i).transpose() - target;
        const double depth = D - q.dot(v.d);
        x0 = std::min(x0, q.dot(v.r) / depth);
        x1 = std::max(x1, q.dot(v.r) / depth);
        y0 = std::min(y0, q.dot(v.u) / depth);
        y1 = std::max(y1, q.dot(v.u) / depth);
      }
    }
    target += D * (0.5 * (x0 + x1) * v.r + 0.5 * (y0 + y1) * v.u);
    D = fit_points(v, fov_deg, fill, target, sets, min_depth);
  }
  return D;
}

Camera view_camera(const DefaultView& v, const Eigen::Vector3d& target, double D) {
  Camera cam;
  cam.fov_deg = 35;
  cam.up = Eigen::Vector3d::UnitY();
  cam.target = target;
  cam.eye = target + D * v.d;
  return cam;
}

// Bounding box of X (#V x 3, at least one vertex, finite), checked.
std::pair<Eigen::Vector3d, Eigen::Vector3d> box_of(const Eigen::MatrixXd& X, const std::string& who) {
  check_positions(X, 3, who);
  if (X.rows() == 0) throw std::invalid_argument(who + " has no vertices");
  return {X.colwise().minCoeff().transpose(), X.colwise().maxCoeff().transpose()};
}

}  // namespace

Camera default_camera(const std::vector<Eigen::MatrixXd>& all_states) {
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity());
  Eigen::Vector3d hi = -lo;
  for (std::size_t s = 0; s < all_states.size(); ++s) {
    const auto& X = all_states[s];
    check_positions(X, 3, "default_camera: state " + std::to_string(s));
    if (X.rows() == 0) continue;
    lo = lo.cwiseMin(X.colwise().minCoeff().transpose());
    hi = hi.cwiseMax(X.colwise().maxCoeff().transpose());
  }
  if (!(lo.x() <= hi.x())) throw std::invalid_argument("default_camera: no vertex positions");
  const DefaultView v;
  const Eigen::Vector3d c = 0.5 * (lo + hi);
  return view_camera(v, c, fit_distance(v, 35, kDefaultFill, c, lo, hi));
}

CameraTrack track_camera(const std::vector<Eigen::MatrixXd>& frames, int smooth_frames, double fill) {
  if (frames.empty()) throw std::invalid_argument("track_camera: no frames");
  if (smooth_frames < 1)
    throw std::invalid_argument("track_camera: smooth_frames must be >= 1, got " + std::to_string(smooth_frames));
  if (!(fill > 0 && fill <= 1)) throw std::invalid_argument("track_camera: fill must be in (0, 1]");
  const std::size_t n = frames.size();
  std::vector<Eigen::Vector3d> lo(n), hi(n), centre(n);
  Eigen::Vector3d all_lo = Eigen::Vector3d::Constant(std::numeric_limits<double>::infinity()), all_hi = -all_lo;
  for (std::size_t f = 0; f < n; ++f) {
    std::tie(lo[f], hi[f]) = box_of(frames[f], "track_camera: frame " + std::to_string(f));
    centre[f] = 0.5 * (lo[f] + hi[f]);
    all_lo = all_lo.cwiseMin(lo[f]);
    all_hi = all_hi.cwiseMax(hi[f]);
  }
  const DefaultView v;
  Eigen::Vector3d e = 0.5 * (all_hi - all_lo);
  if (!(e.maxCoeff() > 0)) e.setConstant(0.5);  // a single point: framed as if of size 1
  const double min_depth = 0.1 * e.norm();
  std::vector<const Eigen::MatrixXd*> every(n);
  for (std::size_t f = 0; f < n; ++f) every[f] = &frames[f];
  Eigen::Vector3d c = 0.5 * (all_lo + all_hi);
  const double fixed = centre_and_fit(v, 35, fill, c, every, min_depth);
  // Targets: a centred moving average of the box centres. The window shrinks symmetrically at
  // the ends (down to the frame itself), so it never leads or lags the subject there.
  const auto half = static_cast<std::ptrdiff_t>(smooth_frames / 2);
  std::vector<Eigen::Vector3d> target(n);
  double follow = 0;
  for (std::size_t f = 0; f < n; ++f) {
    const auto fi = static_cast<std::ptrdiff_t>(f);
    const std::ptrdiff_t h = std::min({half, fi, static_cast<std::ptrdiff_t>(n) - 1 - fi});
    const std::ptrdiff_t a = fi - h, b = fi + h;
    Eigen::Vector3d sum = Eigen::Vector3d::Zero();
    for (std::ptrdiff_t k = a; k <= b; ++k) sum += centre[static_cast<std::size_t>(k)];
    target[f] = sum / static_cast<double>(b - a + 1);
    follow = std::max(follow, fit_points(v, 35, fill, target[f], {&frames[f]}, min_depth));
  }
  CameraTrack track;
  if (!(follow < 0.6 * fixed)) {
    track.cameras.push_back(view_camera(v, c, fixed));
    return track;
  }
  track.follows = true;
  track.cameras.reserve(n);
  for (std::size_t f = 0; f < n; ++f) track.cameras.push_back(view_camera(v, target[f], follow));
  return track;
}

void write_surface_animation(const std::string& mp4_path, const std::vector<SurfacePanel>& panels, const Camera& cam,
                             const SurfaceAnimationOptions& opt,
                             const std::function<void(int done, int total)>& progress) {
  write_surface_animation(mp4_path, panels, std::vector<Camera>{cam}, opt, progress);
}

void write_surface_animation(const std::string& mp4_path, const std::vector<SurfacePanel>& panels,
                             const std::vector<Camera>& cams, const SurfaceAnimationOptions& opt,
                             const std::function<void(int done, int total)>& progress) {
  const int total = validate("write_surface_animation", panels, cams, opt);
  const Camera& cam = cams[0];
  const bool moving = cams.size() > 1;
  // Frames are independent: K figures (each its own Cairo surfaces) render K frames at a time
  // in parallel while ffmpeg encodes the previous ones; every frame is drawn exactly as serially.
  const int K = std::clamp(threads(), 1, 8);
  std::vector<std::unique_ptr<Figure>> figs;
  figs.push_back(std::make_unique<Figure>(panels, cam, opt));
  for (int k = 1; k < K && total >= 2 * K; ++k) figs.push_back(std::make_unique<Figure>(panels, cam, opt));
  const int batch = static_cast<int>(figs.size());
  std::vector<cairo_surface_t*> drawn(static_cast<std::size_t>(batch), nullptr);
  int base = -1;
  encode_mp4(
      mp4_path, figs[0]->width(), figs[0]->height(), opt.fps, total,
      [&](int f) {
        if (base < 0 || f < base || f >= base + batch) {
          base = f;
          const int count = std::min(batch, total - f);
          if (opt.feed) opt.feed->wait(f + count - 1);
          parallel_for(
              count, 1,
              [&](Index b, Index e) {
                for (Index i = b; i < e; ++i)
                  drawn[static_cast<std::size_t>(i)] = figs[static_cast<std::size_t>(i)]->draw(
                      base + static_cast<int>(i), moving ? &cams[static_cast<std::size_t>(base + i)] : nullptr);
              },
              batch);
        }
        return video_frame(drawn[static_cast<std::size_t>(f - base)]);
      },
      progress);
}

void write_surface_png(const std::string& png_path, const std::vector<SurfacePanel>& panels, const Camera& cam,
                       int frame, const SurfaceAnimationOptions& opt) {
  if (opt.feed) throw std::invalid_argument("write_surface_png: a feed is for videos; give every frame");
  const int total = validate("write_surface_png", panels, {cam}, opt);
  if (frame < 0 || frame >= total)
    throw std::invalid_argument("write_surface_png: frame " + std::to_string(frame) + " is out of range for " +
                                std::to_string(total) + " frames");
  Figure fig(panels, cam, opt);
  write_png(fig.draw(frame), png_path);
}

}  // namespace fastcd
