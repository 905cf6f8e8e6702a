package acp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// session is one ACP session: an agent built for its cwd, and the agent
// session the client's prompts go to.
type session struct {
	srv *server
	id  string
	cwd string
	ws  *workspace.Workspace
	log *zap.Logger
	// reverts numbers the rewinds' reverts, for their tool call ids.
	reverts atomic.Int64
	// backgroundIDs numbers the background commands run in the client's
	// terminal, the PIDs the model knows them by.
	backgroundIDs atomic.Int64

	// asked numbers the questions that belong to no tool call, for
	// their own tool call id.
	asked atomic.Int64

	// mu guards the fields below.
	mu sync.Mutex
	// build is the session's agent and live the host's session of it;
	// the host makes the agent anew under build when the folder's trust
	// changes, and live follows it (trust.go).
	build *conversation.Build
	live  *conversation.Live[*session]
	// attached is content for a call's final tool_call_update that the
	// call's confirmation or run produced (a diff, a terminal), by call id.
	attached map[string][]sdk.ToolCallContent
	// shown are the calls sent as tool_calls and not yet ended, by call
	// id, for their permission requests.
	shown map[string]dialog.ToolCall
	// subagents are the subagents running, by their invoke_agent call's
	// id, and subagentCalls the subagent each of their calls shown is of
	// (subagent.go); made on first use.
	subagents     map[string]*subagentRun
	subagentCalls map[string]dialog.Subagent
	// notes are what setup warned of while the agent was built (or
	// built again), for announce to tell.
	notes []string
	// pendingNotices wait for the session's id (notice).
	pendingNotices []noticeUpdate
	// compactions numbers the history's compressions, for their ids.
	compactions atomic.Int64
	// prompt is the system prompt the client gave the session, which a
	// parked session is opened again with.
	systemPrompt dialog.ClientPrompt

	// servers are the MCP servers the client passed, which a parked
	// session is opened again with (park.go).
	servers []sdk.McpServer
	// Guarded by the server's parkMu: the requests holding the session
	// (acquire), and when it was last used, for parking the least
	// recently used first.
	inUse   int
	lastUse uint64
}

// NewSession builds an agent for the cwd the client names, with the MCP
// servers it passes over those of settings. One whose _meta asks for a
// worktree (worktree.go) runs in a new one made in cwd's repository: its
// cwd is the worktree's. A session in a worktree, asked for or opened
// there, is told of it in the answer's _meta.
func (s *server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	return s.newSession(ctx, p, dialog.ClientPrompt{})
}

// newSession is NewSession with the system prompt the client gave.
func (s *server) newSession(ctx context.Context, p sdk.NewSessionRequest, prompt dialog.ClientPrompt) (sdk.NewSessionResponse, error) {
	if err := s.signedOut(); err != nil {
		return sdk.NewSessionResponse{}, err
	}
	made, err := newWorktree(ctx, p, time.Now())
	if err != nil {
		return sdk.NewSessionResponse{}, err
	}
	cwd := p.Cwd
	if made != nil {
		cwd = made.Path
		s.log.Info("worktree made for a session", zap.String("path", made.Path), zap.String("branch", made.Branch))
	}
	sess, err := s.build(cwd, p.AdditionalDirectories, p.McpServers, prompt)
	if err != nil {
		if made != nil {
			// Nothing was done in it: removed, with its branch.
			if _, ferr := made.Finish(context.WithoutCancel(ctx)); ferr != nil {
				s.log.Warn("removing the worktree of a session that did not start", zap.Error(ferr))
			}
		}
		return sdk.NewSessionResponse{}, err
	}
	sess.start(s.host.Open(sess.setup(), true, sess))
	s.parkMu.Lock()
	s.touch(sess)
	s.parkMu.Unlock()
	res := sdk.NewSessionResponse{SessionId: sdk.SessionId(sess.id), Modes: sess.modes(), Models: sess.modelState(), ConfigOptions: sess.configOptions()}
	if w, ok := sessionWorktree(ctx, cwd); ok {
		if made != nil {
			w.Base = made.Base // the commit it was made from
		}
		res.Meta = worktreeMeta(w)
	}
	return res, nil
}

// CloseSession cancels the session's prompt and ends its agent: its MCP
// servers and terminals. Its saved history stays for session/load.
func (s *server) CloseSession(_ context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	if !s.host.Close(string(p.SessionId)) && !s.unparkForget(string(p.SessionId)) {
		return sdk.CloseSessionResponse{}, unknownSession(p.SessionId)
	}
	return sdk.CloseSessionResponse{}, nil
}

// build makes the agent of a session in cwd, with the client's
// additionalDirectories as more roots; the session is not yet known to
// the server (start does that).
func (s *server) build(cwd string, dirs []string, servers []sdk.McpServer, prompt dialog.ClientPrompt) (*session, error) {
	if err := s.signedOut(); err != nil {
		return nil, err
	}
	for _, dir := range append([]string{cwd}, dirs...) {
		name := "cwd"
		if dir != cwd {
			name = "an additional directory"
		}
		if !filepath.IsAbs(dir) {
			return nil, invalidParams(fmt.Sprintf("%s must be an absolute path, not %q", name, dir))
		}
		if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
			return nil, invalidParams(fmt.Sprintf("%s %s is not a directory", name, dir))
		}
	}
	overlay, err := mcpOverlay(servers)
	if err != nil {
		return nil, invalidParams(err.Error())
	}
	s.mu.Lock()
	if s.authType != "" {
		overlay["security"] = map[string]any{"auth": map[string]any{"selectedType": s.authType}}
	}
	s.mu.Unlock()
	sess := &session{srv: s, cwd: cwd, servers: servers, systemPrompt: prompt, log: s.log, attached: make(map[string][]sdk.ToolCallContent), shown: make(map[string]dialog.ToolCall)}
	if sess.ws, err = sess.newWorkspace(cwd); err != nil {
		return nil, invalidParams(err.Error())
	}
	built, err := s.host.Build(s.life, conversation.Place{
		Workspace: sess.ws,
		Getenv:    s.getenv(""),
		LookupEnv: s.lookupEnv(),
		Overlay:   overlay,
		Warn:      sess.warn,

		IncludeDirectories: dirs,
		// Shell commands run in the client's terminal when it has one.
		ShellRunner: sess.shellRunner(),
		ShowAuthURL: sess.showAuthURL,

		ClientPrompt: prompt,
		Logger:       sess.noticeLogger(),
	})
	if err != nil {
		sess.ws.Close()
		return nil, invalidParams(err.Error())
	}
	// The workspace is the session's alone: its kept directories close
	// with its build, not when the collector finds them.
	built.OnClose(func() { sess.ws.Close() })
	if err := built.AuthErr(); err != nil {
		built.Close()
		return nil, sdk.NewAuthRequired(map[string]any{"error": err.Error()})
	}
	sess.build = built
	return sess, nil
}

// warn logs a problem setup found. The settings keys nothing reads, and
// the announcement of a project's new hooks, it also keeps for announce
// to tell the user, as a note in the conversation: announce follows
// every build of the session's agent (its start, and a build again when
// the folder's trust changed), and each of these is said once however
// often it is built (setup.Told, hooks.NoteProjectHooks).
//
// A client that takes notices is told every warning of setup's as a
// notice instead, but the announcement of a project's hooks, which is
// no notice to miss: it stays a note (docs/acp.md, Notices).
func (sess *session) warn(what string, err error) {
	sess.log.Warn(what, zap.Error(err))
	if what != conversation.ProjectHooksAnnounced && sess.notice("warning", capitalized(what), err.Error()) {
		return
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if what == conversation.UnreadSettings || what == conversation.ProjectHooksAnnounced {
		sess.notes = append(sess.notes, fmt.Sprintf("%s: %v", what, err))
	}
}

// capitalized is s with its first letter a capital, as a title starts.
func capitalized(s string) string {
	r := []rune(s)
	if len(r) > 0 {
		r[0] = unicode.ToUpper(r[0])
	}
	return string(r)
}

// takeNotes returns the notes kept so far, once.
func (sess *session) takeNotes() []string {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	notes := sess.notes
	sess.notes = nil
	return notes
}

// start takes the session the host made live for sess.
func (sess *session) start(live *conversation.Live[*session]) {
	sess.mu.Lock() // for showAuthURL, which another goroutine may call
	sess.live, sess.id = live, live.ID()
	sess.mu.Unlock()
	sess.log = sess.srv.log.With(zap.String("sessionId", sess.id))
	sess.log.Info("session started", zap.String("cwd", sess.cwd))
	sess.announce()
}

// setup is the session's build.
func (sess *session) setup() *conversation.Build {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.build
}

// current is the host's live session.
func (sess *session) current() *conversation.Live[*session] {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.live
}

// showAuthURL tells the user to sign in to an MCP server, in the session's
// agent message: /mcp auth waits for the sign-in, so its reply would come
// too late to carry the URL. Before the session has its id (a server
// signing in while session/new is answered) the URL is only logged.
func (sess *session) showAuthURL(server, authURL string) {
	sess.mu.Lock()
	id := sess.id
	sess.mu.Unlock()
	text := "MCP server '" + server + "' requires authentication. Open this URL in your browser to sign in:\n" + authURL
	if id == "" {
		sess.srv.log.Warn(text)
		return
	}
	err := sess.srv.conn.SessionUpdate(sess.srv.life, sdk.SessionNotification{SessionId: sdk.SessionId(id), Update: sdk.UpdateAgentMessageText("\n\n" + text + "\n\n")})
	if err != nil {
		sess.srv.log.Warn(text, zap.Error(err))
	}
}

// lookup returns the live session id, not opening a parked one
// (acquire does).
func (s *server) lookup(id sdk.SessionId) (*session, error) {
	l, ok := s.host.Lookup(string(id))
	if !ok {
		return nil, unknownSession(id)
	}
	return l.State, nil
}

func unknownSession(id sdk.SessionId) error {
	return invalidParams(fmt.Sprintf("no session %q: create one with session/new or load it with session/load", id))
}

// attach adds content to call id's final tool_call_update.
func (sess *session) attach(callID string, content ...sdk.ToolCallContent) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.attached[callID] = append(sess.attached[callID], content...)
}

// show records call as shown to the client, until unshow.
func (sess *session) show(call dialog.ToolCall) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	sess.shown[call.CallID] = call
}

// shownCall is call id as shown, if it is.
func (sess *session) shownCall(id string) (dialog.ToolCall, bool) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	c, ok := sess.shown[id]
	return c, ok
}

// unshow forgets call id, ended.
func (sess *session) unshow(id string) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	delete(sess.shown, id)
}

// takeAttached returns and forgets what was attached to call id.
func (sess *session) takeAttached(callID string) []sdk.ToolCallContent {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	c := sess.attached[callID]
	delete(sess.attached, callID)
	return c
}

// update sends one session/update; a failure to send is logged (the
// connection is going away, and the prompt ends with it).
func (sess *session) update(ctx context.Context, u sdk.SessionUpdate) {
	err := sess.srv.conn.SessionUpdate(context.WithoutCancel(ctx), sdk.SessionNotification{SessionId: sdk.SessionId(sess.id), Update: u})
	if err != nil && !errors.Is(err, context.Canceled) {
		sess.log.Debug("sending a session update", zap.Error(err))
	}
}

// mcpOverlay is the MCP servers a client passed, spelled as settings.json
// spells them, for the session's settings overlay.
func mcpOverlay(servers []sdk.McpServer) (map[string]any, error) {
	overlay := map[string]any{}
	if len(servers) == 0 {
		return overlay, nil
	}
	out := map[string]any{}
	for _, srv := range servers {
		var name string
		conf := map[string]any{}
		switch {
		case srv.Stdio != nil:
			name = srv.Stdio.Name
			env := map[string]any{}
			for _, v := range srv.Stdio.Env {
				env[v.Name] = v.Value
			}
			conf["command"], conf["args"], conf["env"] = srv.Stdio.Command, stringsOrEmpty(srv.Stdio.Args), env
		case srv.Http != nil:
			name = srv.Http.Name
			conf["httpUrl"], conf["headers"] = srv.Http.Url, headerMap(srv.Http.Headers)
		case srv.Sse != nil:
			name = srv.Sse.Name
			conf["url"], conf["type"], conf["headers"] = srv.Sse.Url, "sse", headerMap(srv.Sse.Headers)
		default:
			return nil, errors.New("mcpServers: only stdio, http and sse servers are supported")
		}
		if name == "" {
			return nil, errors.New("mcpServers: every server needs a name")
		}
		out[name] = conf
	}
	overlay["mcpServers"] = out
	return overlay, nil
}

func headerMap(headers []sdk.HttpHeader) map[string]any {
	m := map[string]any{}
	for _, h := range headers {
		m[h.Name] = h.Value
	}
	return m
}

func stringsOrEmpty(s []string) []any {
	out := make([]any, len(s))
	for i, v := range s {
		out[i] = v
	}
	return out
}

// cancelTurn cancels the running prompt, if any, as session/cancel does.
func (sess *session) cancelTurn() { sess.srv.host.Cancel(sess.id) }
