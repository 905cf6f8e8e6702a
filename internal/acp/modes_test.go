package acp

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// The modes have Gemini CLI's ids (its ApprovalMode values); the
// settings' spelling of auto edit is taken too.
func TestModeIDs(t *testing.T) {
	for id, want := range map[string]dialog.ApprovalMode{
		"default":   dialog.ApprovalDefault,
		"autoEdit":  dialog.ApprovalAutoEdit,
		"auto_edit": dialog.ApprovalAutoEdit,
		"yolo":      dialog.ApprovalYolo,
		"plan":      dialog.ApprovalPlan,
	} {
		m, ok := modeByID(id)
		if !ok || m.mode != want {
			t.Errorf("modeByID(%q) = %+v, %v", id, m, ok)
		}
	}
	for _, id := range []string{"", "Plan", "YOLO", "auto"} {
		if _, ok := modeByID(id); ok {
			t.Errorf("modeByID(%q) found a mode", id)
		}
	}
	for _, m := range approvalModes {
		if modeOf(m.mode).id != m.id {
			t.Errorf("modeOf(%s) = %s", m.mode, modeOf(m.mode).id)
		}
	}
	if modeOf("strange").id != "default" {
		t.Error("an unknown approval mode is not shown as default")
	}
}

// A plan is sent as the session's plan by its list items, bullets and
// numbers alike; a plan without a list is one entry.
func TestPlanItems(t *testing.T) {
	got := planItems("# Plan\n\nWhy.\n\n1. Add the flag.\n2. Test it.\n   - check the help\n* Ship\n")
	want := []string{"Add the flag.", "Test it.", "check the help", "Ship"}
	if !slices.Equal(got, want) {
		t.Errorf("planItems = %q, want %q", got, want)
	}
	if got := planItems("  Just do it.\n"); !slices.Equal(got, []string{"Just do it."}) {
		t.Errorf("a plan without a list: %q", got)
	}
}

// A folder that is not trusted runs in the default mode: session/set_mode
// refuses a mode that allows more, saying why, and takes plan.
func TestSetModeInAFolderNotTrusted(t *testing.T) {
	model := geminitest.NewTestServer(t)
	home, root := t.TempDir(), t.TempDir()
	env := platformtest.HomeVars(map[string]string{"GOOGLE_GEMINI_BASE_URL": model.URL, "GEMINI_API_KEY": "test-key", "GEMINI_CLI_TRUST_WORKSPACE": "false",
		"GEMINI_MODEL": "gemini-2.5-pro"}, home)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, stop := serveInProcess(ctx, t, env)
	res, err := c.Conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: root, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	_, err = c.Conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: res.SessionId, ModeId: "yolo"})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != -32602 {
		t.Fatalf("yolo in a folder not trusted: %v, want invalid params", err)
	}
	const want = "the yolo mode cannot be chosen here: as in Gemini CLI, a folder that is not trusted runs in the default mode: "
	if why, _ := re.Data.(map[string]any)["error"].(string); !strings.HasPrefix(why, want) || len(why) == len(want) {
		t.Errorf("the refusal says %q, want %q and why", why, want+"…")
	}
	if _, err := c.Conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: res.SessionId, ModeId: "default"}); err != nil {
		t.Errorf("default in a folder not trusted: %v", err)
	}
	if err := stop(); err != nil {
		t.Errorf("Serve: %v", err)
	}
}
