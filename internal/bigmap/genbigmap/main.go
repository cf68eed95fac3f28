// Command genbigmap writes the large test map of package bigmap
// (twsrv_big2m.map, about 2 MB) to the file named by -o.
package main

import (
	"flag"
	"fmt"
	"os"

	"twserver/internal/bigmap"
)

func main() {
	out := flag.String("o", bigmap.Name+".map", "output file")
	flag.Parse()
	data, err := bigmap.Generate()
	if err == nil {
		err = os.WriteFile(*out, data, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "genbigmap:", err)
		os.Exit(1)
	}
}
