package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/racetest"
)

// A command under --sandbox can swap a workspace directory with a
// symlink to a directory outside the roots (renameat2 with
// RENAME_EXCHANGE), over and over, while the model has the file tools
// write, read and search that directory: the tools resolve and check a
// path, then use it, so each call is a race. None may land a file
// outside, leave a temporary file there, or show the file the sandbox
// hides there (a key beside a decoy of the same name inside).
func TestFileToolsCannotBeRacedOutOfTheRoots(t *testing.T) {
	for _, engine := range []string{"in-process", "rg"} {
		t.Run(engine, func(t *testing.T) {
			if engine == "rg" {
				if _, err := exec.LookPath("rg"); err != nil {
					t.Skip("ripgrep (rg) is not on PATH: its engine is not raced")
				}
			}
			raceTheTools(t, engine)
		})
	}
}

func raceTheTools(t *testing.T, engine string) {
	const key = "HIDDEN-KEY-3f9a"
	calls := racetest.Count(t, 120)
	tw := newTestWorkspace(t, map[string]string{"d/id_ed25519": "decoy\n", "d/notes.txt": "decoy notes\n"})
	outside, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(outside, "id_ed25519"), []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, tw.abs("swap")); err != nil {
		t.Fatal(err)
	}

	// The swapping command, for as long as the calls run.
	stopSwapping := racetest.Swap(t, tw.abs("d"), tw.abs("swap"))

	write := proposingTool{Tool: tw.tool(WriteFileName, Options{}), p: diskProposer{}}
	read := tw.tool(ReadFileName, Options{})
	grep := tw.tool(GrepSearchName, Options{})
	var wrote atomic.Int64
	var workers sync.WaitGroup
	for w := range 4 {
		workers.Go(func() {
			for i := w; i < calls; i += 4 {
				for _, c := range []struct {
					tool Tool
					args map[string]any
				}{
					{write, map[string]any{"file_path": fmt.Sprintf("d/new-%d.txt", i), "content": "written\n"}},
					{read, map[string]any{"file_path": "d/id_ed25519"}},
					{grep, map[string]any{"pattern": "HIDDEN-KEY|decoy", "dir_path": []string{"d", "."}[i%2]}},
				} {
					call, err := c.tool.Build(c.args)
					if err != nil {
						continue // refused as outside the roots: the swap was seen
					}
					if gc, ok := call.(*grepCall); ok && engine == "rg" {
						gc.engine = externalGrep{tool: ripgrep{}, dir: tw.root}
					}
					res, err := call.Execute(context.Background(), CallInfo{})
					if err != nil {
						res.Error = err.Error()
					}
					if strings.Contains(res.Output+res.Error, key) {
						t.Errorf("%s %v showed the hidden key:\n%s%s", c.tool.Name(), c.args, res.Output, res.Error)
					}
					if c.tool.Name() == WriteFileName && res.Error == "" {
						wrote.Add(1)
					}
				}
			}
		})
	}
	workers.Wait()
	swaps := stopSwapping()

	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) != 1 || names[0] != "id_ed25519" {
		t.Errorf("the outside directory holds %v after the race, want only id_ed25519", names)
	}
	if data, err := os.ReadFile(filepath.Join(outside, "id_ed25519")); err != nil || string(data) != key+"\n" {
		t.Errorf("the outside key is now %q, %v", data, err)
	}
	t.Logf("%d calls of each tool, %d writes landed inside, %d swaps", calls, wrote.Load(), swaps)
	if swaps == 0 || wrote.Load() == 0 {
		t.Errorf("the race did not run: %d swaps, %d writes landed", swaps, wrote.Load())
	}
}

// The race above, its link leading to a directory inside the roots that
// .geminiignore hides: a path checked while it named the decoy, and
// read once it leads there, is the hidden file, and none of the tools
// shows it (they check the file they read). A link to a file swapped
// with a link to a hidden one likewise, when searched and when read
// again for the lines around a match.
func TestFileToolsCannotBeRacedIntoAnIgnoredFile(t *testing.T) {
	const key = "HIDDEN-KEY-7c21"
	calls := racetest.Count(t, 120)
	tw := newTestWorkspace(t, map[string]string{
		".geminiignore":       "private/\n",
		"private/id_ed25519":  key + "\n",
		"private/context.txt": "decoy\n" + key + "\n",
		"d/id_ed25519":        "decoy\n",
		"pub.txt":             "decoy\n",
	})
	for link, target := range map[string]string{"swap": "private", "link.txt": "pub.txt", "relink.txt": "private/context.txt"} {
		if err := os.Symlink(target, tw.abs(link)); err != nil {
			t.Fatal(err)
		}
	}
	stopSwapping := racetest.Swap(t, tw.abs("d"), tw.abs("swap"))
	stopRelinking := racetest.Swap(t, tw.abs("link.txt"), tw.abs("relink.txt"))

	var decoys atomic.Int64
	var workers sync.WaitGroup
	for w := range 4 {
		workers.Go(func() {
			for i := w; i < calls; i += 4 {
				for _, c := range []struct {
					tool string
					args map[string]any
				}{
					{ReadFileName, map[string]any{"file_path": "d/id_ed25519"}},
					{GrepSearchName, map[string]any{"pattern": "HIDDEN-KEY|decoy", "dir_path": "d"}},
					{GrepSearchName, map[string]any{"pattern": "decoy", "after": 1.0}},
				} {
					call, err := tw.tool(c.tool, Options{}).Build(c.args)
					if err != nil {
						continue
					}
					res, err := call.Execute(context.Background(), CallInfo{})
					if err != nil {
						res.Error = err.Error()
					}
					if strings.Contains(res.Output+res.Error, key) {
						t.Errorf("%s %v showed the ignored key:\n%s%s", c.tool, c.args, res.Output, res.Error)
					}
					if strings.Contains(res.Output, "decoy") {
						decoys.Add(1)
					}
				}
				// The @paths of a prompt alike.
				got, err := ReadReferences(context.Background(), tw.ws, []string{"d/id_ed25519", "d/*"})
				if err == nil && strings.Contains(referenceResult(got).Output, key) {
					t.Errorf("@d/id_ed25519 @d/* showed the ignored key")
				}
			}
		})
	}
	workers.Wait()
	swaps := stopSwapping() + stopRelinking()
	t.Logf("%d calls of each tool, %d showed the decoy, %d swaps", calls, decoys.Load(), swaps)
	if swaps == 0 || decoys.Load() == 0 {
		t.Errorf("the race did not run: %d swaps, %d decoys read", swaps, decoys.Load())
	}
}
