package acp

import (
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// renameOnDisk is a rename of greet to hello in two files of sess's
// directory, as rename_symbol's call_1 hands it over.
func renameOnDisk(t *testing.T, sess *session, ask bool) dialog.LandFilesRequest {
	t.Helper()
	req := dialog.LandFilesRequest{SessionID: sess.id, Title: "Rename greet to hello", CallID: "call_1", Ask: ask}
	ws, err := workspace.New([]string{sess.cwd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"a.go", "b.go"} {
		path := filepath.Join(sess.cwd, name)
		if err := os.WriteFile(path, []byte("package main\n\nfunc greet() {}\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		change, err := ws.PrepareChange(t.Context(), path, "package main\n\nfunc hello() {}\n")
		if err != nil {
			t.Fatal(err)
		}
		req.Changes = append(req.Changes, dialog.RevertChange{FileChange: change})
	}
	return req
}

func onDisk(t *testing.T, req dialog.LandFilesRequest) []string {
	t.Helper()
	var out []string
	for _, c := range req.Changes {
		b, err := os.ReadFile(c.Path)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	return out
}

// An edit call's change across files is asked about under the call's own
// id, with every file's diff, and no tool call of its own; allowed, each
// file lands and its diff stays with the call.
func TestLandFilesAsksAboutAnEditCallUnderItsID(t *testing.T) {
	sess, client := connectedSession(t)
	req := renameOnDisk(t, sess, true)
	ds, err := sess.newTurn().LandFiles(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range ds {
		if d.Outcome != dialog.Applied {
			t.Errorf("%s: %s (%s), want applied", req.Changes[i].Path, d.Outcome, d.Reason)
		}
	}
	perms := client.Permissions()
	if len(perms) != 1 {
		t.Fatalf("%d permission requests, want 1", len(perms))
	}
	p := perms[0].ToolCall
	if p.ToolCallId != "call_1" || p.Title == nil || *p.Title != req.Title || len(p.Content) != 2 || len(p.Locations) != 2 {
		t.Errorf("asked about %+v; want call_1, titled %q, with both files' diffs", p, req.Title)
	}
	if calls := client.ToolCalls(); len(calls) != 0 {
		t.Errorf("tool calls of their own %+v; the change is call_1's", calls)
	}
	if got := onDisk(t, req); got[0] != req.Changes[0].After || got[1] != req.Changes[1].After {
		t.Errorf("files hold %q, want the rename", got)
	}
	if got := len(sess.attached["call_1"]); got != 2 {
		t.Errorf("%d diffs attached to call_1, want 2", got)
	}
}

// An edit call the approval service allowed lands without a question.
func TestLandFilesOfAnAllowedEditCallAsksNobody(t *testing.T) {
	sess, client := connectedSession(t)
	req := renameOnDisk(t, sess, false)
	ds, err := sess.newTurn().LandFiles(t.Context(), req)
	if err != nil || ds[0].Outcome != dialog.Applied || ds[1].Outcome != dialog.Applied {
		t.Fatalf("decisions %+v, %v; want both applied", ds, err)
	}
	if perms := client.Permissions(); len(perms) != 0 {
		t.Errorf("asked %d times, want never", len(perms))
	}
	if got := onDisk(t, req); got[0] != req.Changes[0].After || got[1] != req.Changes[1].After {
		t.Errorf("files hold %q, want the rename", got)
	}
}

// Rejected, an edit call's change is declined as an edit is, and nothing
// is written.
func TestLandFilesOfARejectedEditCall(t *testing.T) {
	sess, _ := connectedSessionAnswering(t, func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.RejectOnce })
	req := renameOnDisk(t, sess, true)
	ds, err := sess.newTurn().LandFiles(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds {
		if d.Outcome != dialog.Declined || d.Reason != reasonRejected {
			t.Errorf("decision %+v, want declined: %s", d, reasonRejected)
		}
	}
	if got := onDisk(t, req); got[0] != req.Changes[0].Before || got[1] != req.Changes[1].Before {
		t.Errorf("files hold %q, want them untouched", got)
	}
}
