// SPDX-License-Identifier: GPL-2.0-or-later

// gohot: the Go workload of the stripped-binary tests. main.alpha does 70% of the work and main.beta
// 30% (7:3 iterations of the same loop body, each in its own function that is never inlined), and the
// body calls mix, which the compiler inlines into both: their samples carry an inline frame. Built
// twice from this file, with its symbols and DWARF and without (-ldflags='-s -w'), and the same
// GNU build-id, so that one recording can be read against either build.
//
// usage: gohot SECONDS  (prints the rounds done)
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

var sink uint64

func mix(x uint64) uint64 {
	return x*6364136223846793005 + 1442695040888963407
}

//go:noinline
func alpha(n int) uint64 {
	x := sink
	for i := 0; i < 7*n; i++ {
		x = mix(x) ^ (x >> 7)
	}
	return x
}

//go:noinline
func beta(n int) uint64 {
	x := sink
	for i := 0; i < 3*n; i++ {
		x = mix(x) ^ (x >> 9)
	}
	return x
}

func main() {
	secs, err := strconv.ParseFloat(os.Args[1], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: gohot SECONDS")
		os.Exit(2)
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	rounds := 0
	for time.Now().Before(end) {
		for k := 0; k < 10; k++ {
			sink += alpha(10000)
			sink += beta(10000)
		}
		rounds++
	}
	fmt.Println(rounds)
}
