package agent_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// checkpointer records what it is asked, with the file's bytes at that
// moment, and fails with err.
type checkpointer struct {
	path  string
	reqs  []agent.CheckpointRequest
	found []string
	err   error
}

func (c *checkpointer) Checkpoint(_ context.Context, req agent.CheckpointRequest) error {
	c.reqs = append(c.reqs, req)
	data, err := os.ReadFile(c.path)
	if err != nil {
		data = []byte("(none)")
	}
	c.found = append(c.found, string(data))
	return c.err
}

// checkpointSetup is a session whose model writes path, with the front
// its prompts are put to: user, landing the edit on disk.
func checkpointSetup(t *testing.T, cp *checkpointer) (s *agent.Session, path string, ui front, user *diskUser) {
	t.Helper()
	dir := t.TempDir()
	path = filepath.Join(dir, "a.txt")
	must(t, os.WriteFile(path, []byte("before\n"), 0o644))
	cp.path = path
	ws, err := workspace.New([]string{dir}, nil)
	must(t, err)
	srv := geminitest.NewTestServer(t, write(path, "after\n"), geminitest.TextTurn("done"))
	user = &diskUser{}
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(writeTool(ws)), ApprovalMode: dialog.ApprovalAutoEdit, Workspace: ws, Checkpointer: cp})
	return a.NewSession(), path, front{lander: user}, user
}

// The checkpoint is taken before the edit lands, with the history ending
// with the model's call, and the call's name and arguments.
func TestCheckpointBeforeTheEditLands(t *testing.T) {
	cp := &checkpointer{}
	s, path, ui, _ := checkpointSetup(t, cp)
	if res, _ := ui.prompt(t, s, "edit"); res.StopReason != dialog.StopEndTurn {
		t.Fatalf("prompt: %+v", res)
	}
	if len(cp.reqs) != 1 || cp.found[0] != "before\n" {
		t.Fatalf("checkpoints %d, the file then %q; want one, before the edit", len(cp.reqs), cp.found)
	}
	req := cp.reqs[0]
	last := req.History[len(req.History)-1]
	if req.Tool != "write" || req.Args["path"] != path || last.Role != genai.RoleModel || last.Parts[0].FunctionCall == nil {
		t.Errorf("checkpoint request %+v; want the write call, after the history's call", req)
	}
	if got := read(t, path); got != "after\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// A checkpoint that fails is told as a notice, and the edit goes on.
func TestFailedCheckpointIsANoticeAndTheEditGoesOn(t *testing.T) {
	cp := &checkpointer{err: errors.New("git is broken")}
	s, path, ui, _ := checkpointSetup(t, cp)
	res, evs := ui.prompt(t, s, "edit")
	if res.StopReason != dialog.StopEndTurn {
		t.Fatalf("prompt: %+v", res)
	}
	notices := only[dialog.NoticeEvent](evs)
	if len(notices) != 1 || !strings.Contains(notices[0].Text, "git is broken") {
		t.Errorf("notices %+v; want the checkpoint's failure", notices)
	}
	if got := read(t, path); got != "after\n" {
		t.Errorf("a.txt = %q; the edit should have gone on", got)
	}
}

// RestoreFiles lands every target as one change: a changed file gets
// its bytes back, a deleted one is recreated, one created since is
// removed, one already as it was is left, and a skipped one reported.
func TestRestoreFilesLandsOneChange(t *testing.T) {
	cp := &checkpointer{}
	s, path, ui, user := checkpointSetup(t, cp)
	dir := filepath.Dir(path)
	gone, created, same := filepath.Join(dir, "gone.txt"), filepath.Join(dir, "new.txt"), filepath.Join(dir, "same.txt")
	must(t, os.WriteFile(created, []byte("new\n"), 0o644))
	must(t, os.WriteFile(same, []byte("same\n"), 0o644))
	files, err := s.RestoreFiles(context.Background(), "Restore", []agent.FileTarget{
		{Path: path, Exists: true, Content: []byte("old\r\n")},
		{Path: gone, Exists: true, Content: []byte("\ufeffgone\n")},
		{Path: created},
		{Path: same, Exists: true, Content: []byte("same\n")},
		{Path: filepath.Join(dir, "link"), Exists: true, Skip: "a link"},
	}, ui.port(nil))
	if err != nil {
		t.Fatal(err)
	}
	want := []dialog.RevertOutcome{dialog.Reverted, dialog.Reverted, dialog.Reverted, dialog.Unchanged, dialog.NotReverted}
	for i, f := range files {
		if f.Outcome != want[i] {
			t.Errorf("%s: %s (%s), want %s", f.Path, f.Outcome, f.Reason, want[i])
		}
	}
	if len(user.reverts) != 1 || len(user.reverts[0].Changes) != 3 {
		t.Errorf("landed %+v; want one change of three files", user.reverts)
	}
	if got := read(t, path); got != "old\r\n" {
		t.Errorf("a.txt = %q", got)
	}
	if got := read(t, gone); got != "\ufeffgone\n" {
		t.Errorf("gone.txt = %q", got)
	}
	if _, err := os.Stat(created); err == nil {
		t.Error("new.txt was not removed")
	}
}

// declinedFiles is a FilesLander whose user declines every restore.
type declinedFiles struct{ diskUser }

func (declinedFiles) LandFiles(_ context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	out := make([]dialog.Decision, len(req.Changes))
	for i := range out {
		out[i] = dialog.Decision{Outcome: dialog.Declined, Reason: "the user declined"}
	}
	return out, nil
}

// A restore puts each file's executable bit back as the snapshot had
// it, once the landing went through: a deleted script is recreated
// executable, one whose bit alone was removed gets it back (restored,
// not "already as it was"), and one made executable since loses it.
// Declined, no mode changes either.
func TestRestoreFilesPutsTheExecutableBitBack(t *testing.T) {
	platformtest.Unix(t, "executable bits to restore")
	cp := &checkpointer{}
	s, path, ui, _ := checkpointSetup(t, cp)
	dir := filepath.Dir(path)
	gone, unset, set := filepath.Join(dir, "gone.sh"), filepath.Join(dir, "unset.sh"), filepath.Join(dir, "set.txt")
	must(t, os.WriteFile(unset, []byte("#!/bin/sh\n"), 0o644))
	must(t, os.WriteFile(set, []byte("text\n"), 0o755))
	targets := []agent.FileTarget{
		{Path: gone, Exists: true, Executable: true, Content: []byte("#!/bin/sh\necho gone\n")},
		{Path: unset, Exists: true, Executable: true, Content: []byte("#!/bin/sh\n")},
		{Path: set, Exists: true, Content: []byte("text\n")},
	}

	declined := &declinedFiles{}
	ws, err := workspace.New([]string{dir}, nil)
	must(t, err)
	srv := geminitest.NewTestServer(t)
	a, _ := newAgent(t, srv, agent.Config{Tools: tools.NewRegistry(writeTool(ws)), Workspace: ws})
	if _, err := a.NewSession().RestoreFiles(context.Background(), "Restore", targets, front{lander: declined}.port(nil)); err != nil {
		t.Fatal(err)
	}
	if mode(t, unset) != 0o644 || mode(t, set) != 0o755 {
		t.Errorf("after a declined restore: unset.sh %v, set.txt %v; want the modes left", mode(t, unset), mode(t, set))
	}

	files, err := s.RestoreFiles(context.Background(), "Restore", targets, ui.port(nil))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Outcome != dialog.Reverted || f.ModeNotSet != "" {
			t.Errorf("%s: %s (%s) mode %q; want restored", f.Path, f.Outcome, f.Reason, f.ModeNotSet)
		}
	}
	if got := read(t, gone); got != "#!/bin/sh\necho gone\n" {
		t.Errorf("gone.sh = %q", got)
	}
	for path, want := range map[string]os.FileMode{gone: 0o111, unset: 0o111, set: 0} {
		if got := mode(t, path) & 0o111; got != want {
			t.Errorf("%s is %v; want executable bits %v", path, mode(t, path), want)
		}
	}
}

func mode(t *testing.T, path string) os.FileMode {
	t.Helper()
	fi, err := os.Stat(path)
	must(t, err)
	return fi.Mode().Perm()
}

// bufferOnly is an editor that applies a restore to its buffers only,
// leaving disk as it is.
type bufferOnly struct{ diskUser }

func (bufferOnly) LandFiles(_ context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	out := make([]dialog.Decision, len(req.Changes))
	for i, c := range req.Changes {
		out[i] = dialog.Decision{Outcome: dialog.Applied, Content: c.After}
	}
	return out, nil
}

// A restored file whose executable bit cannot be put back (it is not on
// disk) is restored, and says why its mode was not.
func TestRestoreFilesSaysWhenTheModeWasNotSet(t *testing.T) {
	platformtest.Unix(t, "executable bits to restore")
	dir := t.TempDir()
	ws, err := workspace.New([]string{dir}, nil)
	must(t, err)
	ui := front{lander: &bufferOnly{}}
	a, _ := newAgent(t, geminitest.NewTestServer(t), agent.Config{Workspace: ws})
	files, err := a.NewSession().RestoreFiles(context.Background(), "Restore", []agent.FileTarget{
		{Path: filepath.Join(dir, "run.sh"), Exists: true, Executable: true, Content: []byte("#!/bin/sh\n")},
		{Path: filepath.Join(dir, "notes.txt"), Exists: true, Content: []byte("notes\n")},
	}, ui.port(nil))
	if err != nil {
		t.Fatal(err)
	}
	if files[0].Outcome != dialog.Reverted || !strings.Contains(files[0].ModeNotSet, "not on disk") {
		t.Errorf("run.sh: %+v; want restored, its mode not set, saying why", files[0])
	}
	if files[1].Outcome != dialog.Reverted || files[1].ModeNotSet != "" {
		t.Errorf("notes.txt: %+v; want restored, no mode to set", files[1])
	}
}
