package manage

import (
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/tools/mcp"
)

// A server mcp list shows Disconnected is told why: the error of the
// attempt, or how long it was waited for.
func TestNotConnectedSaysWhy(t *testing.T) {
	for _, tc := range []struct {
		name   string
		st     mcp.ServerStatus
		server settings.MCPServer
		want   string
	}{
		{"connected", mcp.ServerStatus{Name: "s", State: mcp.StateReady}, settings.MCPServer{}, ""},
		{"failed", mcp.ServerStatus{Name: "s", State: mcp.StateFailed, Error: "connecting: fork/exec /x: no such file or directory"}, settings.MCPServer{},
			"connecting: fork/exec /x: no such file or directory"},
		{"slow, its own timeout", mcp.ServerStatus{Name: "s", State: mcp.StateStarting}, settings.MCPServer{Timeout: 300},
			"did not answer within 300ms, its timeout (mcpServers.s.timeout)"},
		{"slow, no timeout", mcp.ServerStatus{Name: "s", State: mcp.StateStarting}, settings.MCPServer{},
			"did not answer within 5s, as long as mcp list waits for a server without a timeout (mcpServers.s.timeout)"},
		{"sign-in", mcp.ServerStatus{Name: "s", State: mcp.StateUnauthenticated}, settings.MCPServer{}, "needs a sign-in: run /mcp auth s in a session"},
		{"stopped, nothing said", mcp.ServerStatus{Name: "s", State: mcp.StateStopped}, settings.MCPServer{}, "stopped"},
	} {
		if got := notConnected(tc.st, tc.server, 5*time.Second); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
