#include "fastcd/view/viewer_model.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include "fastcd/common/check.hpp"
#include "fastcd/scene/precompute_cache.hpp"

namespace fastcd {

std::string to_string(ViewField f) {
  switch (f) {
    case ViewField::Shaded:
      return "shaded";
    case ViewField::Clusters:
      return "clusters";
    case ViewField::Mode:
      return "mode";
    case ViewField::Leak:
      return "leak";
    case ViewField::Displacement:
      return "displacement";
  }
  return "shaded";
}

ViewField view_field(const std::string& name) {
  for (ViewField f :
       {ViewField::Shaded, ViewField::Clusters, ViewField::Mode, ViewField::Leak, ViewField::Displacement})
    if (to_string(f) == name) return f;
  throw std::invalid_argument("view '" + name + "': expected shaded, clusters, mode, leak or displacement");
}

ViewerModel::ViewerModel(std::shared_ptr<const Scene> scene, const ViewerSettings& settings)
    : scene_(std::move(scene)), settings_(settings) {
  FASTCD_CHECK(scene_ != nullptr && scene_->rig != nullptr, "ViewerModel: no scene or no rig");
  FASTCD_CHECK(!scene_->poses.empty(), "ViewerModel: the scene '", scene_->name, "' has no animation frames");
  ym_ = scene_->ym;
  rho_ = scene_->rho;
  sim_ = std::make_unique<Simulation>(
      make_simulation(*scene_, options_for(settings_.run, ym_, rho_), settings_.cache_dir));
  const OutputSurface out = output_surface(*scene_);
  E_ = out.E;
  faces_ = out.F;
  // An element each output vertex lies in: the render embedding's, or one incident to the tet vertex.
  const Index dim = scene_->dim;
  if (scene_->render_element.size() == E_.rows()) {
    out_element_ = scene_->render_element;
  } else {
    VectorXi incident = VectorXi::Constant(scene_->X.rows(), 0);
    for (Index t = scene_->T.rows() - 1; t >= 0; --t)
      for (Index k = 0; k <= dim; ++k) incident[scene_->T(t, k)] = static_cast<int>(t);
    // Per output vertex, the tet vertex with its largest embedding weight.
    VectorXi best = VectorXi::Zero(E_.rows());
    VectorXd w = VectorXd::Constant(E_.rows(), -1.0);
    for (Index k = 0; k < E_.outerSize(); ++k)
      for (SparseMatrix::InnerIterator it(E_, k); it; ++it)
        if (it.value() > w[it.row()]) {
          w[it.row()] = it.value();
          best[it.row()] = static_cast<int>(it.col());
        }
    out_element_.resize(E_.rows());
    for (Index r = 0; r < E_.rows(); ++r) out_element_[r] = incident[best[r]];
  }
  if (scene_->handle_points.rows() == scene_->handles) {
    rest_handles_ = scene_->handle_points;
  } else if (scene_->W.rows() == scene_->X.rows() && scene_->W.cols() == scene_->handles) {
    rest_handles_.resize(scene_->handles, dim);
    for (Index j = 0; j < scene_->handles; ++j) {
      const double w = scene_->W.col(j).sum();
      rest_handles_.row(j) = w > 0 ? Eigen::RowVectorXd(scene_->W.col(j).transpose() * scene_->X / w)
                                   : Eigen::RowVectorXd(scene_->X.colwise().mean());
    }
  }
  clear_manipulation();
  record();
}

void ViewerModel::advance_one() {
  sim_->advance(pose(frame_ + 1));
  ++frame_;
  // The simulation's own monitor measured and checked the step (for the fast solver in reduced
  // coordinates, without lifting u_c) and threw, with its advice, if it diverged.
  last_residual_ = sim_->last_step().residual;
  last_kinetic_ = sim_->last_step().kinetic_energy;
}

ViewerModel::~ViewerModel() {
  if (rebuild_.valid()) rebuild_.wait();
}

SimulationOptions ViewerModel::options_for(const SceneRunSettings& run, double ym, double rho) const {
  SceneRunSettings r = run;
  r.clusters = std::min<int>(r.clusters, static_cast<int>(scene_->T.rows()));
  SimulationOptions o = scene_simulation_options(*scene_, r);
  o.cd.ym = normalised_ym(*scene_, ym);  // ym as the scene gives it (Pa for a character)
  o.cd.rho = rho;
  return o;
}

bool ViewerModel::manipulable() const {
  const Index d = scene_->dim;
  return dynamic_cast<const LinearRig*>(scene_->rig.get()) != nullptr && scene_->handles > 0 &&
         scene_->rig->num_params() == scene_->handles * d * (d + 1) && rest_handles_.rows() == scene_->handles;
}

void ViewerModel::clear_manipulation() {
  const Index d = scene_->dim;
  MatrixXd I = MatrixXd::Zero(d, d + 1);
  I.leftCols(d).setIdentity();
  user_.assign(static_cast<std::size_t>(scene_->handles), I);
}

VectorXd ViewerModel::pose(int f) const {
  FASTCD_CHECK(f >= 0 && f < frames(), "frame ", f, " is outside 0..", frames() - 1);
  VectorXd p = scene_->poses[static_cast<std::size_t>(f)];
  if (!manipulable()) return p;
  const Index d = scene_->dim, block = d * (d + 1);
  for (Index j = 0; j < scene_->handles; ++j) {
    const MatrixXd& U = user_[static_cast<std::size_t>(j)];
    Eigen::Map<MatrixXd> A(p.data() + block * j, d, d + 1);
    const MatrixXd B = A;
    A.leftCols(d) = U.leftCols(d) * B.leftCols(d);
    A.col(d) = U.leftCols(d) * B.col(d) + U.col(d);
  }
  return p;
}

VectorXd ViewerModel::handle_position(Index j) const {
  FASTCD_CHECK(j >= 0 && j < scene_->handles, "handle ", j, " of ", scene_->handles);
  const Index d = scene_->dim;
  const VectorXd p = pose(frame_);
  const Eigen::Map<const MatrixXd> A(p.data() + d * (d + 1) * j, d, d + 1);
  return A.leftCols(d) * rest_handles_.row(j).transpose() + A.col(d);
}

void ViewerModel::translate_handle(Index j, const Eigen::Ref<const VectorXd>& delta) {
  FASTCD_CHECK(manipulable(), "the ", scene_->rig->name(), " rig has no handles to move");
  FASTCD_CHECK(j >= 0 && j < scene_->handles, "handle ", j, " of ", scene_->handles);
  FASTCD_CHECK(delta.size() == scene_->dim && delta.allFinite(), "a handle moves by ", scene_->dim,
               " finite numbers, got ", delta.size());
  user_[static_cast<std::size_t>(j)].col(scene_->dim) += delta;
}

void ViewerModel::rotate_handle(Index j, const Eigen::Ref<const VectorXd>& axis, double angle) {
  FASTCD_CHECK(manipulable(), "the ", scene_->rig->name(), " rig has no handles to turn");
  FASTCD_CHECK(j >= 0 && j < scene_->handles, "handle ", j, " of ", scene_->handles);
  FASTCD_CHECK(std::isfinite(angle), "the angle is not finite");
  const Index d = scene_->dim;
  MatrixXd R(d, d);
  if (d == 2) {
    R << std::cos(angle), -std::sin(angle), std::sin(angle), std::cos(angle);
  } else {
    FASTCD_CHECK(axis.size() == 3 && axis.norm() > 0, "a 3D rotation needs a non-zero axis of 3 entries");
    R = Eigen::AngleAxisd(angle, Eigen::Vector3d(axis.normalized())).toRotationMatrix();
  }
  const VectorXd c = handle_position(j);
  MatrixXd& U = user_[static_cast<std::size_t>(j)];
  const MatrixXd L = U.leftCols(d);
  const VectorXd t = U.col(d);
  U.leftCols(d) = R * L;
  U.col(d) = R * (t - c) + c;
}

void ViewerModel::record() {
  const auto push = [this](std::deque<double>& q, double v) {
    q.push_back(v);
    while (q.size() > settings_.history) q.pop_front();
  };
  push(step_ms_, 1e3 * sim_->last_step().step_seconds);
  // The step's own monitor measured both (no second lift of u_c); at rest, both are 0.
  const bool stepped = sim_->step_count() > 0;
  push(residuals_, stepped ? last_residual_ : 0.0);
  push(kinetic_, stepped ? last_kinetic_ : 0.0);
}

void ViewerModel::step() {
  if (frame_ + 1 >= frames()) {
    if (!settings_.loop) {
      playing_ = false;
      return;
    }
    sim_->reset();  // the animation starts again from rest
    frame_ = 0;
    record();
    return;
  }
  try {
    advance_one();
  } catch (const std::runtime_error& e) {  // diverged: say so, start again, pause
    error_ = e.what();
    sim_->reset();
    frame_ = 0;
    playing_ = false;
  }
  record();
}

void ViewerModel::tick() {
  if (rebuild_.valid() && rebuild_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) finish_rebuild();
  if (playing_) step();
}

void ViewerModel::advance_to(int f) {
  while (frame_ < f) advance_one();
  record();
}

void ViewerModel::seek(int f) {
  FASTCD_CHECK(f >= 0 && f < frames(), "frame ", f, " is outside 0..", frames() - 1);
  sim_->reset();
  frame_ = 0;
  try {
    advance_to(f);
  } catch (const std::runtime_error& e) {
    error_ = e.what();
    sim_->reset();
    frame_ = 0;
    playing_ = false;
  }
}

void ViewerModel::set_run_settings(const SceneRunSettings& run, double ym, double rho) {
  FASTCD_CHECK(ym > 0 && rho > 0 && std::isfinite(ym) && std::isfinite(rho), "YM and density must be > 0, got ", ym,
               " and ", rho);
  const SimulationOptions o = options_for(run, ym, rho);  // bad settings throw here, changing nothing
  if (rebuild_.valid()) rebuild_.wait();                  // the latest settings win
  settings_.run = run;
  ym_ = ym;
  rho_ = rho;
  rebuild_ = std::async(std::launch::async, [scene = scene_, o, dir = settings_.cache_dir] {
    return std::make_unique<Simulation>(make_simulation(*scene, o, dir));
  });
}

bool ViewerModel::rebuilding() const {
  return rebuild_.valid() && rebuild_.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
}

void ViewerModel::finish_rebuild() {
  if (!rebuild_.valid()) return;
  try {
    std::unique_ptr<Simulation> next = rebuild_.get();
    const int f = frame_;
    sim_ = std::move(next);
    frame_ = 0;
    error_.clear();
    seek(f);
  } catch (const std::exception& e) {
    error_ = e.what();
  }
}

MatrixXd ViewerModel::positions() const { return E_ * sim_->positions(); }
MatrixXd ViewerModel::rig_positions() const { return E_ * sim_->rig_positions(); }

int ViewerModel::modes() const { return sim_->fast() ? static_cast<int>(sim_->fast()->W().cols()) : 0; }
int ViewerModel::clusters() const { return sim_->fast() ? static_cast<int>(sim_->fast()->n_rot()) : 0; }

VectorXd ViewerModel::field(ViewField f, int mode) const {
  const Index n = E_.rows();
  switch (f) {
    case ViewField::Shaded:
      return {};
    case ViewField::Clusters: {
      FASTCD_CHECK(sim_->fast() != nullptr, "the clusters view needs the fast solver");
      const VectorXi& labels = sim_->fast()->labels();
      const double c = std::max<double>(1, static_cast<double>(clusters()));
      VectorXd v(n);
      for (Index r = 0; r < n; ++r) v[r] = (labels[out_element_[r]] + 0.5) / c;
      return v;
    }
    case ViewField::Mode: {
      FASTCD_CHECK(sim_->fast() != nullptr, "the mode view needs the fast solver");
      FASTCD_CHECK(mode >= 0 && mode < modes(), "mode ", mode, " of ", modes());
      const VectorXd w = E_ * sim_->fast()->W().col(mode);
      const double m = std::max(w.cwiseAbs().maxCoeff(), 1e-300);
      return (0.5 + w.array() / (2 * m)).matrix();
    }
    case ViewField::Leak:
      return E_ * sim_->D();
    case ViewField::Displacement: {
      const MatrixXd u = E_ * sim_->displacement();
      VectorXd v = u.rowwise().norm();
      const double m = v.maxCoeff();
      return m > 0 ? VectorXd(v / m) : v;
    }
  }
  return {};
}

}  // namespace fastcd

namespace fastcd {

bool ViewerModel::skinning_form() const {
  if (sim_->fast() == nullptr || scene_->dim != 3 || !manipulable() || scene_->W.cols() != scene_->handles)
    return false;
  VectorXi entries = VectorXi::Zero(E_.rows());  // every output vertex one tet vertex, weight 1
  for (Index k = 0; k < E_.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(E_, k); it; ++it) entries[it.row()] += it.value() == 1.0 ? 1 : 2;
  return (entries.array() == 1).all();
}

Eigen::MatrixXf ViewerModel::skinning_rest() const { return (E_ * scene_->X).cast<float>(); }

Eigen::MatrixXf ViewerModel::skinning_weights() const {
  FASTCD_CHECK(skinning_form(), "skinning-form lifting needs the fast solver, a 3D LBS rig and tet-vertex output");
  MatrixXd W(E_.rows(), scene_->handles + modes());
  W << E_ * scene_->W, E_ * sim_->fast()->W();
  return W.cast<float>();
}

Eigen::MatrixXf ViewerModel::skinning_transforms(bool dynamics) const {
  FASTCD_CHECK(skinning_form(), "skinning-form lifting needs the fast solver, a 3D LBS rig and tet-vertex output");
  const Index h = scene_->handles, k = modes();
  MatrixXd M = MatrixXd::Zero(h + k, 12);
  const VectorXd& p = sim_->state().p;
  for (Index j = 0; j < h; ++j) M.row(j) = p.segment(12 * j, 12).transpose();
  if (dynamics) {
    MatrixXd T(k, 12);
    sim_->fast()->mode_transforms(sim_->state().s, T);
    M.bottomRows(k) = T;
  }
  return M.cast<float>();
}

}  // namespace fastcd
