// The output folder of a bake (bake/output_folder.hpp): the commit writes the marker listing
// every entry and leaves nothing beside the target, a folder fastcd did not write is refused and
// left as it was, an earlier bake is replaced only when forced (the hint in the caller's words),
// a folder given up without a commit leaves neither its stage nor its lock, and the caller's
// hooks hear of the paths to clean up and of a restored bake.
#include "fastcd/bake/output_folder.hpp"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "test_util.hpp"

namespace fastcd {
namespace test_output_folder {

namespace fs = std::filesystem;

void write(const fs::path& p, const std::string& text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Every name in `dir` (not recursive), sorted.
std::vector<std::string> names(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// The message `f` throws as std::runtime_error ("" if it throws nothing).
template <class F>
std::string refusal(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

class OutputFolderTest : public test::TempDir {
 protected:
  /// A bake of `files` (relative path -> text) committed into `out`.
  void bake(const fs::path& out, const std::map<std::string, std::string>& files, bool force = false,
            OutputFolderCaller caller = {}) {
    OutputFolder folder(out.string(), {}, force, std::move(caller));
    folder.start({});
    for (const auto& [rel, text] : files) write(folder.stage() / rel, text);
    folder.commit();
  }
};

TEST_F(OutputFolderTest, CommitWritesTheMarkerListingEveryEntryAndLeavesNothingBeside) {
  const fs::path out = dir_ / "out";
  bake(out, {{"run.json", "{}"}, {"obj/frame_00001.obj", "v 0 0 0\n"}, {"rest.obj", "v 1 0 0\n"}});
  const nlohmann::json marker = nlohmann::json::parse(read(out / kOutputMarker));
  EXPECT_EQ(marker.at("fastcd_output"), 1);
  EXPECT_EQ(marker.at("entries").get<std::vector<std::string>>(),
            (std::vector<std::string>{"obj", "obj/frame_00001.obj", "rest.obj", "run.json"}));
  EXPECT_EQ(read(out / "obj" / "frame_00001.obj"), "v 0 0 0\n");
  // No stage, old folder or lock file is left beside the target.
  EXPECT_EQ(names(dir_), std::vector<std::string>{"out"});
}

TEST_F(OutputFolderTest, AFolderFastcdDidNotWriteIsRefusedAndLeftAsItWas) {
  const fs::path mine = dir_ / "mine";
  write(mine / "notes.txt", "keep me");
  fs::create_directories(mine / "photos");
  const std::string why = refusal([&] { OutputFolder(mine.string(), {}, true); });
  EXPECT_NE(why.find("output folder '" + mine.string() + "' is not empty (notes.txt, photos/)"), std::string::npos)
      << why;
  EXPECT_NE(why.find("is not a fastcd output"), std::string::npos) << why;
  EXPECT_EQ(read(mine / "notes.txt"), "keep me");
  EXPECT_EQ(names(dir_), std::vector<std::string>{"mine"});

  // A bake with a file the user added is theirs now: refused even when forced, naming the file.
  const fs::path out = dir_ / "out";
  bake(out, {{"run.json", "{}"}});
  write(out / "extra.txt", "mine");
  const std::string foreign = refusal([&] { bake(out, {{"run.json", "{\"new\": 1}"}}, true); });
  EXPECT_NE(foreign.find("holds files fastcd did not write (extra.txt); --force replaces only a folder"),
            std::string::npos)
      << foreign;
  EXPECT_EQ(read(out / "run.json"), "{}");
  EXPECT_EQ(read(out / "extra.txt"), "mine");

  // An existing file, and an output folder holding an input, are refused before anything is made.
  write(dir_ / "file", "x");
  EXPECT_NE(refusal([&] {
              OutputFolder((dir_ / "file").string(), {}, false);
            }).find("--out '" + (dir_ / "file").string() + "' is an existing file"),
            std::string::npos);
  EXPECT_NE(refusal([&] {
              OutputFolder(mine.string(), {(mine / "notes.txt").string()}, true);
            }).find("contains the input '" + (mine / "notes.txt").string() + "'"),
            std::string::npos);
  EXPECT_EQ(names(dir_), (std::vector<std::string>{"file", "mine", "out"}));
}

TEST_F(OutputFolderTest, AnEarlierBakeIsReplacedOnlyWhenForcedAndTheHintIsInTheCallersWords) {
  const fs::path out = dir_ / "out";
  bake(out, {{"old.txt", "old"}});
  const std::string cli = refusal([&] { bake(out, {{"new.txt", "new"}}); });
  EXPECT_EQ(cli,
            "output folder '" + out.string() + "' is not empty: it holds an earlier bake (use --force to replace it)");
  OutputFolderCaller python;
  python.out_option = "out_dir";
  python.force_option = "force=True";
  const std::string py = refusal([&] { bake(out, {{"new.txt", "new"}}, false, python); });
  EXPECT_EQ(
      py, "output folder '" + out.string() + "' is not empty: it holds an earlier bake (use force=True to replace it)");
  EXPECT_EQ(names(out), (std::vector<std::string>{kOutputMarker, "old.txt"}));

  bake(out, {{"new.txt", "new"}}, true);
  EXPECT_EQ(names(out), (std::vector<std::string>{kOutputMarker, "new.txt"}));
  EXPECT_EQ(names(dir_), std::vector<std::string>{"out"});
}

TEST_F(OutputFolderTest, WithoutACommitTheStageAndTheLockAreRemovedAndTheTargetIsUntouched) {
  const fs::path out = dir_ / "out";
  bake(out, {{"a.txt", "earlier"}});
  std::vector<std::string> watched, unwatched;
  OutputFolderCaller caller;
  caller.watch = [&](const std::string& p) { watched.push_back(p); };
  caller.unwatch = [&](const std::string& p) { unwatched.push_back(p); };
  fs::path stage;
  {
    OutputFolder folder(out.string(), {}, true, caller);
    folder.start({});
    stage = folder.stage();
    write(stage / "obj" / "frame_00001.obj", "half written");
    EXPECT_TRUE(fs::is_directory(stage));
    EXPECT_EQ(stage.parent_path(), dir_);
    EXPECT_EQ(stage.filename().string(), ".out.partial-" + std::to_string(::getpid()));
    EXPECT_TRUE(fs::exists(dir_ / ".out.lock"));
    EXPECT_EQ(watched, (std::vector<std::string>{stage.string(), (dir_ / ".out.lock").string()}));
    EXPECT_TRUE(unwatched.empty());
  }  // given up (an error, Ctrl-C)
  EXPECT_FALSE(fs::exists(stage));
  EXPECT_EQ(names(dir_), std::vector<std::string>{"out"});
  EXPECT_EQ(read(out / "a.txt"), "earlier");
  EXPECT_EQ(std::set<std::string>(unwatched.begin(), unwatched.end()),
            std::set<std::string>(watched.begin(), watched.end()));
}

TEST_F(OutputFolderTest, ABakeWhoseRunDiedBetweenTheRenamesIsRestoredAndTheCallerTold) {
  const fs::path out = dir_ / "out";
  bake(out, {{"a.txt", "earlier"}});
  // A run that is gone (no process has this pid) renamed the bake away and left its stage.
  const std::string dead = "999999999";
  fs::rename(out, dir_ / (".out.old-" + dead));
  write(dir_ / (".out.partial-" + dead) / "obj" / "x.obj", "half");
  std::vector<fs::path> restored;
  OutputFolderCaller caller;
  caller.restored = [&](const fs::path& p) { restored.push_back(p); };
  const std::string why = refusal([&] { OutputFolder(out.string(), {}, false, caller); });
  EXPECT_NE(why.find("holds an earlier bake"), std::string::npos) << why;
  EXPECT_EQ(restored, std::vector<fs::path>{out});
  EXPECT_EQ(read(out / "a.txt"), "earlier");
  EXPECT_EQ(names(dir_), std::vector<std::string>{"out"});
}

}  // namespace test_output_folder
}  // namespace fastcd
