package agent_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/apierror"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// A turn the API refuses ends with the refusal said for the user
// (apierror), in the result and in the error event alike; the SDK's
// error stays beneath it for errors.As.
func TestAPIErrorEndsTheTurnInASentence(t *testing.T) {
	srv := geminitest.NewTestServer(t, geminitest.InvalidAPIKey())
	a, _ := newAgent(t, srv, agent.Config{AuthType: "gemini-api-key"})
	res, evs := prompt(t, a.NewSession(), "hi")
	e, ok := errors.AsType[*apierror.Error](res.Err)
	if res.StopReason != dialog.StopError || !ok || e.Kind != apierror.InvalidKey {
		t.Fatalf("result = %+v, want an invalid key's *apierror.Error", res)
	}
	if got := only[dialog.ErrorEvent](evs); len(got) != 1 || got[0].Err.Error() != e.Sentence {
		t.Errorf("error events = %+v, want the sentence", got)
	}
	if strings.Contains(e.Sentence, "map[") || !strings.Contains(apierror.Raw(res.Err).Error(), "API_KEY_INVALID") {
		t.Errorf("sentence %q, raw %v", e.Sentence, apierror.Raw(res.Err))
	}
}

// An @ reference to nothing is told the user in a notice, as the model is.
func TestMissingReferenceIsANotice(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "here.txt"), []byte("present\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := workspace.New([]string{root}, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv := geminitest.NewTestServer(t, geminitest.TextTurn("ok"))
	a, _ := newAgent(t, srv, agent.Config{Workspace: ws})
	_, evs := prompt(t, a.NewSession(), "@no-such-file.txt explain @here.txt")
	notices := only[dialog.NoticeEvent](evs)
	if len(notices) != 1 || notices[0].Text != "@no-such-file.txt was not attached: no file or directory in the workspace matches it." {
		t.Errorf("notices = %+v", notices)
	}
}
