// Command screens copies the pictures the editor tests took into the
// committed ones, masked (package screens): `make screenshots` runs it.
//
//	screens [-from build/screenshots] [-to docs/screenshots]
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/gemini-ls/gemini-ls/internal/screens"
)

func main() {
	from := flag.String("from", "build/screenshots", "the directory the tests wrote their pictures to")
	to := flag.String("to", "docs/screenshots", "the committed pictures")
	flag.Parse()
	res, err := screens.Copy(*from, *to)
	if err != nil {
		fmt.Fprintln(os.Stderr, "screens:", err)
		os.Exit(1)
	}
	fmt.Printf("screens: %d of %d pictures changed\n", len(res.Changed), len(res.Changed)+len(res.Same))
	for _, name := range res.Changed {
		fmt.Println("  changed:", name)
	}
	for _, name := range res.Stale {
		fmt.Printf("  no test took %s this time (left as it is; delete it if no test takes it any more)\n", name)
	}
}
