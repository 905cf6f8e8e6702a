// Command benchcheck compares the figures of a benchmark run (go test
// -bench output on stdin) with the previous ones in a figures file
// (bench/figures.json), prints each figure, its previous value and the
// change, and exits 1 when one is more than 20% worse (a task's tokens:
// 5%, figure.allowed): `make bench-check`
// (bench/check.sh) runs the benchmarks and then this. With -update it
// writes the run's figures into the file instead of failing. With -before
// and -after (files of go test -bench output, one a run) it prints the
// two trees' figures side by side instead: bench/before-after.sh.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

func main() {
	path := flag.String("figures", "bench/figures.json", "the previous figures")
	update := flag.Bool("update", false, "write this run's figures into -figures")
	commit := flag.String("commit", "", "the tree measured, recorded with -update")
	machine := flag.String("machine", "", "the machine and its load, recorded with -update")
	before := flag.String("before", "", "comma-separated outputs of the runs of the tree before (with -after: print the two side by side)")
	after := flag.String("after", "", "comma-separated outputs of the runs of the tree after")
	flag.Parse()
	if *before != "" || *after != "" {
		if err := sideBySide(os.Stdout, issueFigures(), splitList(*before), splitList(*after)); err != nil {
			fmt.Fprintln(os.Stderr, "benchcheck:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(os.Stdin, os.Stdout, *path, *update, record{Commit: *commit, Machine: *machine}); err != nil {
		fmt.Fprintln(os.Stderr, "benchcheck:", err)
		os.Exit(1)
	}
}

// splitList is a comma-separated flag's items.
func splitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// run reads the benchmark output from in, compares, prints to out, and
// updates the figures file when asked.
func run(in io.Reader, out io.Writer, path string, update bool, rec record) error {
	now, err := parseBenchOutput(in)
	if err != nil {
		return fmt.Errorf("reading the benchmarks' output: %w", err)
	}
	prev, err := readFigures(path)
	if err != nil {
		return err
	}
	rows := compare(followed(), now, prev)
	printRows(out, rows)
	if update {
		if err := writeFigures(path, updated(prev, rows, rec)); err != nil {
			return err
		}
		fmt.Fprintf(out, "\n%s updated with this run's figures.\n", path)
		return nil
	}
	if n := regressions(rows); n > 0 {
		return fmt.Errorf("%d figure(s) worse than %s by more than each allows (20%%; tokens 5%%)", n, path)
	}
	return nil
}
