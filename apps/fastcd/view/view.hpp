#pragma once
#include <CLI/CLI.hpp>

namespace fastcd::cli {
/// `fastcd view SCENE`: the interactive viewer, and offscreen --screenshot / --record.
void register_view(CLI::App& app);
}  // namespace fastcd::cli
