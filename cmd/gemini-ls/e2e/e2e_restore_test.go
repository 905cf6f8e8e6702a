package e2e

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// The restore tests' files: victim.txt, which a shell command deletes
// after the checkpoint, with CRLF line endings to check its exact bytes,
// and run.sh, an executable script the command deletes too.
const (
	victim = "the victim\r\nsecond line\r\n"
	script = "#!/bin/sh\necho run\n"
)

func restoreFiles() map[string]string {
	return map[string]string{"victim.txt": victim, "run.sh": script}
}

// makeScriptExecutable makes root/run.sh executable, as the user had it.
func makeScriptExecutable(t *testing.T, root string) {
	t.Helper()
	if err := os.Chmod(filepath.Join(root, "run.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// wantExecutable fails unless path is executable.
func wantExecutable(t *testing.T, path string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm()&0o111 != 0o111 {
		t.Errorf("%s after the restore: %v, %v; want it executable again", path, fi.Mode(), err)
	}
}

// restoreTurns: one prompt whose model writes notes.txt (the checkpoint
// is taken before), then deletes victim.txt and run.sh with the shell,
// then answers; and the answers to the prompts after the restores.
func restoreTurns(notes string) []geminitest.Turn {
	return []geminitest.Turn{
		call("write_file", map[string]any{"file_path": notes, "content": "notes\n"}),
		call("run_shell_command", map[string]any{"command": "rm victim.txt run.sh"}),
		geminitest.TextTurn("done"),
		geminitest.TextTurn("after the restore"),
		geminitest.TextTurn("after the second restore"),
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
	return tree(t, filepath.Join(root, ".git"))
}

// tree is each regular file under dir, by its path, with its bytes; the
// directories skip are left out.
func tree(t *testing.T, dir string, skip ...string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return err
		case d.IsDir() && slices.Contains(skip, path):
			return filepath.SkipDir
		case !d.Type().IsRegular():
			return nil
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

// Headless: the write_file is checkpointed, the shell deletes victim.txt
// and the executable run.sh; in later runs /restore lists the checkpoint
// by Gemini CLI's name and "/restore <name>" brings victim.txt and run.sh
// back byte for byte, run.sh executable, removes notes.txt (created
// since), restores the conversation to the moment of the call and
// proposes the call again, as Gemini CLI does: in yolo it runs (notes.txt
// is written again) and the model is told it ran; restored again in the
// default mode, nobody can confirm the edit, so it does not run, notes.txt
// stays removed and the user and the model are told. The user's .git is
// untouched and no shadow repository is in the workspace.
func TestRestoreHeadless(t *testing.T) {
	h := newHeadless(t, restoreFiles(), restoreTurns("notes.txt")...)
	makeScriptExecutable(t, h.root)
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

	res := h.runIn(h.root, env, "run", "--approval-mode", "yolo", "-resume", "latest", "-p", "/restore "+name)
	res.wantExit(t, 0)
	if got := h.readFile("victim.txt"); got != victim {
		t.Errorf("victim.txt after the restore = %q, want %q", got, victim)
	}
	if got := h.readFile("run.sh"); got != script {
		t.Errorf("run.sh after the restore = %q, want %q", got, script)
	}
	wantExecutable(t, h.path("run.sh"))
	if got := h.readFile("notes.txt"); got != "notes\n" {
		t.Errorf("notes.txt after the call ran again = %q", got)
	}
	for _, want := range []string{"`" + h.path("victim.txt") + "`: restored", "`" + h.path("run.sh") + "`: restored", "`" + h.path("notes.txt") + "`: restored",
		"Restored the conversation", "`write_file` of `notes.txt`, which was proposed again and ran"} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("/restore %s printed %q, want %q", name, res.stdout, want)
		}
	}
	h.runIn(h.root, env, "run", "-resume", "latest", "-p", "again").wantExit(t, 0)
	reqs := h.model.Requests()
	last := reqs[len(reqs)-1].Contents
	got := strings.Join(contentTexts(last), "|")
	if !strings.Contains(got, "user: write the notes") || strings.Contains(got, "done") || !strings.HasSuffix(got, "user: again") {
		t.Errorf("the request after the restore holds %q; want the prompt before the call, not what followed", got)
	}
	if fr := functionResponses(last); len(fr) != 2 || !strings.Contains(fr[0], "did not run") || !strings.Contains(fr[1], "Successfully") {
		t.Errorf("the restored history answers the calls with %q; want the write_file answered as not run, then its run again", fr)
	}

	// In the default mode, nobody can confirm the edit proposed again.
	declined := h.runIn(h.root, env, "run", "-resume", "latest", "-p", "/restore "+name)
	declined.wantExit(t, 0)
	if _, err := os.Stat(h.path("notes.txt")); err == nil {
		t.Error("notes.txt is there though its call, proposed again, was not confirmed")
	}
	if !strings.Contains(declined.stdout, "proposed again and did not run") || !strings.Contains(declined.stdout, "stay as restored") {
		t.Errorf("/restore %s in the default mode printed %q; want the call said not to have run", name, declined.stdout)
	}
	h.runIn(h.root, env, "run", "-resume", "latest", "-p", "again").wantExit(t, 0)
	reqs = h.model.Requests()
	if fr := functionResponses(reqs[len(reqs)-1].Contents); len(fr) != 2 || !strings.Contains(fr[1], "not applied") {
		t.Errorf("after the declined call the model reads %q; want it told the call did not run", fr)
	}
	wantUntouched(t, h.root, gitBefore)
}

// Over LSP, in the default mode (edits previewed and confirmed in the
// editor, commands allowed when asked): the restore is ONE
// workspace/applyEdit that recreates victim.txt and run.sh with their
// exact text, run.sh executable on disk, and deletes notes.txt; then the
// write_file is proposed again as an edit of its own, which the user
// confirms (notes.txt is back); restored again, the user declines it,
// and notes.txt stays deleted.
func TestRestoreOverLSP(t *testing.T) {
	root := newRoot(t, restoreFiles())
	makeScriptExecutable(t, root)
	gitBefore := gitInit(t, root)
	h := start(t, setup{profile: lsptest.Plugin(), root: root, env: []string{"HOME=" + checkpointingHome(t, root)}}, restoreTurns("notes.txt")...)
	h.client.OnShowMessageRequest = func(string, []string) string { return "Allow Once" }
	rerun := lsptest.Accept
	var labels []string
	h.client.OnApplyEdit = func(ctx context.Context, e lsptest.Edit) lsptest.Answer {
		labels = append(labels, e.Label)
		if strings.HasPrefix(e.Label, "Gemini: Restore the files") {
			return lsptest.Accept(ctx, e)
		}
		return rerun(ctx, e)
	}

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

	labels = nil
	restored := h.prompt(map[string]any{"prompt": "/restore " + name, "sessionId": id})
	if len(labels) != 2 || !strings.HasPrefix(labels[0], "Gemini: Restore the files to checkpoint "+name) {
		t.Errorf("applyEdits %q; want one for the restore, then the call's", labels)
	}
	for file, want := range map[string]string{"victim.txt": victim, "run.sh": script, "notes.txt": "notes\n"} {
		if got, open := h.client.Buffer(h.path(file)); !open || got != want {
			t.Errorf("%s after the restore: buffer %q (open %v); want %q", file, got, open, want)
		}
	}
	if err := h.client.Save(h.ctx, h.path("run.sh")); err != nil {
		t.Fatal(err)
	}
	if data, err := os.ReadFile(h.path("run.sh")); err != nil || string(data) != script {
		t.Errorf("run.sh saved = %q, %v", data, err)
	}
	wantExecutable(t, h.path("run.sh"))
	if !strings.Contains(restored.Text, "Restored the conversation") || !strings.Contains(restored.Text, "`write_file` of `notes.txt`, which was proposed again and ran") {
		t.Errorf("/restore answered %q", restored.Text)
	}

	h.prompt(map[string]any{"prompt": "again", "sessionId": id})
	reqs := h.model.Requests()
	got := strings.Join(wholeTexts(reqs[len(reqs)-1].Contents), "|")
	if !strings.Contains(got, "write the notes") || strings.Contains(got, "model: done") || !strings.HasSuffix(got, "again") {
		t.Errorf("the request after the restore holds %q; want the prompt before the call, not what followed", got)
	}

	rerun = lsptest.Decline
	declined := h.prompt(map[string]any{"prompt": "/restore " + name, "sessionId": id})
	if _, open := h.client.Buffer(h.path("notes.txt")); open {
		t.Error("notes.txt is open though its call, proposed again, was declined")
	}
	if _, err := os.Stat(h.path("notes.txt")); err == nil {
		t.Error("notes.txt is there though its call, proposed again, was declined")
	}
	if !strings.Contains(declined.Text, "proposed again and did not run") {
		t.Errorf("/restore with the call declined answered %q", declined.Text)
	}
	wantUntouched(t, root, gitBefore)
}

// Over ACP with approvals: the edit and the command are allowed when
// asked; "/restore <name>" asks ONE permission for every file, then
// victim.txt and run.sh are back byte for byte, and the conversation is
// back to the moment of the call; the call is proposed again, asked
// about as any edit, and allowed: notes.txt is written again.
func TestRestoreOverACP(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".gemini/settings.json": `{"general": {"checkpointing": {"enabled": true}}}`})
	h := startACP(t, acpSetup{files: restoreFiles(), home: home, env: trustTheWorkspace(), cfg: acptest.Config{Answer: func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.AllowOnce }}},
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
	h.wantDisk("run.sh", script)
	h.wantDisk("notes.txt", "notes\n")
	var titles []string
	for _, p := range h.client.Permissions()[asked:] {
		titles = append(titles, *p.ToolCall.Title)
	}
	if len(titles) != 2 || !strings.HasPrefix(titles[0], "Restore the files to checkpoint "+name+" (3 files)") || !strings.Contains(titles[1], "notes.txt") {
		t.Errorf("permission requests %q, want one for the restore, then one for the call proposed again", titles)
	}
	if !strings.Contains(msg, "Restored the conversation") || !strings.Contains(msg, "proposed again and ran") {
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
