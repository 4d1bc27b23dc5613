#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# bench/render.sh: a full redraw of the main table with 10,000 rows into the surface and to a
# terminal-less text dump (render_bench, built by CMake), medians at 80x24 and 200x60; the bar is
# 5 ms. Also the flame graph's rebuild + render from a ~10,000-node call tree.
#   bash bench/render.sh [BUILD_DIR]
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --target render_bench -j "$(nproc)" >/dev/null
"$build/bench/render_bench" 10000 300 | tee /dev/stderr |
	awk '/: render$|render\+text/ { if ($(NF-4) + 0 > 5.0) bad = 1 } END { print (bad ? "OVER 5 ms" : "all table redraws under 5 ms"); exit bad }'
