package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/acp/acptest"
	"github.com/gemini-ls/gemini-ls/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/lsp/lsptest"
)

// The restore tests' files: victim.txt, which a shell command deletes
// after the checkpoint, with CRLF line endings to check its exact bytes.
const victim = "the victim\r\nsecond line\r\n"

// restoreTurns: one prompt whose model writes notes.txt (the checkpoint
// is taken before), then deletes victim.txt with the shell, then
// answers; and the answer to the prompt after the restore.
func restoreTurns(notes string) []geminitest.Turn {
	return []geminitest.Turn{
		call("write_file", map[string]any{"file_path": notes, "content": "notes\n"}),
		call("run_shell_command", map[string]any{"command": "rm victim.txt"}),
		geminitest.TextTurn("done"),
		geminitest.TextTurn("after the restore"),
	}
}

// checkpointingHome is a HOME whose settings enable checkpointing and
// trust root.
func checkpointingHome(t *testing.T, root string) string {
	t.Helper()
	home := t.TempDir()
	writeFiles(t, home, map[string]string{
		".gemini/settings.json":       `{"general": {"checkpointing": {"enabled": true}}}`,
		".gemini/trustedFolders.json": `{"` + root + `": "TRUST_FOLDER"}`,
	})
	return home
}

// gitInit makes root a git repository with one commit, and returns a
// record of its .git to compare with later.
func gitInit(t *testing.T, root string) map[string]string {
	t.Helper()
	for _, args := range [][]string{{"init", "--quiet"}, {"add", "."}, {"-c", "user.name=u", "-c", "user.email=u@x", "commit", "--quiet", "-m", "mine"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v: %s", args, err, out)
		}
	}
	return dotGit(t, root)
}

// dotGit is each file under root/.git with its bytes.
func dotGit(t *testing.T, root string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(filepath.Join(root, ".git"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		files[path] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// wantUntouched fails unless the user's .git is as it was, and no shadow
// repository or .gemini appeared in the workspace.
func wantUntouched(t *testing.T, root string, gitBefore map[string]string) {
	t.Helper()
	after := dotGit(t, root)
	if len(after) != len(gitBefore) {
		t.Errorf("the project's .git has %d files, had %d", len(after), len(gitBefore))
	}
	for path, data := range gitBefore {
		if after[path] != data {
			t.Errorf("the project's %s changed", path)
		}
	}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" && path != filepath.Join(root, ".git") || d.Name() == ".gemini" || d.Name() == ".gitconfig" {
			t.Errorf("%s appeared in the workspace", path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

var checkpointName = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d_\d{3}Z-notes\.txt-write_file`)

// Headless, yolo: the write_file is checkpointed, the shell deletes
// victim.txt; in later runs /restore lists the checkpoint by Gemini
// CLI's name and "/restore <name>" brings victim.txt back byte for byte,
// removes notes.txt (created since), restores the conversation to the
// moment of the call (the next request carries the prompt and the call,
// answered as not run) and says which call it was; the user's .git is
// untouched and no shadow repository is in the workspace.
func TestRestoreHeadless(t *testing.T) {
	h := newHeadless(t, map[string]string{"victim.txt": victim}, restoreTurns("notes.txt")...)
	gitBefore := gitInit(t, h.root)
	env := append(h.withoutEnv("HOME"), "HOME="+checkpointingHome(t, h.root))

	h.runIn(h.root, env, "run", "--approval-mode", "yolo", "-p", "write the notes").wantExit(t, 0)
	if _, err := os.Stat(h.path("victim.txt")); err == nil {
		t.Fatal("the shell command did not delete victim.txt")
	}
	if got := h.readFile("notes.txt"); got != "notes\n" {
		t.Fatalf("notes.txt = %q", got)
	}

	list := h.runIn(h.root, env, "run", "-resume", "latest", "-p", "/restore")
	list.wantExit(t, 0)
	name := checkpointName.FindString(list.stdout)
	if name == "" || !strings.Contains(list.stdout, "Available tool calls to restore") {
		t.Fatalf("/restore printed %q; want the checkpoint listed", list.stdout)
	}

	res := h.runIn(h.root, env, "run", "-resume", "latest", "-p", "/restore "+name)
	res.wantExit(t, 0)
	if got := h.readFile("victim.txt"); got != victim {
		t.Errorf("victim.txt after the restore = %q, want %q", got, victim)
	}
	if _, err := os.Stat(h.path("notes.txt")); err == nil {
		t.Error("notes.txt, created after the checkpoint, is still there")
	}
	for _, want := range []string{"`" + h.path("victim.txt") + "`: restored", "`" + h.path("notes.txt") + "`: restored", "Restored the conversation", "`write_file` of `notes.txt`"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("/restore %s printed %q, want %q", name, res.stdout, want)
		}
	}

	h.runIn(h.root, env, "run", "-resume", "latest", "-p", "again").wantExit(t, 0)
	reqs := h.model.Requests()
	got := strings.Join(contentTexts(reqs[len(reqs)-1].Contents), "|")
	if !strings.Contains(got, "user: write the notes") || strings.Contains(got, "done") || !strings.HasSuffix(got, "user: again") {
		t.Errorf("the request after the restore holds %q; want the prompt before the call, not what followed", got)
	}
	last := reqs[len(reqs)-1].Contents
	if fr := functionResponses(last); len(fr) != 1 || !strings.Contains(fr[0], "did not run") {
		t.Errorf("the restored history answers the calls with %q; want the write_file answered as not run", fr)
	}
	wantUntouched(t, h.root, gitBefore)
}

// Over LSP (yolo): the same, and the restore is ONE workspace/applyEdit
// that the editor applies: victim.txt is recreated with its exact text
// and notes.txt deleted.
func TestRestoreOverLSP(t *testing.T) {
	root := newRoot(t, map[string]string{"victim.txt": victim})
	gitBefore := gitInit(t, root)
	h := start(t, setup{profile: lsptest.Plugin(), root: root, opts: map[string]any{"approvalMode": "yolo"}, env: []string{"HOME=" + checkpointingHome(t, root)}}, restoreTurns("notes.txt")...)

	res := h.prompt(map[string]any{"prompt": "write the notes"})
	if res.StopReason != "end_turn" {
		t.Fatalf("prompt: %+v", res)
	}
	id := res.SessionID
	if _, err := os.Stat(h.path("victim.txt")); err == nil {
		t.Fatal("the shell command did not delete victim.txt")
	}
	list := h.prompt(map[string]any{"prompt": "/restore", "sessionId": id})
	name := checkpointName.FindString(list.Text)
	if name == "" {
		t.Fatalf("/restore answered %q; want the checkpoint listed", list.Text)
	}

	edits := len(h.client.Messages("workspace/applyEdit"))
	restored := h.prompt(map[string]any{"prompt": "/restore " + name, "sessionId": id})
	if n := len(h.client.Messages("workspace/applyEdit")) - edits; n != 1 {
		t.Errorf("%d applyEdits for the restore, want one", n)
	}
	if got, open := h.client.Buffer(h.path("victim.txt")); !open || got != victim {
		if data, err := os.ReadFile(h.path("victim.txt")); err != nil || string(data) != victim {
			t.Errorf("victim.txt after the restore: buffer %q (open %v), disk %q (%v); want %q", got, open, data, err, victim)
		}
	}
	if _, err := os.Stat(h.path("notes.txt")); err == nil {
		t.Error("notes.txt, created after the checkpoint, is still there")
	}
	if !strings.Contains(restored.Text, "Restored the conversation") || !strings.Contains(restored.Text, "`write_file` of `notes.txt`") {
		t.Errorf("/restore answered %q", restored.Text)
	}

	h.prompt(map[string]any{"prompt": "again", "sessionId": id})
	reqs := h.model.Requests()
	got := strings.Join(wholeTexts(reqs[len(reqs)-1].Contents), "|")
	if !strings.Contains(got, "write the notes") || strings.Contains(got, "model: done") || !strings.HasSuffix(got, "again") {
		t.Errorf("the request after the restore holds %q; want the prompt before the call, not what followed", got)
	}
	wantUntouched(t, root, gitBefore)
}

// Over ACP with approvals: the edit and the command are allowed when
// asked; "/restore <name>" asks ONE permission for every file, then
// victim.txt is back byte for byte, notes.txt gone, and the conversation
// is back to the moment of the call.
func TestRestoreOverACP(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"general": {"checkpointing": {"enabled": true}}}`})
	h := startACP(t, acpSetup{files: map[string]string{"victim.txt": victim}, home: home, env: trustTheWorkspace(), cfg: acptest.Config{Answer: func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.AllowOnce }}},
		restoreTurns("notes.txt")...)
	gitBefore := gitInit(t, h.root)
	h.mustPrompt("write the notes", sdk.StopReasonEndTurn)
	if _, err := os.Stat(h.path("victim.txt")); err == nil {
		t.Fatal("the shell command did not delete victim.txt")
	}
	name := checkpointName.FindString(h.command("/restore"))
	if name == "" {
		t.Fatal("/restore did not list the checkpoint")
	}
	asked := len(h.client.Permissions())
	msg := h.command("/restore " + name)
	h.wantDisk("victim.txt", victim)
	if _, err := os.Stat(h.path("notes.txt")); err == nil {
		t.Error("notes.txt, created after the checkpoint, is still there")
	}
	var titles []string
	for _, p := range h.client.Permissions()[asked:] {
		titles = append(titles, *p.ToolCall.Title)
	}
	if len(titles) != 1 || !strings.HasPrefix(titles[0], "Restore the files to checkpoint "+name+" (2 files)") {
		t.Errorf("permission requests %q, want one for the restore", titles)
	}
	if !strings.Contains(msg, "Restored the conversation") {
		t.Errorf("/restore answered %q", msg)
	}
	h.mustPrompt("again", sdk.StopReasonEndTurn)
	reqs := h.model.Requests()
	got := strings.Join(wholeTexts(reqs[len(reqs)-1].Contents), "|")
	if !strings.Contains(got, "write the notes") || strings.Contains(got, "model: done") || !strings.HasSuffix(got, "again") {
		t.Errorf("the request after the restore holds %q", got)
	}
	wantUntouched(t, h.root, gitBefore)
}
