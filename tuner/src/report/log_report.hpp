#pragma once
// `ktune log report`: one self-contained HTML file (inline CSS and SVG, no scripts, no
// fetches) with the tables of `ktune log show` and plots of the run.
#include <ktune/tuner/recorded_run.hpp>

#include <filesystem>
#include <string>
#include <vector>

namespace ktune {

// runs.front() is reported in full; the others are overlaid on its convergence plots
// (e.g. other strategies on the same problem). Throws ktune::Error if unwritable.
void write_report(const std::vector<RecordedRun>& runs, const std::filesystem::path& file, int top);

}  // namespace ktune
