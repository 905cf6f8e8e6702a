package acp

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/models"
	"github.com/gemini-ls/gemini-ls/internal/platformtest"
)

// parkingServer is an in-process server whose sessions the test can
// look at, and a client of it.
type parkingServer struct {
	t     *testing.T
	ctx   context.Context
	s     *server
	c     *acptest.Client
	model *geminitest.Server
	root  string
}

func newParkingServer(t *testing.T, turns int) *parkingServer {
	t.Helper()
	var script []geminitest.Turn
	for range turns {
		script = append(script, geminitest.TextTurn("ok"))
	}
	model := geminitest.NewTestServer(t, script...)
	env := platformtest.HomeVars(map[string]string{"GOOGLE_GEMINI_BASE_URL": model.URL, "GEMINI_API_KEY": "key",
		"GEMINI_CLI_TRUST_WORKSPACE": "true", "GEMINI_MODEL": "gemini-2.5-pro"}, t.TempDir())
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	life, stop := context.WithCancel(ctx)
	s := newServer(life, Options{Getenv: func(k string) string { return env[k] }, Version: "test"})
	serverIn, clientOut := io.Pipe()
	clientIn, serverOut := io.Pipe()
	closeSDK := s.connect(serverIn, serverOut)
	t.Cleanup(func() {
		stop()
		_ = clientOut.Close()
		closeSDK()
		s.host.CloseAll()
	})
	c := acptest.New(t, clientOut, clientIn, acptest.Config{})
	if _, err := c.Initialize(ctx); err != nil {
		t.Fatal(err)
	}
	return &parkingServer{t: t, ctx: ctx, s: s, c: c, model: model, root: t.TempDir()}
}

func (p *parkingServer) open() sdk.SessionId {
	p.t.Helper()
	res, err := p.c.Conn.NewSession(p.ctx, sdk.NewSessionRequest{Cwd: p.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		p.t.Fatal(err)
	}
	return res.SessionId
}

func (p *parkingServer) prompt(id sdk.SessionId, text string) {
	p.t.Helper()
	r, err := p.c.Conn.Prompt(p.ctx, sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
	if err != nil || r.StopReason != sdk.StopReasonEndTurn {
		p.t.Fatalf("prompt %q: %+v, %v", text, r, err)
	}
}

// isParked says whether session id is parked: not live, and kept to be
// opened again.
func (p *parkingServer) isParked(id sdk.SessionId) bool {
	p.s.parkMu.Lock()
	defer p.s.parkMu.Unlock()
	_, live := p.s.host.Lookup(string(id))
	parked := p.s.parked.Has(string(id))
	return parked && !live
}

// A client that never closes its sessions (Zed keeps archived threads
// open) holds no more than MaxIdleSessions idle ones built: the least
// recently used are parked, their builds closed. A prompt to a parked
// session runs as if it had never left: its history comes back from
// disk, and its mode and model are those chosen before.
func TestIdleSessionsBeyondTheBoundAreParkedAndComeBackWhole(t *testing.T) {
	p := newParkingServer(t, MaxIdleSessions+4)
	var ids []sdk.SessionId
	for i := range MaxIdleSessions + 2 {
		id := p.open()
		if i == 0 {
			if _, err := p.c.Conn.SetSessionMode(p.ctx, sdk.SetSessionModeRequest{SessionId: id, ModeId: "autoEdit"}); err != nil {
				t.Fatal(err)
			}
			if _, err := p.c.Conn.UnstableSetSessionModel(p.ctx, sdk.UnstableSetSessionModelRequest{SessionId: id, ModelId: sdk.UnstableModelId(models.Gemini3FlashPreview)}); err != nil {
				t.Fatal(err)
			}
		}
		p.prompt(id, "first prompt of session "+string(rune('A'+i)))
		ids = append(ids, id)
	}
	for i, id := range ids {
		if want := i < 2; p.isParked(id) != want {
			t.Errorf("session %d of %d (least recently used first): parked %v, want %v", i, len(ids), !want, want)
		}
	}
	if n := len(p.s.host.Lives()); n != MaxIdleSessions {
		t.Errorf("%d sessions built, want %d", n, MaxIdleSessions)
	}

	p.prompt(ids[0], "second prompt")
	reqs := p.model.Requests()
	last := reqs[len(reqs)-1]
	if body := string(last.Body); !strings.Contains(body, "first prompt of session A") || !strings.Contains(body, "second prompt") {
		t.Errorf("the parked session's next request lacks its history:\n%s", body)
	}
	if last.Model != models.Gemini3FlashPreview {
		t.Errorf("the parked session's next request went to %s, not the model chosen before (%s)", last.Model, models.Gemini3FlashPreview)
	}
	l, ok := p.s.host.Lookup(string(ids[0]))
	if !ok {
		t.Fatal("the session prompted is not live")
	}
	if l.Mode() != dialog.ApprovalAutoEdit {
		t.Errorf("the session opened again is in mode %q, want %q, as chosen before", l.Mode(), dialog.ApprovalAutoEdit)
	}
	// Used last, it is live; the least recently used of the others took
	// its place among the parked.
	if !p.isParked(ids[2]) || p.isParked(ids[0]) {
		t.Errorf("after the parked session's prompt: session 0 parked %v, session 2 parked %v; want false, true", p.isParked(ids[0]), p.isParked(ids[2]))
	}

	// A parked session closes as a live one does, and is then unknown.
	if _, err := p.c.Conn.CloseSession(p.ctx, sdk.CloseSessionRequest{SessionId: ids[1]}); err != nil {
		t.Fatalf("closing a parked session: %v", err)
	}
	if _, err := p.c.Conn.Prompt(p.ctx, sdk.PromptRequest{SessionId: ids[1], Prompt: []sdk.ContentBlock{sdk.TextBlock("x")}}); err == nil || !strings.Contains(err.Error(), "no session") {
		t.Errorf("a prompt to a parked session closed since: %v, want unknown", err)
	}
}

// Sessions opened and never prompted are parked too (each holds a build
// and the MCP servers of it), and one prompted later starts as new, in
// the mode chosen for it.
func TestNeverPromptedSessionsAreParkedAndOpenAsNew(t *testing.T) {
	p := newParkingServer(t, 1)
	var ids []sdk.SessionId
	for i := range MaxIdleSessions + 3 {
		ids = append(ids, p.open())
		if i == 0 {
			if _, err := p.c.Conn.SetSessionMode(p.ctx, sdk.SetSessionModeRequest{SessionId: ids[0], ModeId: "autoEdit"}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if n := len(p.s.host.Lives()); n != MaxIdleSessions {
		t.Errorf("%d sessions built of %d opened, want %d", n, len(ids), MaxIdleSessions)
	}
	if !p.isParked(ids[0]) {
		t.Fatal("the first session opened is not parked")
	}
	p.prompt(ids[0], "hello")
	l, ok := p.s.host.Lookup(string(ids[0]))
	if !ok {
		t.Fatal("the session prompted is not live")
	}
	if l.Mode() != dialog.ApprovalAutoEdit {
		t.Errorf("the session opened again is in mode %q, want %q, as chosen before", l.Mode(), dialog.ApprovalAutoEdit)
	}
}

// A session a prompt holds is never parked, however many sessions open
// and end meanwhile.
func TestASessionInUseIsNotParked(t *testing.T) {
	p := newParkingServer(t, MaxIdleSessions+2)
	busy := p.open()
	sess, release, err := p.s.acquire(p.ctx, busy)
	if err != nil {
		t.Fatal(err)
	}
	for i := range MaxIdleSessions + 2 {
		p.prompt(p.open(), "prompt "+string(rune('A'+i)))
	}
	if p.isParked(busy) {
		t.Error("a session held by a request was parked")
	}
	release()
	if live, _ := p.s.lookup(busy); live != sess {
		t.Error("the session held is no longer the one live")
	}
}
