// SPDX-License-Identifier: GPL-2.0-or-later

// gocgo: a Go program with C code in it (cgo), for the stripped-binary tests: c_spin is C, compiled
// by the C compiler and never inlined, go_spin is Go; each does the same loop, in turn. Stripped,
// the binary's Go functions are named from .gopclntab; its C function is in no Go table when the C
// toolchain links it, and must not be given a Go function's name.
//
// usage: gocgo SECONDS
package main

/*
#include <stdint.h>
__attribute__((noinline)) uint64_t c_spin(uint64_t n)
{
	volatile uint64_t x = 0;
	for (uint64_t i = 0; i < n; i++)
		x += i * 2654435761u;
	return x;
}
*/
import "C"

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

//go:noinline
func goSpin(n int) uint64 {
	x := uint64(0)
	for i := 0; i < n; i++ {
		x += uint64(i) * 2654435761
	}
	return x
}

func main() {
	secs, err := strconv.ParseFloat(os.Args[1], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: gocgo SECONDS")
		os.Exit(2)
	}
	end := time.Now().Add(time.Duration(secs * float64(time.Second)))
	var s uint64
	for time.Now().Before(end) {
		s += uint64(C.c_spin(1000000))
		s += goSpin(1000000)
	}
	fmt.Println(s)
}
