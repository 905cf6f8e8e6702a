package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
)

// issueFigures are the rows of issue 66's table, as bench/before-after.sh
// measures them for two trees in one run: followed's, and the headless
// turn against Gemini CLI 0.61, which bench-check leaves out (it needs
// 0.61 installed and takes minutes).
func issueFigures() []figure {
	return append(followed(),
		figure{"headless-wall-ratio", "BenchmarkHeadlessVsGeminiCLI", "wall-ratio-median",
			"8-call headless turn, whole process: wall ÷ Gemini CLI 0.61's (median of pair ratios)"},
		figure{"headless-cpu-ratio", "BenchmarkHeadlessVsGeminiCLI", "cpu-ratio-median",
			"same, CPU ÷ Gemini CLI 0.61's"},
		figure{"headless-peak-rss-mib", "BenchmarkHeadlessVsGeminiCLI", "rss-median-MiB",
			"same, gemini-ls's peak RSS, MiB (median)"},
		figure{"sandbox-session-extra-per-bwrap", "BenchmarkSandboxedEcho", "session-extra-per-bwrap",
			"echo in the session's sandbox minus unsandboxed, ÷ `bwrap … true` (medians)"},
		figure{"sandbox-per-command-extra-ms", "BenchmarkSandboxedEcho", "extra-median-ms",
			"echo in a bwrap of its own (the path before the session) minus unsandboxed, ms"},
		figure{"sandbox-session-extra-ms", "BenchmarkSandboxedEcho", "session-extra-median-ms",
			"echo in the session's sandbox minus unsandboxed, ms"},
	)
}

// sideBySide reads the outputs of runs of two trees (each file one run)
// and prints each figure of both, run by run, and the ratio of the
// medians: the before/after table of docs/benchmarks.md.
func sideBySide(out io.Writer, figs []figure, before, after []string) error {
	b, err := readRuns(before)
	if err != nil {
		return err
	}
	a, err := readRuns(after)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "| figure | before | after | after ÷ before (medians) |")
	fmt.Fprintln(out, "|---|---|---|---|")
	for _, f := range figs {
		bv, av := valuesOf(b, f), valuesOf(a, f)
		if len(bv) == 0 && len(av) == 0 {
			continue
		}
		ratio := "–"
		if len(bv) > 0 && len(av) > 0 && median(bv) != 0 {
			ratio = strconv.FormatFloat(median(av)/median(bv), 'f', 2, 64) + "×"
		}
		fmt.Fprintf(out, "| %s | %s | %s | %s |\n", f.What, listOf(bv), listOf(av), ratio)
	}
	return nil
}

// readRuns parses each file as one run's go test -bench output.
func readRuns(paths []string) ([]results, error) {
	var runs []results
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("reading a run: %w", err)
		}
		r, err := parseBenchOutput(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// valuesOf is f's value in each run that measured it.
func valuesOf(runs []results, f figure) []float64 {
	var vs []float64
	for _, r := range runs {
		if v, ok := r[f.Bench][f.Metric]; ok {
			vs = append(vs, v)
		}
	}
	return vs
}

func median(vs []float64) float64 {
	s := slices.Sorted(slices.Values(vs))
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// listOf is the values as the table shows them, or "–" for none.
func listOf(vs []float64) string {
	if len(vs) == 0 {
		return "–"
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = strconv.FormatFloat(v, 'g', 4, 64)
	}
	return strings.Join(parts, ", ")
}
