/* placeholder: perf.data reader (issue 3) */
