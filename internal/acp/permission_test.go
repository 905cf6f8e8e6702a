package acp

import (
	"errors"
	"fmt"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/osshell"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

func TestConfirmText(t *testing.T) {
	for _, c := range []struct {
		req  dialog.ConfirmRequest
		want string
	}{
		{dialog.ConfirmRequest{Kind: "execute", Title: "Allow shell command?", Details: "echo hi\n"}, "Allow shell command?\n\n```sh\necho hi\n```"},
		// A fence is longer than any backtick run in what it holds.
		{dialog.ConfirmRequest{Kind: "execute", Title: "Q", Details: "echo ```x``` `y`"}, "Q\n\n````sh\necho ```x``` `y`\n````"},
		{dialog.ConfirmRequest{Kind: dialog.ConfirmMCP, Title: "Allow MCP tool?", Details: `{"a":1}`}, "Allow MCP tool?\n\n```json\n{\"a\":1}\n```"},
		{dialog.ConfirmRequest{Kind: "fetch", Title: "Allow fetching these URLs?", Details: "https://a\nhttps://b"}, "Allow fetching these URLs?\n\n```\nhttps://a\nhttps://b\n```"},
		{dialog.ConfirmRequest{Kind: dialog.ConfirmModelFallback, Title: "Switch?", Details: "Out of quota."}, "Switch?\n\nOut of quota."},
		{dialog.ConfirmRequest{Kind: "execute", Title: "Nothing to show"}, "Nothing to show"},
	} {
		if got := confirmText(c.req); got != c.want {
			t.Errorf("confirmText(%+v) = %q, want %q", c.req, got, c.want)
		}
	}
}

func TestClientError(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{sdk.NewInternalError(map[string]any{"error": "no such buffer"}), "Internal error: no such buffer"},
		{sdk.NewInternalError(map[string]any{"details": "disk full"}), "Internal error: disk full"},
		{&sdk.RequestError{Code: -32000, Message: "Refused", Data: "read-only"}, "Refused: read-only"},
		{&sdk.RequestError{Code: -32603, Message: "Internal error"}, `{"code":-32603,"message":"Internal error"}`},
		{fmt.Errorf("sending: %w", errors.New("broken pipe")), "sending: broken pipe"},
	} {
		if got := clientError(c.err); got != c.want {
			t.Errorf("clientError(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestEditTitle(t *testing.T) {
	sess := &session{cwd: "/w"}
	for _, c := range []struct {
		change workspace.FileChange
		want   string
	}{
		{workspace.FileChange{Path: "/w/a/b.go", Exists: true, Before: "1\n2\n", After: "1\n3\n4\n"}, "Edit a/b.go (+2 −1)"},
		{workspace.FileChange{Path: "/w/new.txt", After: "x\ny\n"}, "Create new.txt (+2 −0)"},
		{workspace.FileChange{Path: "/elsewhere/c", Exists: true, Before: "a\n", After: ""}, "Edit /elsewhere/c (+0 −1)"},
	} {
		if got := sess.editTitle(c.change); got != c.want {
			t.Errorf("editTitle(%+v) = %q, want %q", c.change, got, c.want)
		}
	}
}

func TestDiffContent(t *testing.T) {
	d := diffContent(workspace.FileChange{Path: "/w/a", Exists: true, Before: "x\r\n", After: "y\r\n"}).Diff
	if d == nil || d.Type != "diff" || d.Path != "/w/a" || d.OldText == nil || *d.OldText != "x\r\n" || d.NewText != "y\r\n" {
		t.Errorf("diff of an existing file %+v", d)
	}
	d = diffContent(workspace.FileChange{Path: "/w/b", After: "new"}).Diff
	if d == nil || d.OldText != nil || d.NewText != "new" {
		t.Errorf("diff of a new file %+v, want no old text", d)
	}
}

// A permission request's title says what is asked about, for clients
// that show it alone: a shell call's command, a web fetch's URLs.
func TestPermissionTitle(t *testing.T) {
	sess := &session{}
	for _, c := range []struct {
		req   dialog.ConfirmRequest
		shown dialog.ToolCall
		want  string
	}{
		{*shellRequest("go test ./..."), dialog.ToolCall{Name: "run_shell_command", Title: "Shell go test ./..."}, "go test ./..."},
		{dialog.ConfirmRequest{Kind: dialog.ConfirmFetch, Title: "Allow fetching these URLs?", Details: "https://a\nhttps://b", Subject: "Fetch https://a, https://b"}, dialog.ToolCall{Name: "web_fetch"}, "Fetch https://a, https://b"},
	} {
		if got := sess.permissionTitle(c.req, c.shown); got != c.want {
			t.Errorf("permissionTitle(%+v) = %q, want %q", c.req, got, c.want)
		}
	}
}

// shellRequest is the question the agent puts about a shell command, from
// the shell tool's own confirmation.
func shellRequest(command string) *dialog.ConfirmRequest {
	c := tools.ShellConfirmation(osshell.Bash, command)
	return &dialog.ConfirmRequest{Kind: c.Kind, Title: c.Title, Details: c.Details, Subject: c.Subject}
}
