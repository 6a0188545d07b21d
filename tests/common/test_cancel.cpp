// Cancellation of one job among several in one process (two bakes in Blender, each on its own
// thread): a CancelToken stops the work inside its CancelScope, also in parallel_for's tasks and
// in Netgen's watcher thread, and leaves other threads' work running; request_cancel() still
// stops everything.
#include "fastcd/common/cancel.hpp"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "fastcd/common/progress.hpp"
#include "fastcd/common/threads.hpp"
#include "fastcd/io/mesh_io.hpp"
#include "fastcd/meshing/tetrahedralize.hpp"
#include "io/io_test_util.hpp"
#include "meshing/meshing_test_util.hpp"
#include "test_util.hpp"

namespace fastcd {
namespace test_cancel {

TEST(Cancel, ATokenStopsOnlyTheWorkInItsScope) {
  clear_cancel();
  CancelToken mine, other;
  mine.request();
  EXPECT_FALSE(cancel_requested());
  {
    const CancelScope scope(&mine);
    EXPECT_EQ(current_cancel_token(), &mine);
    EXPECT_TRUE(cancel_requested());
    EXPECT_THROW(detail::throw_if_cancelled("my job"), Cancelled);
    bool seen_elsewhere = true;  // another thread: not this job
    std::thread([&] { seen_elsewhere = cancel_requested(); }).join();
    EXPECT_FALSE(seen_elsewhere);
    {
      const CancelScope inner(&other);  // nested: the innermost token answers
      EXPECT_FALSE(cancel_requested());
      request_cancel();  // ... and request_cancel() still stops everything
      EXPECT_TRUE(cancel_requested());
      clear_cancel();
    }
    EXPECT_TRUE(cancel_requested());
  }
  EXPECT_EQ(current_cancel_token(), nullptr);
  EXPECT_FALSE(cancel_requested());
  EXPECT_NO_THROW(detail::throw_if_cancelled("no job"));
}

// A chunk run by another thread answers to the caller's token: the caller's first chunk waits
// until a worker has taken one.
TEST(Cancel, ParallelForCarriesTheCallersTokenIntoItsTasks) {
  if (std::thread::hardware_concurrency() < 2) GTEST_SKIP() << "one hardware thread: every chunk runs on the caller";
  CancelToken token;
  token.request();
  const CancelScope scope(&token);
  const auto caller = std::this_thread::get_id();
  std::mutex m;
  std::condition_variable cv;
  bool elsewhere = false;
  std::atomic<int> chunks{0}, saw{0};
  parallel_for(
      64, 1,
      [&](Index, Index) {
        ++chunks;
        if (cancel_requested()) ++saw;
        std::unique_lock<std::mutex> lock(m);
        if (std::this_thread::get_id() != caller) {
          elsewhere = true;
          cv.notify_all();
        } else {
          cv.wait_for(lock, std::chrono::seconds(60), [&] { return elsewhere; });  // (a hang guard only)
        }
      },
      2);
  EXPECT_TRUE(elsewhere);
  EXPECT_EQ(saw.load(), chunks.load());
  test::expect_throw_with<Cancelled>(
      [&] {
        parallel_for(
            1000, 10, [](Index, Index) { detail::throw_if_cancelled("a chunk"); }, 4);
      },
      "a chunk");
}

// Netgen runs without callbacks; its watcher thread answers to the meshing job's token, and
// another job's meshing afterwards (its own token) runs whole.
TEST(Cancel, NetgenStopsOnTheMeshingJobsToken) {
  const SurfaceMesh spot = read_obj(test::shared_data("keenan-crane/spot_triangulated.obj"));
  CancelToken token;
  set_progress_sink([&](const char* work, const char*, int, int) {
    if (std::string(work) == "meshing (Netgen)") token.request();
  });
  {
    const CancelScope scope(&token);
    test::expect_throw_with<Cancelled>([&] { tetrahedralize(spot.V, spot.F); }, "Netgen");
  }
  set_progress_sink({});
  EXPECT_FALSE(cancel_requested());
  CancelToken other;
  const CancelScope scope(&other);
  MatrixXd V;
  MatrixXi F;
  test::unit_cube_surface(V, F);
  EXPECT_GT(tetrahedralize(V, F).T.rows(), 0);
}

}  // namespace test_cancel
}  // namespace fastcd
