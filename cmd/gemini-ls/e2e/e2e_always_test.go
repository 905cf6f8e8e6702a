package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/lsp/lsptest"
)

// "Always allow" is offered only where it holds: a shell command that
// Always Allow cannot cover (it writes to a file) asks every time and is
// offered no "always"; a coverable one is, and choosing it lets the next
// command of the same name run without asking.
const (
	uncoverable = "echo ran > ran.txt"
	coverable   = "echo one"
	coveredNext = "echo two"
)

// twoShellCalls are the turns of a model that runs first, then second.
func twoShellCalls(first, second string) []geminitest.Turn {
	return []geminitest.Turn{
		call("run_shell_command", map[string]any{"command": first}),
		call("run_shell_command", map[string]any{"command": second}),
		geminitest.TextTurn("ran both"),
	}
}

func TestACPAlwaysAllowOnlyWhereItHolds(t *testing.T) {
	// The client always picks "always" when it is offered.
	alwaysIfOffered := acptest.Config{Answer: func(p sdk.RequestPermissionRequest) acptest.Answer {
		for _, o := range p.Options {
			if o.Kind == sdk.PermissionOptionKindAllowAlways {
				return acptest.AllowAlways
			}
		}
		return acptest.AllowOnce
	}}
	t.Run("a command always cannot cover", func(t *testing.T) {
		h := startACP(t, acpSetup{cfg: alwaysIfOffered}, twoShellCalls(uncoverable, uncoverable)...)
		h.mustPrompt("run it twice", sdk.StopReasonEndTurn)
		perms := h.client.Permissions()
		if len(perms) != 2 {
			t.Fatalf("%d permission requests, want one for each run", len(perms))
		}
		for _, p := range perms {
			if got := optionKinds(p); got != "allow_once=proceed_once,reject_once=cancel" {
				t.Errorf("options %s, want no allow_always", got)
			}
		}
		h.wantDisk("ran.txt", "ran\n")
	})
	t.Run("a command always covers", func(t *testing.T) {
		h := startACP(t, acpSetup{cfg: alwaysIfOffered}, twoShellCalls(coverable, coveredNext)...)
		h.mustPrompt("run both", sdk.StopReasonEndTurn)
		perms := h.client.Permissions()
		if len(perms) != 1 {
			t.Fatalf("%d permission requests, want one: the second echo was allowed always", len(perms))
		}
		if got := optionKinds(perms[0]); got != "allow_once=proceed_once,allow_always=proceed_always,reject_once=cancel" {
			t.Errorf("options %s", got)
		}
		if out, errText := h.result(2); !strings.Contains(out, "Output: two") || errText != "" {
			t.Errorf("the second command: output %q, error %q", out, errText)
		}
	})
}

// confirmations answers gemini/confirm with proceed_always and keeps the
// params it was asked with.
type confirmations struct {
	mu     sync.Mutex
	params []map[string]any
}

func (c *confirmations) answer(_ context.Context, raw json.RawMessage) string {
	var p map[string]any
	_ = json.Unmarshal(raw, &p)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.params = append(c.params, p)
	return "proceed_always"
}

func (c *confirmations) asked() []map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.params
}

// actionsAsked answers window/showMessageRequest with Always Allow when it
// is offered, else Allow Once, and keeps the actions it was offered.
type actionsAsked struct {
	mu      sync.Mutex
	actions []string
}

func (a *actionsAsked) answer(_ string, actions []string) string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.actions = append(a.actions, strings.Join(actions, ","))
	if strings.Contains(a.actions[len(a.actions)-1], "Always Allow") {
		return "Always Allow"
	}
	return "Allow Once"
}

func (a *actionsAsked) asked() []string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.actions
}

func TestLSPAlwaysAllowOnlyWhereItHolds(t *testing.T) {
	for _, pl := range plugins {
		t.Run("gemini/confirm/"+pl.profile().Name+"/a command always cannot cover", func(t *testing.T) {
			var c confirmations
			h := start(t, setup{profile: pl.profile()}, twoShellCalls(uncoverable, uncoverable)...)
			h.client.OnConfirm = c.answer
			h.prompt(map[string]any{"prompt": "run it twice"})
			// proceed_always, answered anyway, allowed the run once.
			if asked := c.asked(); len(asked) != 2 || asked[0]["canAllowAlways"] != false || asked[1]["canAllowAlways"] != false {
				t.Errorf("gemini/confirm asked %v, want twice with canAllowAlways false", asked)
			}
		})
		t.Run("gemini/confirm/"+pl.profile().Name+"/a command always covers", func(t *testing.T) {
			var c confirmations
			h := start(t, setup{profile: pl.profile()}, twoShellCalls(coverable, coveredNext)...)
			h.client.OnConfirm = c.answer
			h.prompt(map[string]any{"prompt": "run both"})
			if asked := c.asked(); len(asked) != 1 || asked[0]["canAllowAlways"] != true {
				t.Errorf("gemini/confirm asked %v, want once with canAllowAlways true", asked)
			}
			contains(t, "the second command's output", h.toolOutputs(2)[0], "Output: two")
		})
	}
	t.Run("showMessageRequest/a command always cannot cover", func(t *testing.T) {
		var a actionsAsked
		h := start(t, setup{profile: lsptest.VSCode()}, twoShellCalls(uncoverable, uncoverable)...)
		h.client.OnShowMessageRequest = a.answer
		h.prompt(map[string]any{"prompt": "run it twice"})
		if asked := a.asked(); strings.Join(asked, " | ") != "Allow Once,Reject | Allow Once,Reject" {
			t.Errorf("asked with %q, want twice without Always Allow", asked)
		}
	})
	t.Run("showMessageRequest/a command always covers", func(t *testing.T) {
		var a actionsAsked
		h := start(t, setup{profile: lsptest.VSCode()}, twoShellCalls(coverable, coveredNext)...)
		h.client.OnShowMessageRequest = a.answer
		h.prompt(map[string]any{"prompt": "run both"})
		if asked := a.asked(); strings.Join(asked, " | ") != "Allow Once,Always Allow,Reject" {
			t.Errorf("asked with %q, want once with Always Allow", asked)
		}
		contains(t, "the second command's output", h.toolOutputs(2)[0], "Output: two")
	})
}
