#pragma once
#include <CLI/CLI.hpp>

namespace fastcd::cli {
/// `fastcd run SCENE --out DIR`: simulate a scene's whole animation and bake it to files.
void register_run(CLI::App& app);
}  // namespace fastcd::cli
