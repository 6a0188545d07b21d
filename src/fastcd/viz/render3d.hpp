#pragma once

// Quick-look 3D previews of surface-mesh animations rendered with Cairo:
// side-by-side panels seen through one perspective camera, drawn with the
// painter's algorithm (triangles sorted back to front per frame) and flat
// Lambert shading, encoded to MP4 through ffmpeg or written as a PNG still.
// Nothing here prints; every failure is reported by an exception.
//
// Conventions: world coordinates are right-handed with y up (as in glTF);
// the "front" of a scene faces +z and its "right" is +x. A closed surface
// from fastcd::boundary_facets(T).F of positively oriented tets is oriented
// outward, but the renderer is two-sided and does not need any orientation.

#include "fastcd/viz/render2d.hpp"  // Rgb
#include "fastcd/viz/video.hpp"     // FrameFeed

#include <Eigen/Core>

#include <functional>
#include <string>
#include <vector>

namespace fastcd {

/// One panel of a surface animation.
struct SurfacePanel {
  std::vector<Eigen::MatrixXd> states;  ///< frames, each #V x 3 vertex positions
  Eigen::MatrixXi F;                    ///< #F x 3 surface triangle vertex indices (0-based)
  std::string title;                    ///< text above the panel ("" = none)
  Rgb color;                            ///< base colour, modulated by the shading
  /// Optional ghost: another pose of the same surface (same F, e.g. the rig alone) drawn over
  /// the panel, shaded in ghost_color and multiplied in with ghost_alpha, so empty parts of the
  /// panel stay as they are and the ghost tints what it covers (drawn on top: an x-ray view). Empty = none; else one
  /// state per frame (or fewer: the last is held, as for `states`).
  std::vector<Eigen::MatrixXd> ghost_states;
  Rgb ghost_color{0.84, 0.15, 0.16};
  double ghost_alpha = 0.45;  ///< in (0, 1]
};

/// A perspective pinhole camera looking from `eye` at `target`; `up` fixes
/// the roll (only its part orthogonal to the view direction matters).
/// `fov_deg` is the full field of view across the shorter side of a panel.
/// The defaults look from (0, 0, 5) at the origin with y up.
struct Camera {
  Eigen::Vector3d eye = Eigen::Vector3d(0, 0, 5);
  Eigen::Vector3d target = Eigen::Vector3d::Zero();
  Eigen::Vector3d up = Eigen::Vector3d::UnitY();
  double fov_deg = 35;
};

/// A 3/4 view that keeps every frame in sight: looks at the centre c of the
/// axis-aligned bounding box of all vertices of all `all_states` from the
/// front-right-above, i.e. along the direction
///   d = (sin 35deg cos 25deg, sin 25deg, cos 35deg cos 25deg)
/// (35 degrees azimuth from +z towards +x, 25 degrees elevation), with y up
/// and fov_deg = 35. The distance is the smallest one at which all 8 box
/// corners lie inside 95% of the half field of view (square panel), so the
/// whole animation stays in view with a small margin. A degenerate (point)
/// box is framed as if it had size 1.
///
/// @param all_states  frames, each #V x 3 (at least one vertex overall);
///                    pass the states of every panel to share one camera.
/// @throws std::invalid_argument if there is no vertex, a state is not
///         #V x 3 or has a non-finite coordinate.
Camera default_camera(const std::vector<Eigen::MatrixXd>& all_states);

/// The cameras of a preview: one per frame when the camera follows the subject, else one.
struct CameraTrack {
  std::vector<Camera> cameras;  ///< one per frame (follows), or one for every frame
  bool follows = false;         ///< true when the camera travels with the subject
};

/// Frames a subject that may travel (a walk, a swim): `frames[f]` holds the points that must be
/// in view at frame f (the rig-only surface, or every panel's vertices stacked). The view
/// direction, up and fov are default_camera's. The fixed choice aims at the middle of what all
/// frames' points cover on screen, from the smallest distance at which every point lies within
/// `fill` of the half field of view (the points themselves, not their bounding box's corners,
/// which an oblique view shows much larger: the subject fills the panel). The following
/// choice aims at the centre of each frame's bounding box, smoothed by a centred moving average
/// over `smooth_frames` frames (no lag; 1 = none; fewer, still centred, near the ends), from one distance for the whole
/// shot: the smallest at which every frame's points lie within `fill` of the half field of view around that frame's
/// target, so the subject never leaves the view and the zoom never breathes. The camera follows when that distance is
/// below 0.6 of the fixed one, i.e. when a fixed camera would show the subject at less than 0.6 of the size the
/// following one does.
///
/// @throws std::invalid_argument for no frames, a frame without vertices, a frame that is not
///         #V x 3 or has a non-finite coordinate, smooth_frames < 1, fill outside (0, 1].
CameraTrack track_camera(const std::vector<Eigen::MatrixXd>& frames, int smooth_frames, double fill = 0.95);

/// Figure and rendering settings of write_surface_animation / write_surface_png.
struct SurfaceAnimationOptions {
  int fps = 30;             ///< frames per second of the video (ignored by PNGs)
  std::string suptitle;     ///< figure title centred at the top ("" = none)
  int panel_width = 480;    ///< width of each panel's 3D view, pixels
  int panel_height = 480;   ///< height of each panel's 3D view, pixels
  Rgb background{1, 1, 1};  ///< figure and panel background colour
  bool edges = false;       ///< draw triangle edges (thin, darker) - for small meshes
  int supersample = 2;      ///< antialiasing: triangles are drawn at this many times
                            ///< the resolution and box-filtered down (1 = none, max 4)
  /// Streaming: frames still being produced (e.g. by the simulation, on another thread). Each
  /// panel's `states` (and `ghost_states`) must then be sized to the frame count up front;
  /// frame f of every panel is read only after feed->wait(f), and checked then (shape, finite,
  /// F's indices) instead of before the first frame. nullptr = every frame is there already.
  const FrameFeed* feed = nullptr;
};

/// Renders side-by-side surface panels frame by frame and encodes them to an
/// H.264 / yuv420p MP4 (crf 20) by piping raw frames into `ffmpeg` found on
/// PATH. The file is written atomically (temp file + rename).
///
/// Figure: #panels views of panel_width x panel_height pixels in a row under
/// a title band (suptitle, then the panel titles; the band is omitted when
/// there is no text), the total rounded up to even pixel sizes.
///
/// Every panel uses `cam`: vertex p maps to camera coordinates
/// (x, y, z) = ((p - eye) . r, (p - eye) . u, (p - eye) . f) with
/// f = (target - eye)/|target - eye|, r = f x up normalised, u = r x f, and to
/// pixel (cx + s x / z, cy - s y / z) with s = (min(w, h) / 2) / tan(fov/2).
/// Triangles are sorted by decreasing mean depth z and painted back to front
/// (painter's algorithm: fine for previews, not exact for intersecting or
/// cyclically overlapping triangles); a triangle with a vertex closer than
/// 1% of |target - eye| in front of the eye (or behind it) is skipped.
/// Flat two-sided Lambert shading: colour * (0.25 + 0.75 |n . l|) with n the
/// unit triangle normal and l a key light over the viewer's upper-left
/// shoulder: l ∝ -f + 0.5 u - 0.1 r (a headlight tilted up and a little
/// left, so the faces of a box get distinct shades: in the default_camera
/// view its top, front and right faces get about 0.84, 0.67 and 0.46).
/// Degenerate triangles are skipped.
/// The frame count is that of the longest panel; shorter panels hold their
/// last frame.
///
/// @param mp4_path  output path (written as MP4 regardless of extension).
/// @param panels    at least one panel; each with at least one state.
/// @param cam       shared camera, e.g. default_camera of all states.
/// @param opt       figure / encoding options.
/// @param progress  optional, called after each frame with (done, total).
/// @throws std::invalid_argument for no panels, a panel without states, a
///         state that is not #V x 3 or has non-finite coordinates, F not
///         #F x 3, an index of F outside [0, #V) of some state, a bad camera
///         (non-finite, eye == target, up parallel to the view direction,
///         fov_deg outside (0, 180)), a colour component outside [0, 1] or
///         bad options (fps < 1, panel sizes outside [2, 4096], #panels x
///         panel_width > 16384, supersample outside [1, 4]).
/// @throws std::runtime_error if ffmpeg is not installed, fails (its error
///         output is in the message) or the file cannot be written.
void write_surface_animation(const std::string& mp4_path, const std::vector<SurfacePanel>& panels, const Camera& cam,
                             const SurfaceAnimationOptions& opt,
                             const std::function<void(int done, int total)>& progress = {});

/// As above with one camera per frame (`cameras` of the longest panel's frame count, e.g.
/// track_camera(...).cameras), or a single camera for all frames.
/// @throws std::invalid_argument as above, or when cameras has neither 1 nor #frames entries.
void write_surface_animation(const std::string& mp4_path, const std::vector<SurfacePanel>& panels,
                             const std::vector<Camera>& cameras, const SurfaceAnimationOptions& opt,
                             const std::function<void(int done, int total)>& progress = {});

/// Writes frame `frame` of the figure write_surface_animation would encode as
/// a PNG still (same layout, camera and shading; panels with fewer frames
/// show their last one). Written atomically.
///
/// @param frame  0-based frame index in [0, longest panel's state count).
/// @throws std::invalid_argument as write_surface_animation, or for a frame
///         index out of range.
/// @throws std::runtime_error if the PNG cannot be written.
void write_surface_png(const std::string& png_path, const std::vector<SurfacePanel>& panels, const Camera& cam,
                       int frame, const SurfaceAnimationOptions& opt = {});

}  // namespace fastcd
