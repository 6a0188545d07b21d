// A divergence's advice names the cause the monitor measured (issue 39, item 15): a jump of the
// rig (a teleporting handle) with its step, no "stiffer material" for a material already stiff,
// and every number with a few significant digits.
#include <functional>
#include <regex>

#include "fastcd/cd/divergence.hpp"
#include "fastcd/geometry/massmatrix.hpp"
#include "fastcd/geometry/triangulated_grid.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_divergence {

std::string message_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  ADD_FAILURE() << "no exception";
  return "";
}

struct Beam {
  Mesh b = beam(10, 3);
  SparseMatrix Mv = kron_identity(massmatrix(b.X, b.T, 1e3), 2);
  Index n = Mv.rows();
};

TEST(Divergence, ATeleportIsNamedWithItsStepAndHandleNotTheMaterial) {
  const Beam s;
  DivergenceMonitor m(s.Mv, 2.0, 0.01, 1e12);
  const VectorXd moving = VectorXd::Constant(s.n, 1.0), small = VectorXd::Constant(s.n, 0.01);
  m.check(1, moving, small, small);
  m.note_rig_jump(2, 0.4, "handle 1 of 2 (counted from 1) moves 0.2 times the mesh's size");  // below half the size
  EXPECT_EQ(m.rig_jump(), "");
  m.note_rig_jump(3, 2e300, "handle 2 of 2 (counted from 1) moves 1e+300 times the mesh's size");
  const std::string what = message_of([&] { m.check(4, moving, VectorXd::Constant(s.n, 1e300), small); });
  EXPECT_NE(what.find("diverged at step 4: a vertex moved 5e+299 times the mesh's size away from the rig"),
            std::string::npos)
      << what;
  EXPECT_NE(what.find("the animation jumps: at step 3 handle 2 of 2 (counted from 1) moves 1e+300 times the mesh's "
                      "size in one step (a teleport"),
            std::string::npos)
      << what;
  EXPECT_EQ(what.find("stiffer material"), std::string::npos) << what;
  EXPECT_FALSE(std::regex_search(what, std::regex("[0-9]{7}"))) << "a number with many digits: " << what;
  m.reset();
  EXPECT_EQ(m.rig_jump(), "");
}

TEST(Divergence, AStiffMaterialIsNotToldToStiffen) {
  const Beam s;
  DivergenceMonitor m(s.Mv, 2.0, 0.01, 1e12);
  m.set_stiff(true);
  const VectorXd moving = VectorXd::Constant(s.n, 1.0), small = VectorXd::Constant(s.n, 0.01);
  m.check(1, moving, small, small);
  const std::string what = message_of([&] { m.check(2, moving, VectorXd::Constant(s.n, 50.0), small); });
  EXPECT_NE(what.find("already very stiff for its inertia (YM = 1e+12, dt = 0.01)"), std::string::npos) << what;
  EXPECT_NE(what.find("use a smaller time step"), std::string::npos) << what;
  EXPECT_EQ(what.find("stiffer material"), std::string::npos) << what;
}

}  // namespace test_divergence
}  // namespace fastcd
