package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"regexp"
	"strconv"
	"strings"
)

// regressionRatio is how much worse than before a figure may get before
// it is flagged: 20%, the bar on a noisy machine; a figure that
// does not depend on the machine says its own (figure.Allowed).
const regressionRatio = 1.20

// results are a run's metrics: benchmark name (no -N suffix) → unit →
// value; of a benchmark run more than once, the last.
type results map[string]map[string]float64

// benchLine is a result line: "BenchmarkX-2   60   123 ns/op   2.9 init-ratio-median ...".
var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(-\d+)?\s+\d+\s+(.*)$`)

// parseBenchOutput reads the result lines of go test -bench output.
func parseBenchOutput(r io.Reader) (results, error) {
	out := results{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		m := benchLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		fields := strings.Fields(m[3])
		metrics := map[string]float64{}
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				return nil, fmt.Errorf("%s: value %q of %s: %w", m[1], fields[i], fields[i+1], err)
			}
			metrics[fields[i+1]] = v
		}
		out[m[1]] = metrics
	}
	return out, sc.Err()
}

// record is what a figures file says of the run it holds.
type record struct {
	Commit  string `json:"commit,omitempty"`
	Machine string `json:"machine,omitempty"`
}

// figuresFile is bench/figures.json.
type figuresFile struct {
	record
	Figures map[string]entry `json:"figures"`
}

// entry is one figure's previous value.
type entry struct {
	Value float64 `json:"value"`
	What  string  `json:"what"`
}

// readFigures reads the figures file; none yet is an empty one.
func readFigures(path string) (figuresFile, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return figuresFile{Figures: map[string]entry{}}, nil
	}
	if err != nil {
		return figuresFile{}, fmt.Errorf("reading the previous figures: %w", err)
	}
	var f figuresFile
	if err := json.Unmarshal(data, &f); err != nil {
		return figuresFile{}, fmt.Errorf("reading the previous figures %s: %w", path, err)
	}
	if f.Figures == nil {
		f.Figures = map[string]entry{}
	}
	return f, nil
}

func writeFigures(path string, f figuresFile) error {
	data, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding the figures: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("writing the figures: %w", err)
	}
	return nil
}

// verdict is what a figure did since the previous run.
type verdict string

const (
	ok          verdict = "ok"
	regression  verdict = "REGRESSION"
	newFigure   verdict = "new"          // no previous value
	notMeasured verdict = "not measured" // its benchmark did not run or was skipped
)

// row is one figure's line of the report.
type row struct {
	figure
	now, prev       float64
	hasNow, hasPrev bool
	verdict         verdict
}

// compare judges each figure of this run against its previous value.
func compare(figs []figure, now results, prev figuresFile) []row {
	var rows []row
	for _, f := range figs {
		r := row{figure: f}
		r.now, r.hasNow = now[f.Bench][f.Metric]
		if e, found := prev.Figures[f.Name]; found {
			r.prev, r.hasPrev = e.Value, true
		}
		switch {
		case !r.hasNow:
			r.verdict = notMeasured
		case !r.hasPrev || r.prev <= 0:
			r.verdict = newFigure
		case r.now > r.prev*f.allowed():
			r.verdict = regression
		default:
			r.verdict = ok
		}
		rows = append(rows, r)
	}
	return rows
}

func regressions(rows []row) int {
	n := 0
	for _, r := range rows {
		if r.verdict == regression {
			n++
		}
	}
	return n
}

// printRows prints the report: each figure, before, now, the change.
func printRows(w io.Writer, rows []row) {
	fmt.Fprintf(w, "%-30s %10s %10s %8s  %s\n", "figure", "previous", "now", "change", "")
	for _, r := range rows {
		prev, now, change := "-", "-", ""
		if r.hasPrev {
			prev = strconv.FormatFloat(r.prev, 'g', 4, 64)
		}
		if r.hasNow {
			now = strconv.FormatFloat(r.now, 'g', 4, 64)
		}
		if r.hasNow && r.hasPrev && r.prev > 0 {
			change = fmt.Sprintf("%+.0f%%", (r.now/r.prev-1)*100)
		}
		fmt.Fprintf(w, "%-30s %10s %10s %8s  %s\n", r.Name, prev, now, change, r.verdict)
	}
}

// updated is prev with this run's figures in, and the figures this run
// did not measure kept as they were.
func updated(prev figuresFile, rows []row, rec record) figuresFile {
	out := figuresFile{record: rec, Figures: maps.Clone(prev.Figures)}
	for _, r := range rows {
		if r.hasNow {
			out.Figures[r.Name] = entry{Value: r.now, What: r.What}
		}
	}
	return out
}
