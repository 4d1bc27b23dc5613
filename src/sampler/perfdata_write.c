/* placeholder: perf.data writer (issue 3) */
