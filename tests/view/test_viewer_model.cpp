// ViewerModel: playback steps the same simulation fastcd run does, scrubbing replays it, a
// dragged handle moves the rig and the tissue follows with the constraint held, parameter
// changes rebuild in the background and take over, and the fields are what they say.
#include "fastcd/view/viewer_model.hpp"

#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>

#include "fastcd/scene/scene.hpp"
#include "fastcd/scene/scene_simulation.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_viewer_model {

const std::string kData = std::string(FASTCD_SHARED_DIR) + "/data/";

std::shared_ptr<const Scene> elephant() {
  static const auto s =
      std::make_shared<const Scene>(load_scene(kData + "complementary-dynamics-cpp/elephant/elephant.json"));
  return s;
}

ViewerSettings fast_settings() {
  ViewerSettings v;
  v.run.solver = SolverKind::Fast;
  v.run.modes = 6;
  v.run.clusters = 20;
  return v;
}

TEST(ViewerModel, PlaybackIsTheSimulationFastcdRunSteps) {
  ViewerModel m(elephant(), fast_settings());
  ASSERT_TRUE(m.playing());
  for (int k = 0; k < 12; ++k) m.tick();
  EXPECT_EQ(m.frame(), 12);
  // The same steps without the viewer.
  SceneRunSettings run = fast_settings().run;
  Simulation sim = make_simulation(*elephant(), scene_simulation_options(*elephant(), run));
  for (int f = 1; f <= 12; ++f) sim.advance(elephant()->poses[static_cast<std::size_t>(f)]);
  const OutputSurface out = output_surface(*elephant());
  EXPECT_EQ((m.positions() - out.E * sim.positions()).cwiseAbs().maxCoeff(), 0.0);
  EXPECT_EQ(m.faces(), out.F);
  EXPECT_EQ(m.residuals().size(), 13u);
  EXPECT_LT(*std::max_element(m.residuals().begin(), m.residuals().end()), 1e-8);
  // The reduced residual and kinetic energy are the simulation's own (its monitor measures them
  // on the lifted u_c).
  EXPECT_NEAR(m.residuals().back(), sim.last_step().residual, 1e-12);
  EXPECT_NEAR(m.kinetic_energies().back(), sim.last_step().kinetic_energy, 1e-9 * sim.last_step().kinetic_energy);
  EXPECT_GT(m.kinetic_energies().back(), 0.0);
  // Paused: ticks do nothing; step() still steps.
  m.set_playing(false);
  m.tick();
  EXPECT_EQ(m.frame(), 12);
  m.step();
  EXPECT_EQ(m.frame(), 13);
}

TEST(ViewerModel, ScrubbingReplaysAndLoopingStartsFromRest) {
  ViewerModel m(elephant(), fast_settings());
  for (int k = 0; k < 20; ++k) m.tick();
  const MatrixXd at20 = m.positions();
  m.seek(5);
  EXPECT_EQ(m.frame(), 5);
  m.seek(20);
  EXPECT_EQ((m.positions() - at20).cwiseAbs().maxCoeff(), 0.0);
  m.seek(m.frames() - 1);
  m.tick();  // past the end: back to the start, at rest
  EXPECT_EQ(m.frame(), 0);
  EXPECT_EQ((m.positions() - m.rig_positions()).cwiseAbs().maxCoeff(), 0.0);
  m.set_loop(false);
  m.seek(m.frames() - 1);
  m.tick();
  EXPECT_FALSE(m.playing());
  EXPECT_EQ(m.frame(), m.frames() - 1);
  test::expect_throw_with<std::invalid_argument>([&] { m.seek(m.frames()); }, "outside");
}

TEST(ViewerModel, ADraggedHandleMovesTheRigAndTheTissueFollowsWithTheConstraintHeld) {
  ViewerModel m(elephant(), fast_settings());
  ASSERT_TRUE(m.manipulable());
  m.set_playing(false);
  m.seek(10);
  Index j = 0;  // the handle that moves the most tissue
  elephant()->W.colwise().sum().maxCoeff(&j);
  const VectorXd h_before = m.handle_position(j);
  const VectorXd delta = (VectorXd(3) << 0.0, 0.2, 0.0).finished();
  m.translate_handle(j, delta);
  EXPECT_LT((m.handle_position(j) - h_before - delta).norm(), 1e-12);
  // The pose at every frame carries the drag: handle j's translation moved by delta.
  const VectorXd p = m.pose(10), p0 = elephant()->poses[10];
  EXPECT_LT((p.segment(12 * j + 9, 3) - p0.segment(12 * j + 9, 3) - delta).norm(), 1e-12);
  for (int k = 0; k < 15; ++k) m.step();
  const MatrixXd moved = m.rig_positions();
  m.clear_manipulation();
  m.seek(25);
  // Vertices the handle weights move with it; the simulated surface moves too.
  EXPECT_GT((moved - m.rig_positions()).cwiseAbs().maxCoeff(), 0.05);
  EXPECT_LT(*std::max_element(m.residuals().begin(), m.residuals().end()), 1e-8);
  // A turn about the handle's own position keeps that position.
  m.set_playing(false);
  const VectorXd c = m.handle_position(j);
  m.rotate_handle(j, (VectorXd(3) << 0, 0, 1).finished(), 0.7);
  EXPECT_LT((m.handle_position(j) - c).norm(), 1e-12);
  test::expect_throw_with<std::invalid_argument>([&] { m.translate_handle(99, delta); }, "handle 99");
}

TEST(ViewerModel, ParameterChangesRebuildInTheBackgroundAndTakeOver) {
  ViewerModel m(elephant(), fast_settings());
  for (int k = 0; k < 8; ++k) m.tick();
  SceneRunSettings run = m.settings().run;
  run.modes = 8;
  m.set_run_settings(run, m.ym() * 4, m.rho());
  while (m.rebuilding()) m.tick();  // the old simulation keeps playing meanwhile
  m.tick();                         // swaps in
  EXPECT_TRUE(m.last_error().empty()) << m.last_error();
  EXPECT_EQ(m.modes(), 8);
  EXPECT_DOUBLE_EQ(m.simulation().options().cd.ym, elephant()->ym * 4);
  EXPECT_GT(m.frame(), 8);
  // The new simulation replayed to the frame it took over at: the same as a fresh run there.
  const int f = m.frame();
  ViewerSettings v = fast_settings();
  v.run = run;
  ViewerModel fresh(elephant(), v);
  fresh.set_run_settings(run, elephant()->ym * 4, elephant()->rho);
  fresh.finish_rebuild();
  fresh.seek(f);
  EXPECT_EQ((m.positions() - fresh.positions()).cwiseAbs().maxCoeff(), 0.0);
  // A bad setting is refused at once, and the old simulation stays.
  run.leak = "no-such-field";
  test::expect_throw_with<std::invalid_argument>([&] { m.set_run_settings(run, m.ym(), m.rho()); }, "no-such-field");
  EXPECT_EQ(m.modes(), 8);
  // One that fails in the precompute is a message for the window; the old simulation stays.
  run.leak = "auto";
  run.modes = 100000;
  m.set_run_settings(run, m.ym(), m.rho());
  m.finish_rebuild();
  EXPECT_FALSE(m.last_error().empty());
  EXPECT_EQ(m.modes(), 8);
  test::expect_throw_with<std::invalid_argument>([&] { m.set_run_settings(run, -1, 1); }, "must be > 0");
}

TEST(ViewerModel, FieldsAreTheMethodsOwn) {
  ViewerModel m(elephant(), fast_settings());
  for (int k = 0; k < 10; ++k) m.tick();
  const Index n = m.positions().rows();
  const VectorXd clusters = m.field(ViewField::Clusters);
  ASSERT_EQ(clusters.size(), n);
  EXPECT_GT(clusters.maxCoeff() - clusters.minCoeff(), 0.5);  // many clusters show
  const VectorXd mode = m.field(ViewField::Mode, 2);
  EXPECT_GE(mode.minCoeff(), 0.0);
  EXPECT_LE(mode.maxCoeff(), 1.0);
  EXPECT_NEAR(std::max(mode.maxCoeff() - 0.5, 0.5 - mode.minCoeff()), 0.5, 1e-12);  // scaled to its max
  const VectorXd leak = m.field(ViewField::Leak);
  EXPECT_GE(leak.minCoeff(), 0.0);
  EXPECT_LE(leak.maxCoeff(), 1.0);
  const VectorXd u = m.field(ViewField::Displacement);
  EXPECT_NEAR(u.maxCoeff(), 1.0, 1e-12);
  EXPECT_EQ(m.field(ViewField::Shaded).size(), 0);
  test::expect_throw_with<std::invalid_argument>([&] { m.field(ViewField::Mode, 99); }, "mode 99");
  EXPECT_EQ(view_field("clusters"), ViewField::Clusters);
  test::expect_throw_with<std::invalid_argument>([] { view_field("x"); }, "expected shaded");
}

// A scene without a render mesh draws its tets' boundary: each boundary vertex takes the
// cluster of an element it belongs to.
TEST(ViewerModel, TheBoundaryOutputColoursEachVertexByOneOfItsElements) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("fastcd-view-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  for (const char* f : {"elephant.json", "elephant.mesh", "elephant.tgf", "elephant.dmat", "elephant_anim.txt"})
    fs::copy_file(kData + "complementary-dynamics-cpp/elephant/" + f, dir / f, fs::copy_options::overwrite_existing);
  ViewerModel m(std::make_shared<const Scene>(load_scene((dir / "elephant.json").string())), fast_settings());
  fs::remove_all(dir);
  ASSERT_EQ(m.scene().render_V.rows(), 0);
  const VectorXd c = m.field(ViewField::Clusters);
  ASSERT_EQ(c.size(), m.output_vertices());
  const VectorXi& labels = m.simulation().fast()->labels();
  // Every value is the label of an element touching that vertex.
  const OutputSurface out = output_surface(m.scene());
  for (Index k = 0; k < out.E.outerSize(); ++k)
    for (SparseMatrix::InnerIterator it(out.E, k); it; ++it) {
      bool found = false;
      for (Index t = 0; t < m.scene().T.rows() && !found; ++t)
        for (int j = 0; j < 4; ++j)
          found |= m.scene().T(t, j) == it.col() && std::abs((labels[t] + 0.5) / m.clusters() - c[it.row()]) < 1e-12;
      EXPECT_TRUE(found) << "output vertex " << it.row();
    }
}

// Skinning form: blending the transforms with the weights gives the positions the simulation
// has (what the GPU shader draws), and the rig alone without the modes.
TEST(ViewerModel, SkinningFormLiftsToTheSimulatedPositions) {
  const std::string glb = kData + "khronos-gltf/RiggedSimple.glb";
  ViewerSettings v = fast_settings();
  v.run.clusters = 8;
  ViewerModel m(std::make_shared<const Scene>(load_scene(glb)), v);
  ASSERT_TRUE(m.skinning_form());
  for (int k = 0; k < 15; ++k) m.tick();
  const Eigen::MatrixXf X = m.skinning_rest(), W = m.skinning_weights();
  ASSERT_EQ(W.cols(), m.handles() + m.modes());
  using Transforms = Eigen::Matrix<float, Eigen::Dynamic, 12, Eigen::RowMajor>;  // a row: one column-major 3x4
  const auto blend = [&](const Transforms& M) {
    MatrixXd x(X.rows(), 3);
    for (Index v = 0; v < X.rows(); ++v) {
      Eigen::Matrix<float, 3, 4> A = Eigen::Matrix<float, 3, 4>::Zero();
      for (Index b = 0; b < W.cols(); ++b) A += W(v, b) * Eigen::Map<const Eigen::Matrix<float, 3, 4>>(M.row(b).data());
      x.row(v) = (A * X.row(v).transpose().homogeneous()).cast<double>().transpose();
    }
    return x;
  };
  const Transforms Mr = m.skinning_transforms();
  const double size = (m.rig_positions().colwise().maxCoeff() - m.rig_positions().colwise().minCoeff()).maxCoeff();
  EXPECT_LT((blend(Mr) - m.positions()).cwiseAbs().maxCoeff(), 1e-5 * size);
  const Transforms Rr = m.skinning_transforms(false);
  EXPECT_LT((blend(Rr) - m.rig_positions()).cwiseAbs().maxCoeff(), 1e-5 * size);
  EXPECT_GT((m.positions() - m.rig_positions()).cwiseAbs().maxCoeff(), 1e-4 * size);  // there is motion to lift
  // The elephant's render mesh is embedded in its tets (not tet vertices): no skinning form.
  EXPECT_FALSE(ViewerModel(elephant(), fast_settings()).skinning_form());
}

}  // namespace test_viewer_model
}  // namespace fastcd
