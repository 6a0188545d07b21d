#pragma once
#include <CLI/CLI.hpp>

namespace fastcd::cli {
/// `fastcd tutorial`: simkit tutorial 23 (Fast Complementary Dynamics) end to end.
void register_tutorial(CLI::App& app);
}  // namespace fastcd::cli
