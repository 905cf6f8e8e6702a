package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/sessionstore"
)

// savedSessions is how many saved sessions BenchmarkHeadlessAmongSavedSessions
// gives a project: a month of a script run thirty times a day, or of a
// user's work at the default retention (30 days).
const savedSessions = 1000

// BenchmarkHeadlessAmongSavedSessions runs BenchmarkHeadlessRun8ToolCalls's
// turn headless in one workspace, in turn with two homes: one whose
// project holds savedSessions saved sessions (copies of this turn's, each
// its own id, last modified an hour ago), the other none. What each run
// saves is removed after it, so that both homes stay as they were.
//
// Metrics: the medians over the pairs of many ÷ none, of the run's wall,
// CPU and peak RSS (wall-ratio, cpu-ratio, rss-ratio): what the saved
// sessions cost every start. gemini-ls's clean-up reads at start only
// the session files changed since it last read them, and stats the rest:
// at 1,000, the CPU is about a tenth or a fifth more, the RSS a tenth.
func BenchmarkHeadlessAmongSavedSessions(b *testing.B) {
	run := headlessTurn(b)
	many, none := b.TempDir(), b.TempDir()

	// One run makes the session the copies are made of.
	run(many)
	chats := chatsOf(b, many)
	files := sessionFiles(b, chats)
	if len(files) != 1 {
		b.Fatalf("one run saved %d session files, want 1", len(files))
	}
	copySession(b, filepath.Join(chats, files[0]), savedSessions-1)
	then := time.Now().Add(-time.Hour)
	if err := os.Chtimes(filepath.Join(chats, files[0]), then, then); err != nil {
		b.Fatal(err)
	}
	kept := map[string]bool{}
	for _, f := range sessionFiles(b, chats) {
		kept[f] = true
	}
	// Removes what a run saved, keeping the home as it was.
	tidy := func() {
		for _, f := range sessionFiles(b, chats) {
			if !kept[f] {
				if err := os.Remove(filepath.Join(chats, f)); err != nil {
					b.Fatal(err)
				}
			}
		}
	}
	// An untimed pair: the page cache, and what a first start keeps.
	run(many)
	tidy()
	run(none)
	if err := os.RemoveAll(filepath.Join(none, ".gemini", "tmp")); err != nil {
		b.Fatal(err)
	}

	ratios := pairRatios(b, func() processCost { return run(many) }, func() processCost { return run(none) }, func() {
		tidy()
		if err := os.RemoveAll(filepath.Join(none, ".gemini", "tmp")); err != nil {
			b.Fatal(err)
		}
	})
	if got := len(sessionFiles(b, chats)); got != savedSessions {
		b.Fatalf("the home holds %d saved sessions at the end, want %d", got, savedSessions)
	}
	ratios.report(b)
}

// withHome is environ with HOME set to home.
// BenchmarkHeadlessInQuickSuccession runs the same turn headless over and
// over in one workspace, as a script looping over a task does, in turn
// with two homes: one keeping every session the loop saves (a few
// dozen by the end, each written a moment before the next start), the
// other emptied after each run.
//
// Metrics: the medians over the pairs of loop ÷ empty, of the run's
// wall, CPU and peak RSS (wall-ratio, cpu-ratio, rss-ratio). Before
// clean-up kept the summaries of files modified within its racy window
// (checked by their content's digest), each start of such a loop read
// whole every session saved in the last two seconds.
func BenchmarkHeadlessInQuickSuccession(b *testing.B) {
	run := headlessTurn(b)
	loop, empty := b.TempDir(), b.TempDir()
	emptyHome := func() {
		if err := os.RemoveAll(filepath.Join(empty, ".gemini", "tmp")); err != nil {
			b.Fatal(err)
		}
	}
	for range 10 { // the loop's first seconds
		run(loop)
	}
	run(empty)
	emptyHome()

	ratios := pairRatios(b, func() processCost { return run(loop) }, func() processCost { return run(empty) }, emptyHome)
	if got, want := len(sessionFiles(b, chatsOf(b, loop))), 10+b.N; got != want {
		b.Fatalf("the loop's home holds %d saved sessions, want %d", got, want)
	}
	ratios.report(b)
}

// costRatios are, pair by pair, one run's cost ÷ the other's.
type costRatios struct{ wall, cpu, rss []float64 }

// pairRatios runs first and second in turn, a pair each b.Loop, the
// order alternating so that both meet the same load, and calls after
// after each pair.
func pairRatios(b *testing.B, first, second func() processCost, after func()) costRatios {
	var r costRatios
	for i := 0; b.Loop(); i++ {
		var f, s processCost
		if i%2 == 0 {
			f, s = first(), second()
		} else {
			s, f = second(), first()
		}
		after()
		r.wall = append(r.wall, float64(f.wall)/float64(s.wall))
		r.cpu = append(r.cpu, float64(f.cpu)/float64(s.cpu))
		r.rss = append(r.rss, float64(f.rss)/float64(s.rss))
	}
	return r
}

// report reports the medians: wall-ratio, cpu-ratio, rss-ratio.
func (r costRatios) report(b *testing.B) {
	b.ReportMetric(distributionOf(r.wall).median(), "wall-ratio")
	b.ReportMetric(distributionOf(r.cpu).median(), "cpu-ratio")
	b.ReportMetric(distributionOf(r.rss).median(), "rss-ratio")
}

// headlessTurn returns what runs BenchmarkHeadlessRun8ToolCalls's turn
// headless in one workspace, with the home given, and checks its answer.
func headlessTurn(b *testing.B) func(home string) processCost {
	model := newTimedModel(b)
	measure := newMeasured(b)
	root := tempRoot(b)
	writeFiles(b, root, smallWorkspace())
	return func(home string) processCost {
		model.Push(turnScript()...)
		cmd := exec.Command(binary, "run", "-p", "Survey the handlers.", "-C", root)
		cmd.Env = withHome(env(b, model.URL), home)
		cost, out, err := measure.run(cmd)
		if err != nil {
			b.Fatal(err)
		}
		if want := "The workspace has ten packages of handlers."; !strings.Contains(out, want) {
			b.Fatalf("gemini-ls run printed %q, want %q", out, want)
		}
		return cost
	}
}

func withHome(environ []string, home string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "HOME=") {
			out = append(out, kv)
		}
	}
	return append(out, "HOME="+home)
}

// chatsOf is the chats directory of the one project home's Gemini
// directory holds.
func chatsOf(b *testing.B, home string) string {
	b.Helper()
	dirs, err := filepath.Glob(filepath.Join(home, ".gemini", "tmp", "*", "chats"))
	if err != nil || len(dirs) != 1 {
		b.Fatalf("%s holds the chats directories %v (%v), want one", home, dirs, err)
	}
	return dirs[0]
}

// sessionFiles are the session files' names in chats.
func sessionFiles(b *testing.B, chats string) []string {
	b.Helper()
	entries, err := os.ReadDir(chats)
	if err != nil {
		b.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), "session-") && strings.HasSuffix(e.Name(), ".jsonl") {
			names = append(names, e.Name())
		}
	}
	return names
}

// copySession writes n copies of the session file at path beside it,
// each under a new id, last modified an hour ago.
func copySession(b *testing.B, path string, n int) {
	b.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	name := filepath.Base(path)
	id8 := strings.TrimSuffix(name[strings.LastIndexByte(name, '-')+1:], ".jsonl")
	at := strings.Index(string(data), id8)
	if at < 0 {
		b.Fatalf("%s does not hold its id %s…", name, id8)
	}
	id := string(data[at : at+36])
	then := time.Now().Add(-time.Hour)
	for range n {
		fresh := sessionstore.NewID()
		copyPath := filepath.Join(filepath.Dir(path), strings.Replace(name, id8, fresh[:8], 1))
		if err := os.WriteFile(copyPath, []byte(strings.ReplaceAll(string(data), id, fresh)), 0o600); err != nil {
			b.Fatal(err)
		}
		if err := os.Chtimes(copyPath, then, then); err != nil {
			b.Fatal(err)
		}
	}
}
