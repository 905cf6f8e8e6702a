package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"go.lsp.dev/uri"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// foldersChanged sends workspace/didChangeWorkspaceFolders adding and
// removing the directories named.
func (h *harness) foldersChanged(added, removed []string) {
	h.t.Helper()
	folders := func(dirs []string) []map[string]string {
		out := []map[string]string{}
		for _, d := range dirs {
			out = append(out, map[string]string{"uri": string(uri.File(d)), "name": filepath.Base(d)})
		}
		return out
	}
	if err := h.client.Notify(h.ctx, "workspace/didChangeWorkspaceFolders", map[string]any{"event": map[string]any{"added": folders(added), "removed": folders(removed)}}); err != nil {
		h.t.Fatal(err)
	}
}

// initialize declares that the server wants workspace folder changes; a
// folder the editor adds is asked about (trust) at the next prompt, and
// its GEMINI.md then reaches that prompt's request.
func TestAddedWorkspaceFolderIsAskedAboutAndItsMemoryRead(t *testing.T) {
	h := start(t, setup{profile: lsptest.Plugin()}, geminitest.TextTurn("one"), geminitest.TextTurn("two"))
	var caps struct {
		Workspace struct {
			WorkspaceFolders struct {
				Supported           bool `json:"supported"`
				ChangeNotifications bool `json:"changeNotifications"`
			} `json:"workspaceFolders"`
		} `json:"workspace"`
	}
	raw, _ := json.Marshal(h.initialized["capabilities"])
	if err := json.Unmarshal(raw, &caps); err != nil || !caps.Workspace.WorkspaceFolders.Supported || !caps.Workspace.WorkspaceFolders.ChangeNotifications {
		t.Errorf("initialize's workspace capability: %s (%v)", raw, err)
	}
	var asked []string
	h.client.OnTrust = func(message string) string {
		asked = append(asked, message)
		return "Trust folder"
	}
	first := h.prompt(map[string]any{"prompt": "hello"})
	added := newRoot(t, map[string]string{"GEMINI.md": "FOLDER-B-MEMORY\n"})
	h.foldersChanged([]string{added}, nil)
	h.prompt(map[string]any{"prompt": "again", "sessionId": first.SessionID})
	if len(asked) != 2 || !strings.Contains(asked[1], added) {
		t.Errorf("trust asked %q, want the root's then %s's", asked, added)
	}
	reqs := h.model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests", len(reqs))
	}
	// The memory the prompt gives: the second's, a part of its content.
	memory := func(i int) string {
		contents := reqs[i].Contents
		return givenMemory(geminitest.Request{Contents: contents[len(contents)-1:]})
	}
	if strings.Contains(string(reqs[0].Body), "FOLDER-B-MEMORY") || !strings.Contains(memory(1), "FOLDER-B-MEMORY") {
		t.Errorf("the added folder's GEMINI.md: in the first request %v, with the second prompt %v", strings.Contains(string(reqs[0].Body), "FOLDER-B-MEMORY"), strings.Contains(memory(1), "FOLDER-B-MEMORY"))
	}
	if system := systemText(t, reqs, 1); !strings.Contains(system, added) {
		t.Errorf("the second request's workspace directories do not name %s", added)
	}
}

// A folder the editor removes while the user is asked about a write into
// it is out of reach at once: the write is refused as it would land, the
// model is told why, and nothing is written.
func TestRemovedWorkspaceFolderRefusesAWriteMidTurn(t *testing.T) {
	other := newRoot(t, nil)
	target := filepath.Join(other, "new.txt")
	h := start(t, setup{profile: lsptest.Eglot(), env: []string{"GEMINI_CLI_TRUST_WORKSPACE=true"}},
		geminitest.CallTurn(geminitest.Call("write_file", map[string]any{"file_path": target, "content": "from the model\n"})),
		geminitest.TextTurn("done"))
	h.foldersChanged([]string{other}, nil)
	var questions []string
	h.client.OnShowMessageRequest = func(message string, actions []string) string {
		questions = append(questions, message)
		h.foldersChanged(nil, []string{other}) // while the user reads the question
		return actions[0]
	}
	res := h.prompt(map[string]any{"prompt": "write it"})
	if res.Text != "done" || len(questions) != 1 {
		t.Fatalf("the prompt = %+v, questions %q", res, questions)
	}
	if _, err := os.Stat(target); !os.IsNotExist(err) {
		t.Errorf("the file was written in the removed folder: %v", err)
	}
	if n := len(h.client.Messages("workspace/applyEdit")); n != 0 {
		t.Errorf("%d workspace/applyEdit sent for the removed folder", n)
	}
	reqs := h.model.Requests()
	told := functionResponses(reqs[len(reqs)-1].Contents)
	if !slices.ContainsFunc(told, func(s string) bool { return strings.Contains(s, "removed from the editor's workspace folders") }) {
		t.Errorf("the model was told %q", told)
	}
}
