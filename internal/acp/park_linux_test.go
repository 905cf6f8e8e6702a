package acp

import (
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// A session's workspace is its own: once the session is closed or
// parked, nothing of the server stays open on its folder, however long
// the collector waits.
func TestAClosedOrParkedSessionHoldsNothingOpenOnItsFolder(t *testing.T) {
	p := newParkingServer(t, 0)
	p.model.Push(
		geminitest.CallTurn(geminitest.Call("list_directory", map[string]any{"dir_path": "."})), geminitest.TextTurn("listed"),
		geminitest.CallTurn(geminitest.Call("list_directory", map[string]any{"dir_path": "."})), geminitest.TextTurn("listed"))
	root, err := filepath.EvalSymlinks(p.root)
	if err != nil {
		t.Fatal(err)
	}
	closed := p.open()
	p.prompt(closed, "list it")
	if platformtest.OpenOn(t, root) == 0 {
		t.Fatal("the session listed its folder and keeps nothing open on it: nothing to check")
	}
	if _, err := p.c.Conn.CloseSession(p.ctx, sdk.CloseSessionRequest{SessionId: closed}); err != nil {
		t.Fatal(err)
	}
	if n := platformtest.OpenOn(t, root); n != 0 {
		t.Errorf("%d descriptors open on the folder of a closed session", n)
	}

	parked := p.open()
	p.prompt(parked, "list it")
	for range MaxIdleSessions {
		p.open()
	}
	if !p.isParked(parked) {
		t.Fatal("the session was not parked")
	}
	if n := platformtest.OpenOn(t, root); n != 0 {
		t.Errorf("%d descriptors open on the folder of a parked session (the sessions open since never listed it)", n)
	}
}
