#pragma once
// Internal helpers shared by the Cairo renderers (render2d.cpp, render3d.cpp): Cairo RAII
// handles, text drawing, even-size rounding, atomic PNG writing and input checks. Not part of
// the public API; include only from viz/*.cpp. Video encoding lives in video.hpp.
// Nothing here prints; every failure is reported by an exception.
#include <cairo.h>

#include <Eigen/Core>
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <functional>
#include <map>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "fastcd/io/atomic_file.hpp"
#include "fastcd/viz/render2d.hpp"
#include "fastcd/viz/video.hpp"

namespace fastcd::detail {

// ======================================================================
// Colours, sizes, Cairo handles
// ======================================================================

inline constexpr Rgb kBlack{0, 0, 0};
inline constexpr Rgb kWhite{1, 1, 1};
constexpr Rgb grey(double v) { return {v, v, v}; }

// Matplotlib default rc values (points) shared by the renderers.
inline constexpr double kAxesTitleSize = 12;  // axes.titlesize "large"
inline constexpr double kSuptitleSize = 14;   // a bit larger than the axes titles
inline constexpr const char* kFontFamily = "DejaVu Sans";

struct SurfaceDeleter {
  void operator()(cairo_surface_t* s) const { cairo_surface_destroy(s); }
};
struct ContextDeleter {
  void operator()(cairo_t* c) const { cairo_destroy(c); }
};
using SurfacePtr = std::unique_ptr<cairo_surface_t, SurfaceDeleter>;
using ContextPtr = std::unique_ptr<cairo_t, ContextDeleter>;

inline SurfacePtr make_surface(int w, int h, cairo_format_t format = CAIRO_FORMAT_ARGB32) {
  SurfacePtr s(cairo_image_surface_create(format, w, h));
  if (cairo_surface_status(s.get()) != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error("cairo: cannot create a " + std::to_string(w) + "x" + std::to_string(h) +
                             " image: " + cairo_status_to_string(cairo_surface_status(s.get())));
  return s;
}

inline ContextPtr make_context(cairo_surface_t* s) {
  ContextPtr c(cairo_create(s));
  if (cairo_status(c.get()) != CAIRO_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cairo: cannot create a context: ") +
                             cairo_status_to_string(cairo_status(c.get())));
  return c;
}

inline void set_color(cairo_t* cr, Rgb c, double alpha = 1.0) {
  if (alpha >= 1.0)
    cairo_set_source_rgb(cr, c.r, c.g, c.b);
  else
    cairo_set_source_rgba(cr, c.r, c.g, c.b, alpha);
}

// Even pixel size (yuv420p needs even dimensions).
inline int even_pixels(double v) {
  int n = static_cast<int>(std::lround(v));
  if (n < 2) n = 2;
  return n + (n & 1);
}

// ======================================================================
// Text
// ======================================================================

// A text label, optionally followed by a superscript (for "10^k").
struct Label {
  std::string text;
  std::string sup;
  bool empty() const { return text.empty() && sup.empty(); }
};

enum class HA { Left, Center, Right };
enum class VA { Top, Center, Baseline, Bottom, CenterBaseline };

class Painter {
 public:
  Painter(cairo_t* cr, double dpi) : cr_(cr), dpi_(dpi) {
    cairo_select_font_face(cr_, kFontFamily, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_font_options_t* fo = cairo_font_options_create();
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_set_font_options(cr_, fo);
    cairo_font_options_destroy(fo);
  }

  cairo_t* cr() const { return cr_; }
  double dpi() const { return dpi_; }
  /// Points to pixels.
  double pt(double points) const { return points * dpi_ / 72.0; }

  struct Box {
    double width = 0, ascent = 0, descent = 0;
    double height() const { return ascent + descent; }
  };

  /// Layout box like matplotlib's: width of the string, ascent/descent of "lp".
  Box measure(const Label& l, double size_pt) {
    Box b;
    const double px = pt(size_pt);
    const LineMetrics& m = line_metrics(px);
    b.ascent = m.ascent;
    b.descent = m.descent;
    b.width = advance(l.text, px);
    if (!l.sup.empty()) {
      const double spx = px * kSupScale;
      b.width += advance(l.sup, spx);
      b.ascent = std::max(b.ascent, px * kSupRise + line_metrics(spx).ascent);
    }
    return b;
  }

  /// Draws `l` anchored at (x, y) with the given alignment; if `vertical`,
  /// the text is rotated by 90 degrees counter-clockwise about the anchor
  /// (alignment is then in the text's own frame).
  void text(const Label& l, double x, double y, double size_pt, HA ha, VA va, Rgb color = kBlack,
            bool vertical = false) {
    if (l.empty()) return;
    const Box b = measure(l, size_pt);
    const double px = pt(size_pt);
    double x0 = 0;
    if (ha == HA::Center) x0 = -b.width / 2;
    if (ha == HA::Right) x0 = -b.width;
    double base = 0;
    switch (va) {
      case VA::Top:
        base = b.ascent;
        break;
      case VA::Bottom:
        base = -b.descent;
        break;
      case VA::Center:
        base = (b.ascent - b.descent) / 2;
        break;
      case VA::CenterBaseline:
        base = b.ascent / 2;
        break;
      case VA::Baseline:
        base = 0;
        break;
    }
    cairo_save(cr_);
    cairo_translate(cr_, x, y);
    if (vertical) cairo_rotate(cr_, -std::numbers::pi / 2);
    set_color(cr_, color);
    cairo_set_font_size(cr_, px);
    cairo_move_to(cr_, x0, base);
    cairo_show_text(cr_, l.text.c_str());
    if (!l.sup.empty()) {
      const double spx = px * kSupScale;
      cairo_move_to(cr_, x0 + advance(l.text, px), base - px * kSupRise);
      cairo_set_font_size(cr_, spx);
      cairo_show_text(cr_, l.sup.c_str());
    }
    cairo_restore(cr_);
  }

 private:
  static constexpr double kSupScale = 0.7;
  static constexpr double kSupRise = 0.42;

  struct LineMetrics {
    double ascent, descent;
  };

  const LineMetrics& line_metrics(double px) {
    auto it = metrics_.find(px);
    if (it != metrics_.end()) return it->second;
    cairo_set_font_size(cr_, px);
    cairo_text_extents_t e;
    cairo_text_extents(cr_, "lp", &e);
    LineMetrics m{-e.y_bearing, e.height + e.y_bearing};
    return metrics_.emplace(px, m).first->second;
  }

  double advance(const std::string& s, double px) {
    if (s.empty()) return 0;
    cairo_set_font_size(cr_, px);
    cairo_text_extents_t e;
    cairo_text_extents(cr_, s.c_str(), &e);
    return e.x_advance;
  }

  cairo_t* cr_;
  double dpi_;
  std::map<double, LineMetrics> metrics_;
};

// ======================================================================
// Files and checks
// ======================================================================

inline void write_png(cairo_surface_t* surface, const std::string& path) {
  fastcd::write_file_atomically(path, [&](const std::string& tmp) {
    cairo_surface_flush(surface);
    const cairo_status_t st = cairo_surface_write_to_png(surface, tmp.c_str());
    if (st != CAIRO_STATUS_SUCCESS)
      throw std::runtime_error("cannot write PNG '" + path + "': " + cairo_status_to_string(st));
  });
}

// Adds triangle t (pixel coordinates in P) to the path, counter-clockwise
// on screen, so that overlapping triangles never cancel under the nonzero
// fill rule.
inline void add_triangle(cairo_t* cr, const std::vector<double>& P, const std::array<int, 3>& tri) {
  const double* a = &P[2 * static_cast<std::size_t>(tri[0])];
  const double* b = &P[2 * static_cast<std::size_t>(tri[1])];
  const double* c = &P[2 * static_cast<std::size_t>(tri[2])];
  const double cross = (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]);
  if (cross < 0) std::swap(b, c);
  cairo_move_to(cr, a[0], a[1]);
  cairo_line_to(cr, b[0], b[1]);
  cairo_line_to(cr, c[0], c[1]);
  cairo_close_path(cr);
}

inline std::string shape_str(const Eigen::MatrixXd& M) {
  return std::to_string(M.rows()) + "x" + std::to_string(M.cols());
}

// Validates that X is #V x dim with finite coordinates; `what` names X.
inline void check_positions(const Eigen::MatrixXd& X, Eigen::Index dim, const std::string& what) {
  if (X.cols() != dim)
    throw std::invalid_argument(what + " must be #V x " + std::to_string(dim) + ", got " + shape_str(X));
  if (!X.allFinite()) {
    for (Eigen::Index v = 0; v < X.rows(); ++v)
      for (Eigen::Index d = 0; d < dim; ++d)
        if (!std::isfinite(X(v, d)))
          throw std::invalid_argument(what + " has a non-finite coordinate at (" + std::to_string(v) + ", " +
                                      std::to_string(d) + ")");
  }
}

// Validates one animation panel: at least one state, every state #V x dim
// and finite, the index matrix (called `name`, e.g. "T" or "F") #rows x 3
// with every index in [0, #V) of every state. `who` starts each message.
inline void check_panel(const std::string& who, const std::vector<Eigen::MatrixXd>& states, Eigen::Index dim,
                        const Eigen::MatrixXi& T, const std::string& name) {
  if (states.empty()) throw std::invalid_argument(who + " has no states");
  if (T.cols() != 3)
    throw std::invalid_argument(who + ": " + name + " must be #" + name + " x 3, got " + std::to_string(T.rows()) +
                                "x" + std::to_string(T.cols()));
  Eigen::Index tmax = -1, tmin = 0, at_max = 0, at_min = 0;
  for (Eigen::Index i = 0; i < T.size(); ++i) {
    if (T.data()[i] > tmax) {
      tmax = T.data()[i];
      at_max = i;
    }
    if (T.data()[i] < tmin) {
      tmin = T.data()[i];
      at_min = i;
    }
  }
  auto where = [&](Eigen::Index i) {  // column-major index -> "T(t, k)"
    return name + "(" + std::to_string(i % T.rows()) + ", " + std::to_string(i / T.rows()) + ")";
  };
  if (tmin < 0) throw std::invalid_argument(who + ": " + where(at_min) + " = " + std::to_string(tmin) + " is negative");
  for (std::size_t s = 0; s < states.size(); ++s) {
    const auto& X = states[s];
    check_positions(X, dim, who + ": state " + std::to_string(s));
    if (tmax >= X.rows())
      throw std::invalid_argument(who + ": " + where(at_max) + " = " + std::to_string(tmax) +
                                  " is out of range for state " + std::to_string(s) + " with " +
                                  std::to_string(X.rows()) + " vertices");
  }
}

/// A drawn image surface as a frame for encode_mp4 (flushed first).
inline VideoFrame video_frame(cairo_surface_t* s) {
  cairo_surface_flush(s);
  return {cairo_image_surface_get_data(s), cairo_image_surface_get_stride(s)};
}

}  // namespace fastcd::detail
