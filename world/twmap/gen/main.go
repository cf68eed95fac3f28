// Command gen writes the default map (twmap.GenerateDefault) to a file.
// Run it with `go generate ./world/twmap`.
package main

import (
	"flag"
	"fmt"
	"os"

	"twserver/world/twmap"
)

func main() {
	out := flag.String("o", "default.map", "output file")
	flag.Parse()
	b, err := twmap.GenerateDefault()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if _, err := twmap.Load(twmap.DefaultName, b); err != nil {
		fmt.Fprintln(os.Stderr, "gen: generated map does not load:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, b, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("wrote %s: %d bytes\n", *out, len(b))
}
