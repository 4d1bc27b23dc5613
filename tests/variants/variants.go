// variants.go: the Go program of test_build_variants.py: main -> outer -> hotLeaf (kept out of
// line). For SECS seconds (argv[1], default 1) of the process's CPU time: as many samples on a
// busy machine as on an idle one.
package main

import (
	"os"
	"strconv"
	"syscall"
)

func cpuSecs() float64 {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

var sink uint64

//go:noinline
func hotLeaf(n uint64) uint64 {
	var s uint64
	for i := uint64(0); i < n; i++ {
		s += i*i ^ (s >> 3)
	}
	return s
}

//go:noinline
func outer(n uint64) uint64 {
	return hotLeaf(n) + 1
}

func main() {
	secs := 1.0
	if len(os.Args) > 1 {
		if v, err := strconv.ParseFloat(os.Args[1], 64); err == nil {
			secs = v
		}
	}
	end := cpuSecs() + secs
	for cpuSecs() < end {
		sink += outer(400000)
	}
}
