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

// Validates panels, camera and options; returns the frame count.
int validate(const std::string& who, const std::vector<SurfacePanel>& panels, const Camera& cam,
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
  view_basis(cam, who);
  std::size_t frames = 0;
  for (std::size_t p = 0; p < panels.size(); ++p) {
    const SurfacePanel& pan = panels[p];
    const std::string pwho = who + ": panel " + std::to_string(p) + " ('" + pan.title + "')";
    for (double c : {pan.color.r, pan.color.g, pan.color.b})
      if (!(c >= 0 && c <= 1)) throw std::invalid_argument(pwho + ": color components must be in [0, 1]");
    check_panel(pwho, pan.states, 3, pan.F, "F");
    frames = std::max(frames, pan.states.size());
    if (!pan.ghost_states.empty()) {
      check_panel(pwho + " ghost", pan.ghost_states, 3, pan.F, "F");
      if (pan.ghost_states[0].rows() != pan.states[0].rows())
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
  return static_cast<int>(frames);
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
    const ViewBasis b = view_basis(cam, "render");
    eye_ = cam.eye;
    f_ = b.f;
    r_ = b.r;
    u_ = b.u;
    near_ = kNearFraction * (cam.target - cam.eye).norm();
    light_ = (-b.f + kLightUp * b.u - kLightLeft * b.r).normalized();
    w_ = opt.panel_width * ss_;
    h_ = opt.panel_height * ss_;
    scale_ = 0.5 * std::min(w_, h_) / std::tan(0.5 * deg(cam.fov_deg));
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
      ghost_panels_.push_back({p.ghost_states, p.F, "", p.ghost_color, {}, {}, 0.0});
      ghost_of_.push_back(static_cast<int>(ghosts_.size()));
      ghosts_.emplace_back(ghost_panels_.back(), cam, ghost_opt_);
    }
  }

  int width() const { return W_; }
  int height() const { return H_; }

  /// Draws frame f and returns the W x H image holding it.
  cairo_surface_t* draw(int f) {
    cairo_t* cr = cr_.get();
    cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
    cairo_set_source_surface(cr, background_.get(), 0, 0);
    cairo_paint(cr);
    const double inv = 1.0 / opt_.supersample;
    for (std::size_t p = 0; p < panels_.size(); ++p) {
      const SurfacePanel& pan = panels_[p];
      const auto& X = pan.states[std::min(static_cast<std::size_t>(f), pan.states.size() - 1)];
      SurfaceRenderer& R = renderers_[p];
      R.render(X);
      cairo_surface_flush(R.surface());
      cairo_save(cr);
      cairo_translate(cr, static_cast<double>(p) * opt_.panel_width, view_top_);
      cairo_rectangle(cr, 0, 0, opt_.panel_width, opt_.panel_height);
      cairo_clip(cr);
      cairo_scale(cr, inv, inv);
      cairo_set_source_surface(cr, R.surface(), 0, 0);
      cairo_pattern_set_filter(cairo_get_source(cr), opt_.supersample > 1 ? CAIRO_FILTER_GOOD : CAIRO_FILTER_NEAREST);
      cairo_paint(cr);
      if (ghost_of_[p] >= 0) {
        SurfaceRenderer& G = ghosts_[static_cast<std::size_t>(ghost_of_[p])];
        G.render(pan.ghost_states[std::min(static_cast<std::size_t>(f), pan.ghost_states.size() - 1)]);
        cairo_surface_flush(G.surface());
        cairo_set_operator(cr, CAIRO_OPERATOR_MULTIPLY);  // white (the background) leaves the panel as it is
        cairo_set_source_surface(cr, G.surface(), 0, 0);
        cairo_pattern_set_filter(cairo_get_source(cr), opt_.supersample > 1 ? CAIRO_FILTER_GOOD : CAIRO_FILTER_NEAREST);
        cairo_paint_with_alpha(cr, pan.ghost_alpha);
        cairo_set_operator(cr, CAIRO_OPERATOR_SOURCE);
      }
      cairo_restore(cr);
    }
    cairo_set_operator(cr, CAIRO_OPERATOR_OVER);
    cairo_surface_flush(frame_.get());
    return frame_.get();
  }

 private:
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

  Camera cam;
  cam.fov_deg = 35;
  cam.up = Eigen::Vector3d::UnitY();
  const Eigen::Vector3d c = 0.5 * (lo + hi);
  Eigen::Vector3d e = 0.5 * (hi - lo);
  if (!(e.maxCoeff() > 0)) e.setConstant(0.5);
  const double az = deg(kDefaultAzimuthDeg), el = deg(kDefaultElevationDeg);
  const Eigen::Vector3d d(std::sin(az) * std::cos(el), std::sin(el), std::cos(az) * std::cos(el));
  const Eigen::Vector3d f = -d;
  const Eigen::Vector3d r = f.cross(cam.up).normalized();
  const Eigen::Vector3d u = r.cross(f);
  const double t = kDefaultFill * std::tan(0.5 * deg(cam.fov_deg));
  // Corner q (offset from c) has depth D - q.d and must satisfy
  // |q.r|, |q.u| <= t * depth; keep every corner at least 0.1 |e| in front.
  double D = 0;
  for (int i = 0; i < 8; ++i) {
    const Eigen::Vector3d q((i & 1) ? e.x() : -e.x(), (i & 2) ? e.y() : -e.y(), (i & 4) ? e.z() : -e.z());
    const double need = std::max(std::max(std::abs(q.dot(r)), std::abs(q.dot(u))) / t, 0.1 * e.norm());
    D = std::max(D, q.dot(d) + need);
  }
  cam.target = c;
  cam.eye = c + D * d;
  return cam;
}

void write_surface_animation(const std::string& mp4_path, const std::vector<SurfacePanel>& panels, const Camera& cam,
                             const SurfaceAnimationOptions& opt,
                             const std::function<void(int done, int total)>& progress) {
  const int total = validate("write_surface_animation", panels, cam, opt);
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
          parallel_for(
              count, 1,
              [&](Index b, Index e) {
                for (Index i = b; i < e; ++i)
                  drawn[static_cast<std::size_t>(i)] =
                      figs[static_cast<std::size_t>(i)]->draw(base + static_cast<int>(i));
              },
              batch);
        }
        return video_frame(drawn[static_cast<std::size_t>(f - base)]);
      },
      progress);
}

void write_surface_png(const std::string& png_path, const std::vector<SurfacePanel>& panels, const Camera& cam,
                       int frame, const SurfaceAnimationOptions& opt) {
  const int total = validate("write_surface_png", panels, cam, opt);
  if (frame < 0 || frame >= total)
    throw std::invalid_argument("write_surface_png: frame " + std::to_string(frame) + " is out of range for " +
                                std::to_string(total) + " frames");
  Figure fig(panels, cam, opt);
  write_png(fig.draw(frame), png_path);
}

}  // namespace fastcd
