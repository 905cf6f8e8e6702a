package hooks

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
)

// The GEMINI_ variables are quoted for the shell that runs the hook.
func TestExpandQuotesForTheShell(t *testing.T) {
	r := &Runner{cfg: Config{ProjectDir: `C:\My Project`}}
	ev := agent.HookEvent{SessionID: "s-1"}
	for kind, want := range map[osshell.Kind]string{
		osshell.Bash:       `cd 'C:\My Project' s-1`,
		osshell.PowerShell: `cd 'C:\My Project' s-1`,
		osshell.Cmd:        `cd "C:\My Project" s-1`,
	} {
		if got := r.expand(osshell.Shell{Kind: kind}, "cd $GEMINI_PROJECT_DIR $GEMINI_SESSION_ID", ev); got != want {
			t.Errorf("%v: %s, want %s", kind, got, want)
		}
	}
	r.cfg.ProjectDir = `C:\it's`
	if got := r.expand(osshell.Shell{Kind: osshell.PowerShell}, "cd $GEMINI_CWD", ev); got != `cd 'C:\it''s'` {
		t.Errorf("powershell: %s", got)
	}
}
