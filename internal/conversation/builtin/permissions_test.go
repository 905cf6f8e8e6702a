package builtin_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// answerTrust answers the trust question with level, recording what was
// asked.
type answerTrust struct {
	level string
	asked []dialog.TrustRequest
}

func (a *answerTrust) AskTrust(_ context.Context, req dialog.TrustRequest) (string, error) {
	a.asked = append(a.asked, req)
	return a.level, nil
}

// /permissions trust asks about the folder named (~ and relative paths as
// the user writes them; the workspace when none) and records the answer;
// "Don't trust" where the environment trusts says the folder stays so; a
// dismissed question changes nothing; where nobody can be asked it trusts
// the folder; what is not a directory is refused in Gemini CLI's words.
func TestPermissionsTrust(t *testing.T) {
	h := newHarness(t)
	delete(h.env, "GEMINI_CLI_TRUST_WORKSPACE")
	file := filepath.Join(h.home, ".gemini", "trustedFolders.json")
	docs := filepath.Join(h.home, "docs")
	h.write(filepath.Join(docs, "d.md"), "# d\n")
	env := h.conversation()
	ask := &answerTrust{level: settings.TrustParent}
	env.Trust = ask

	out := h.answer(env, "/permissions trust")
	if len(ask.asked) != 1 || ask.asked[0].Folder != h.root || ask.asked[0].SessionID != env.Session.ID() {
		t.Fatalf("asked %+v, want the workspace's root in the session", ask.asked)
	}
	for _, want := range []string{"Folder: " + h.root, "Trust level: TRUST_PARENT", "applies from the next prompt"} {
		if !strings.Contains(out, want) {
			t.Errorf("/permissions trust said %q, want %q", out, want)
		}
	}
	if !env.Built.TrustChanged() {
		t.Error("the workspace's trust did not change")
	}

	ask.level = settings.DoNotTrust
	sub := filepath.Join(h.root, "sub")
	h.write(filepath.Join(sub, "x"), "x")
	h.env["GEMINI_CLI_TRUST_WORKSPACE"] = "true"
	if out := h.answer(env, "/permissions trust sub"); !strings.Contains(out, "still trusted") || ask.asked[1].Folder != sub {
		t.Errorf("/permissions trust sub said %q, asked about %s", out, ask.asked[1].Folder)
	}
	delete(h.env, "GEMINI_CLI_TRUST_WORKSPACE")

	ask.level = ""
	before, _ := os.ReadFile(file)
	if out := h.answer(env, "/permissions trust ~/docs"); !strings.Contains(out, "was not changed") || ask.asked[2].Folder != docs {
		t.Errorf("dismissed: %q, asked about %s", out, ask.asked[2].Folder)
	}
	if after, _ := os.ReadFile(file); string(after) != string(before) {
		t.Errorf("a dismissed question changed the file:\n%s", after)
	}

	env.Trust = nil
	if out := h.answer(env, "/permissions trust ~/docs"); !strings.Contains(out, "cannot show the trust question") || !strings.Contains(out, "TRUST_FOLDER") {
		t.Errorf("nobody to ask: %q", out)
	}
	want := "{\n  " + trustKey(h.root) + ": \"TRUST_PARENT\",\n  " + trustKey(sub) + ": \"DO_NOT_TRUST\",\n  " + trustKey(docs) + ": \"TRUST_FOLDER\"\n}"
	if got, _ := os.ReadFile(file); string(got) != want {
		t.Errorf("trustedFolders.json:\n%s\nwant\n%s", got, want)
	}

	if err := h.fails(env, "/permissions trust d.md"); !strings.Contains(err.Error(), "Error accessing path") {
		t.Errorf("a missing path: %v", err)
	}
	if err := h.fails(env, "/permissions trust ~/docs/d.md"); !strings.Contains(err.Error(), "Path is not a directory: "+filepath.Join(docs, "d.md")) {
		t.Errorf("a file: %v", err)
	}
}

// trustKey is folder as trustedFolders.json writes its key: lower-cased
// where file names ignore case (macOS, Windows), as 0.61's normalizePath
// has it, and JSON-quoted.
func trustKey(folder string) string {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		folder = strings.ToLower(folder)
	}
	return strconv.Quote(folder)
}
