package checkpoint_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/checkpoint"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// project is a workspace with its own git repository, and a ~/.gemini.
type project struct {
	root, gemini string
	store        *checkpoint.Store
	// docs are the editor's open documents.
	docs *workspace.Documents
}

func newProject(t *testing.T) project {
	t.Helper()
	platformtest.Tool(t, "git")
	p := project{root: filepath.Join(t.TempDir(), "app"), gemini: filepath.Join(t.TempDir(), ".gemini")}
	write(t, filepath.Join(p.root, "keep.txt"), "kept\n")
	write(t, filepath.Join(p.root, "sub", "gone.bin"), "\x00\x01binary\r\n")
	write(t, filepath.Join(p.root, ".gitignore"), "*.log\n")
	write(t, filepath.Join(p.root, "debug.log"), "ignored\n")
	cmd := exec.Command("git", "init", "--quiet", p.root)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	p.docs = workspace.NewDocuments()
	store, err := checkpoint.New(p.gemini, p.root, p.docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	p.store = store
	return p
}

func write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

// snapshotOfGit is every file under the project's .git, with its bytes.
func snapshotOfGit(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(filepath.Join(root, ".git"), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		out[path] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func request(path string) agent.CheckpointRequest {
	return agent.CheckpointRequest{
		SessionID: "s1",
		History: []*genai.Content{
			genai.NewContentFromText("write the notes", genai.RoleUser),
			{Role: genai.RoleModel, Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{ID: "c1", Name: "write_file", Args: map[string]any{"file_path": path, "content": "new"}}}}},
		},
		Tool: "write_file",
		Args: map[string]any{"file_path": path, "content": "new"},
	}
}

// A checkpoint commits the workspace to the shadow repository in
// ~/.gemini/history/<id> and writes Gemini CLI's checkpoint file; after
// files are changed, created and deleted, Targets says what each goes
// back to, exactly, and the project's own .git is untouched throughout.
func TestCheckpointAndTargets(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	gitBefore := snapshotOfGit(t, p.root)

	if err := p.store.Checkpoint(ctx, request(filepath.Join(p.root, "notes.txt"))); err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	names, err := p.store.List()
	if err != nil || len(names) != 1 || !strings.HasSuffix(names[0], "-notes.txt-write_file") {
		t.Fatalf("List = %q, %v; want one <timestamp>-notes.txt-write_file", names, err)
	}
	if !regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d_\d{3}Z-notes\.txt-write_file$`).MatchString(names[0]) {
		t.Errorf("checkpoint name %q: the timestamp is not Gemini CLI's", names[0])
	}
	// Gemini CLI's places: tmp/<slug>/checkpoints and history/<slug>/.git.
	file := filepath.Join(p.gemini, "tmp", "app", "checkpoints", names[0]+".json")
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the checkpoint file: %v", err)
	}
	var onDisk map[string]any
	if err := json.Unmarshal(raw, &onDisk); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"clientHistory", "commitHash", "toolCall"} {
		if onDisk[key] == nil {
			t.Errorf("the checkpoint file has no %s: %s", key, raw)
		}
	}
	if _, err := os.Stat(filepath.Join(p.gemini, "history", "app", ".git", "HEAD")); err != nil {
		t.Errorf("no shadow repository in history/app: %v", err)
	}
	if cfg, err := os.ReadFile(filepath.Join(p.gemini, "history", "app", ".gitconfig")); err != nil || !strings.Contains(string(cfg), "Gemini CLI") {
		t.Errorf("the shadow repository's .gitconfig = %q, %v", cfg, err)
	}

	cp, err := p.store.Load(names[0])
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if cp.ToolCall.Name != "write_file" || len(cp.ClientHistory) != 2 || cp.CommitHash == "" {
		t.Fatalf("Load = %+v", cp)
	}

	// After the checkpoint: one file changed, one deleted, one created,
	// one ignored file changed.
	write(t, filepath.Join(p.root, "keep.txt"), "changed\n")
	if err := os.Remove(filepath.Join(p.root, "sub", "gone.bin")); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(p.root, "notes.txt"), "new")
	write(t, filepath.Join(p.root, "debug.log"), "changed, ignored\n")

	targets, err := p.store.Targets(ctx, cp.CommitHash)
	if err != nil {
		t.Fatalf("Targets: %v", err)
	}
	want := map[string]agent.FileTarget{
		filepath.Join(p.root, "keep.txt"):        {Exists: true, Content: []byte("kept\n")},
		filepath.Join(p.root, "sub", "gone.bin"): {Exists: true, Content: []byte("\x00\x01binary\r\n")},
		filepath.Join(p.root, "notes.txt"):       {Exists: false},
	}
	if len(targets) != len(want) {
		t.Fatalf("Targets = %+v; want %d files", targets, len(want))
	}
	for _, got := range targets {
		w, ok := want[got.Path]
		if !ok || got.Exists != w.Exists || !bytes.Equal(got.Content, w.Content) {
			t.Errorf("target %s = %v %q; want %+v", got.Path, got.Exists, got.Content, w)
		}
	}

	if gitAfter := snapshotOfGit(t, p.root); len(gitAfter) != len(gitBefore) {
		t.Errorf("the project's .git changed: %d files, was %d", len(gitAfter), len(gitBefore))
	} else {
		for path, data := range gitBefore {
			if gitAfter[path] != data {
				t.Errorf("the project's %s changed", path)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(p.root, ".gemini")); err == nil {
		t.Error("a .gemini appeared in the workspace")
	}
}

// A snapshot holds what the user sees: an open document's unsaved text,
// not disk's (with disk's BOM), and the workspace a restore compares
// with is as the user sees it too; neither the files on disk nor the
// project's .git are touched.
func TestCheckpointTakesUnsavedBuffers(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	keep, bommed := filepath.Join(p.root, "keep.txt"), filepath.Join(p.root, "bom.txt")
	write(t, bommed, "\ufeffsaved\n")
	gitBefore := snapshotOfGit(t, p.root)
	p.docs.Open(workspace.Document{Path: keep, URI: "file://" + keep, Text: "typed, not saved\n"})
	p.docs.Open(workspace.Document{Path: bommed, URI: "file://" + bommed, Text: "typed\n"})
	p.docs.Open(workspace.Document{Path: filepath.Join(p.root, "debug.log"), Text: "ignored, typed\n"})

	if err := p.store.Checkpoint(ctx, request(filepath.Join(p.root, "notes.txt"))); err != nil {
		t.Fatalf("Checkpoint: %v", err)
	}
	names, _ := p.store.List()
	cp, err := p.store.Load(names[0])
	if err != nil {
		t.Fatal(err)
	}
	// The user saves other text, and closes the buffers.
	write(t, keep, "saved later\n")
	write(t, bommed, "\ufeffsaved later\n")
	for _, path := range []string{keep, bommed, filepath.Join(p.root, "debug.log")} {
		p.docs.Close(path)
	}
	// The snapshot of a buffer equal to disk is disk's; the buffer typed
	// since counts as what the file holds now.
	gone := filepath.Join(p.root, "sub", "gone.bin")
	p.docs.Open(workspace.Document{Path: gone, Text: "typed since\n"})

	targets, err := p.store.Targets(ctx, cp.CommitHash)
	if err != nil {
		t.Fatalf("Targets: %v", err)
	}
	want := map[string]string{keep: "typed, not saved\n", bommed: "\ufefftyped\n", gone: "\x00\x01binary\r\n"}
	if len(targets) != len(want) {
		t.Errorf("Targets = %+v; want %d files", targets, len(want))
	}
	for _, got := range targets {
		if w, ok := want[got.Path]; !ok || !got.Exists || string(got.Content) != w {
			t.Errorf("target %s = %v %q; want %q", got.Path, got.Exists, got.Content, w)
		}
	}
	if data, _ := os.ReadFile(keep); string(data) != "saved later\n" {
		t.Errorf("keep.txt on disk = %q; the snapshot wrote to the workspace", data)
	}
	gitAfter := snapshotOfGit(t, p.root)
	if len(gitAfter) != len(gitBefore) {
		t.Errorf("the project's .git changed: %d files, was %d", len(gitAfter), len(gitBefore))
	}
	for path, data := range gitBefore {
		if gitAfter[path] != data {
			t.Errorf("the project's %s changed", path)
		}
	}
}

// A second checkpoint with nothing changed is the same snapshot.
func TestCheckpointUnchangedReusesTheSnapshot(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	if err := p.store.Checkpoint(ctx, request(filepath.Join(p.root, "a.txt"))); err != nil {
		t.Fatal(err)
	}
	if err := p.store.Checkpoint(ctx, request(filepath.Join(p.root, "b.txt"))); err != nil {
		t.Fatal(err)
	}
	names, err := p.store.List()
	if err != nil || len(names) != 2 {
		t.Fatalf("List = %q, %v", names, err)
	}
	a, _ := p.store.Load(names[0])
	b, _ := p.store.Load(names[1])
	if a.CommitHash == "" || a.CommitHash != b.CommitHash {
		t.Errorf("snapshots %q and %q; want the same", a.CommitHash, b.CommitHash)
	}
	if targets, err := p.store.Targets(ctx, a.CommitHash); err != nil || len(targets) != 0 {
		t.Errorf("Targets with nothing changed = %+v, %v", targets, err)
	}
}

// The shadow repository is never put inside the workspace.
func TestShadowRepositoryInsideTheWorkspaceIsRefused(t *testing.T) {
	root := t.TempDir()
	store, err := checkpoint.New(filepath.Join(root, ".gemini"), root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	err = store.Checkpoint(context.Background(), request(filepath.Join(root, "a.txt")))
	if err == nil || !strings.Contains(err.Error(), "inside the workspace") {
		t.Fatalf("Checkpoint = %v; want a refusal", err)
	}
	if _, err := os.Stat(filepath.Join(root, ".gemini", "history", filepath.Base(root), ".git")); err == nil {
		t.Error("a shadow repository was created inside the workspace")
	}
}

// Where git is not installed, a checkpoint fails saying so, and what to
// do: install it or turn checkpointing off.
func TestCheckpointWithoutGitSaysSo(t *testing.T) {
	root := filepath.Join(t.TempDir(), "app")
	write(t, filepath.Join(root, "a.txt"), "a\n")
	store, err := checkpoint.New(filepath.Join(t.TempDir(), ".gemini"), root, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	err = store.Checkpoint(context.Background(), request(filepath.Join(root, "a.txt")))
	if !errors.Is(err, checkpoint.ErrNoGit) || !strings.Contains(err.Error(), "install Git") {
		t.Fatalf("Checkpoint without git = %v; want ErrNoGit, saying to install it", err)
	}
}

// A restored history answers the call it ends with, so the
// conversation can go on; names outside the checkpoints are refused.
func TestRestorableHistoryAndLoad(t *testing.T) {
	p := newProject(t)
	req := request(filepath.Join(p.root, "notes.txt"))
	h := checkpoint.File{ClientHistory: req.History}.RestorableHistory()
	if len(h) != 3 || h[2].Role != genai.RoleUser || h[2].Parts[0].FunctionResponse == nil || h[2].Parts[0].FunctionResponse.ID != "c1" {
		t.Fatalf("RestorableHistory = %+v", h)
	}
	for _, name := range []string{"", "../x", "..", "nope"} {
		if _, err := p.store.Load(name); err == nil {
			t.Errorf("Load(%q) succeeded", name)
		}
	}
}

// A symbolic link deleted since the snapshot is reported, not recreated
// as a regular file holding its target.
func TestSymbolicLinkIsNotRestoredAsAFile(t *testing.T) {
	p := newProject(t)
	ctx := context.Background()
	link := filepath.Join(p.root, "link")
	if err := os.Symlink("keep.txt", link); err != nil {
		t.Fatal(err)
	}
	if err := p.store.Checkpoint(ctx, request(filepath.Join(p.root, "a.txt"))); err != nil {
		t.Fatal(err)
	}
	names, _ := p.store.List()
	cp, err := p.store.Load(names[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(link); err != nil {
		t.Fatal(err)
	}
	targets, err := p.store.Targets(ctx, cp.CommitHash)
	if err != nil || len(targets) != 1 {
		t.Fatalf("Targets = %+v, %v", targets, err)
	}
	if targets[0].Path != link || !strings.Contains(targets[0].Skip, "symbolic link") {
		t.Errorf("target = %+v; want the link skipped, saying why", targets[0])
	}
}

// The sessions of one process checkpoint concurrently: each succeeds,
// though git's index takes one writer at a time.
func TestConcurrentCheckpoints(t *testing.T) {
	p := newProject(t)
	errs := make(chan error, 8)
	for i := range cap(errs) {
		name := filepath.Join(p.root, "f"+strconv.Itoa(i)+".txt")
		write(t, name, strings.Repeat("x", i))
		go func() { errs <- p.store.Checkpoint(context.Background(), request(name)) }()
	}
	for range cap(errs) {
		if err := <-errs; err != nil {
			t.Errorf("Checkpoint: %v", err)
		}
	}
}

// A checkpoint Gemini CLI wrote (its UI history and messageId beside
// the fields read) is listed and loaded.
func TestLoadsGeminiCLIsCheckpoint(t *testing.T) {
	p := newProject(t)
	if err := p.store.Checkpoint(context.Background(), request(filepath.Join(p.root, "a.txt"))); err != nil {
		t.Fatal(err)
	}
	name := "2025-06-22T10-00-00_000Z-my-file.txt-replace"
	write(t, filepath.Join(p.gemini, "tmp", "app", "checkpoints", name+".json"), `{
  "history": [{"type": "user", "id": 1, "text": "fix it"}],
  "clientHistory": [{"role": "user", "parts": [{"text": "fix it"}]}, {"role": "model", "parts": [{"functionCall": {"name": "replace", "args": {"file_path": "my-file.txt"}}}]}],
  "toolCall": {"name": "replace", "args": {"file_path": "my-file.txt", "old_string": "a", "new_string": "b"}},
  "commitHash": "0123456789abcdef0123456789abcdef01234567",
  "messageId": "m-1"
}`)
	names, err := p.store.List()
	if err != nil || len(names) != 2 || names[0] != name {
		t.Fatalf("List = %q, %v; want Gemini CLI's first (oldest)", names, err)
	}
	cp, err := p.store.Load(name + ".json")
	if err != nil {
		t.Fatal(err)
	}
	if cp.ToolCall.Name != "replace" || cp.ToolCall.Args["old_string"] != "a" || len(cp.ClientHistory) != 2 || cp.MessageID != "m-1" {
		t.Errorf("Load = %+v", cp)
	}
	if _, err := p.store.Targets(context.Background(), cp.CommitHash); err == nil || !strings.Contains(err.Error(), "not in the shadow repository") {
		t.Errorf("Targets of a snapshot the repository lacks = %v", err)
	}
}
