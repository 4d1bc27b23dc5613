// SPDX-License-Identifier: GPL-2.0-or-later

// gosymref: Go's own decoder of a binary's .gopclntab (debug/gosym), as the tests' reference for
// perftop's. go tool addr2line of Go 1.19 takes the code's base from the .text section, which is not
// runtime.text when the C toolchain links the binary (cgo): its names are then off by the C code in
// front. Here the base is the table header's own textStart (Go 1.18+), so the decoder is the standard
// library's and the base is the binary's.
//
// usage: gosymref BINARY < addresses (hex, one a line)  ->  "NAME\tFILE:LINE" a line ("?" unknown)
package main

import (
	"bufio"
	"debug/elf"
	"debug/gosym"
	"encoding/binary"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	f, err := elf.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	sec := f.Section(".gopclntab")
	if sec == nil {
		sec = f.Section(".data.rel.ro.gopclntab")
	}
	if sec == nil {
		fmt.Fprintln(os.Stderr, "no .gopclntab")
		os.Exit(1)
	}
	data, err := sec.Data()
	if err != nil || len(data) < 8 {
		fmt.Fprintln(os.Stderr, "cannot read .gopclntab:", err)
		os.Exit(1)
	}
	base := f.Section(".text").Addr
	magic, ptr := binary.LittleEndian.Uint32(data), int(data[7])
	if (magic == 0xfffffff0 || magic == 0xfffffff1) && ptr == 8 && len(data) >= 32 {
		base = binary.LittleEndian.Uint64(data[8+2*ptr:])
	}
	tab, err := gosym.NewTable(nil, gosym.NewLineTable(data, base))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	in, out := bufio.NewScanner(os.Stdin), bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		pc, err := strconv.ParseUint(strings.TrimPrefix(strings.TrimSpace(in.Text()), "0x"), 16, 64)
		if err != nil {
			continue
		}
		file, line, fn := tab.PCToLine(pc)
		if fn == nil {
			fmt.Fprintf(out, "?\t?:0\n")
		} else {
			fmt.Fprintf(out, "%s\t%s:%d\n", fn.Name, file, line)
		}
	}
}
