package acp

// session/load, session/resume and session/list: the sessions the agent
// saved (internal/agent/sessionstore, shared with the LSP front end), by the id the
// client knows, since the agent session's id is the ACP session id.

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// LoadSession continues a saved session in cwd, with the MCP servers the
// client passes, and shows its history as session/updates before it
// answers, as the protocol asks.
func (s *server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	return s.loadSession(ctx, p, dialog.ClientPrompt{})
}

// loadSession is LoadSession with the system prompt the client gave.
func (s *server) loadSession(ctx context.Context, p sdk.LoadSessionRequest, prompt dialog.ClientPrompt) (sdk.LoadSessionResponse, error) {
	sess, err := s.open(ctx, p.SessionId, p.Cwd, p.AdditionalDirectories, p.McpServers, prompt)
	if err != nil {
		return sdk.LoadSessionResponse{}, err
	}
	if err := sess.replay(ctx); err != nil {
		// The session is loaded all the same: the model has its history.
		sess.log.Warn("replaying the session's history", zap.Error(err))
	}
	sess.showSaved(ctx)
	return sdk.LoadSessionResponse{Modes: sess.modes(), Models: sess.modelState(), ConfigOptions: sess.configOptions()}, nil
}

// ResumeSession is LoadSession without the replay, for a client that
// still shows the conversation.
func (s *server) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return s.resumeSession(ctx, p, dialog.ClientPrompt{})
}

// resumeSession is ResumeSession with the system prompt the client gave.
func (s *server) resumeSession(ctx context.Context, p sdk.ResumeSessionRequest, prompt dialog.ClientPrompt) (sdk.ResumeSessionResponse, error) {
	sess, err := s.open(ctx, p.SessionId, p.Cwd, p.AdditionalDirectories, p.McpServers, prompt)
	if err != nil {
		return sdk.ResumeSessionResponse{}, err
	}
	sess.showSaved(ctx)
	return sdk.ResumeSessionResponse{Modes: sess.modes(), Models: sess.modelState(), ConfigOptions: sess.configOptions()}, nil
}

// open builds a session's agent for cwd and resumes saved session id in
// it. The same session live in this connection ends first, so that one
// agent at a time writes its file.
func (s *server) open(ctx context.Context, id sdk.SessionId, cwd string, dirs []string, servers []sdk.McpServer, prompt dialog.ClientPrompt) (*session, error) {
	if !conversation.ValidSessionID(string(id)) {
		return nil, notFound(id)
	}
	// The same session live here ends first, and its prompt (and save):
	// it never runs a prompt again, no longer the host's, which a prompt
	// checks once it has its turn. Parked, it is opened here instead.
	s.parkMu.Lock()
	defer s.parkMu.Unlock()
	s.parked.Delete(string(id))
	s.host.CloseAndWait(ctx, string(id))
	sess, err := s.build(cwd, dirs, servers, prompt)
	if err != nil {
		return nil, err
	}
	live, err := s.host.Resume(ctx, sess.setup(), string(id), "", true, sess)
	if err != nil {
		sess.setup().Close()
		if _, unknown := errors.AsType[*dialog.UnknownSessionError](err); unknown {
			return nil, notFound(id)
		}
		return nil, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	sess.start(live)
	s.touch(sess)
	return sess, nil
}

// notFound is ACP's resource_not_found error for a session id with no
// saved session.
func notFound(id sdk.SessionId) error {
	return &sdk.RequestError{Code: -32002, Message: "Resource not found", Data: map[string]any{
		"sessionId": id,
		"error":     fmt.Sprintf("no saved session %q: session/list lists the sessions that can be loaded", id),
	}}
}

// replay shows the saved session as the user saw it, as the shared
// conversation layer replays it.
func (sess *session) replay(ctx context.Context) error {
	_, exchanges, err := sess.srv.host.Replay(ctx, sess.setup(), sess.id)
	if err != nil {
		return err
	}
	r := replay(ctx, exchanges)
	for _, u := range r.out {
		if u.ToolCall != nil {
			sess.showCall(u, r.names[u.ToolCall.ToolCallId])
			continue
		}
		sess.update(ctx, u)
	}
	return nil
}

// replayUpdates are the session/updates that show a saved session: each
// prompt as a user message, then its turn as the live turn showed it (the
// model's text, each call and its result, through the same translation).
func replayUpdates(ctx context.Context, exchanges []conversation.Exchange) []sdk.SessionUpdate {
	return replay(ctx, exchanges).out
}

// replay is the saved session's view, shown.
func replay(ctx context.Context, exchanges []conversation.Exchange) *replayed {
	r := &replayed{names: map[sdk.ToolCallId]string{}}
	var last conversation.Ending // how the prompt shown last ended
	for _, x := range exchanges {
		r.out = appendPrompt(r.out, x.Prompt, last)
		last = x.Ending
		x.Show(ctx, r)
	}
	return r
}

// replayed is a saved turn's view: the session/updates that show it.
type replayed struct {
	out []sdk.SessionUpdate
	// names are the tools' own names of the calls in out, by id.
	names map[sdk.ToolCallId]string
}

// Show adds ev's session/update; a saved turn holds text, calls and
// their results, and nothing else (conversation.ReplayView).
func (r *replayed) Show(_ context.Context, _ dialog.Subagent, ev dialog.Event) {
	switch ev := ev.(type) {
	case dialog.TextEvent:
		r.out = appendText(r.out, sdk.UpdateAgentMessageText, ev.Text)
	case dialog.ToolCallEvent:
		r.out = append(r.out, toolCallUpdate(ev.Call))
		if r.names != nil {
			r.names[sdk.ToolCallId(ev.Call.CallID)] = ev.Call.Name
		}
	case dialog.ToolResultEvent:
		r.out = append(r.out, toolResultUpdate(ev.Result, nil))
	case dialog.ThoughtEvent, dialog.UsageEvent, dialog.ErrorEvent, dialog.RetryEvent, dialog.CompressedEvent,
		dialog.NoticeEvent, dialog.ModeEvent, dialog.ModelEvent, dialog.TopicEvent, dialog.PlanEvent, dialog.CommandsEvent:
	}
}

// appendPrompt shows a prompt as a user message of its own. Clients join
// consecutive user_message_chunks into one message, so a prompt that
// got no answer (cancelled before the model said anything) would run
// into the next: a line saying how it ended (prev) keeps them apart.
func appendPrompt(out []sdk.SessionUpdate, text string, prev conversation.Ending) []sdk.SessionUpdate {
	if strings.TrimSpace(text) == "" {
		return out
	}
	if n := len(out); n > 0 && out[n-1].UserMessageChunk != nil {
		note := "(No answer.)"
		if prev == conversation.Cancelled {
			note = "(Cancelled.)"
		}
		out = append(out, sdk.UpdateAgentMessageText(note))
	}
	return append(out, sdk.UpdateUserMessageText(text))
}

func appendText(out []sdk.SessionUpdate, update func(string) sdk.SessionUpdate, text string) []sdk.SessionUpdate {
	if strings.TrimSpace(text) == "" {
		return out
	}
	return append(out, update(text))
}

// listPageSize is how many sessions one session/list answer holds.
const listPageSize = 50

// ListSessions lists the saved sessions not archived (listSessions);
// wire answers session/list (listSessionsV1), this is the SDK's Agent's.
func (s *server) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	list, err := s.listSessions(ctx, p.Cwd, p.Cursor, archivedExclude)
	if err != nil {
		return sdk.ListSessionsResponse{}, err
	}
	out := sdk.ListSessionsResponse{Sessions: []sdk.SessionInfo{}, NextCursor: list.NextCursor}
	for _, info := range list.Sessions {
		out.Sessions = append(out.Sessions, sdk.SessionInfo{SessionId: info.SessionID, Cwd: info.Cwd, Title: info.Title, UpdatedAt: info.UpdatedAt})
	}
	return out, nil
}

// listSessions lists the saved sessions, of cwd when it is given, the
// most recently updated first, a page at a time, as filter (archived*)
// asks: the archive filter applies before the pages are cut. A title
// the client set is the session's. It needs no session: it reads the
// store's files.
func (s *server) listSessions(ctx context.Context, cwd, cursor *string, filter string) (listSessionsResponse, error) {
	root := ""
	if cwd != nil && *cwd != "" {
		if !filepath.IsAbs(*cwd) {
			return listSessionsResponse{}, invalidParams(fmt.Sprintf("cwd must be an absolute path, not %q", *cwd))
		}
		// Sessions are filed under their workspace root, symlinks resolved.
		root = filepath.Clean(*cwd)
		if real, err := filepath.EvalSymlinks(root); err == nil {
			root = real
		}
	}
	var after *listCursor
	if cursor != nil && *cursor != "" {
		c, err := parseCursor(*cursor)
		if err != nil {
			return listSessionsResponse{}, invalidParams(err.Error())
		}
		after = &c
	}
	out := listSessionsResponse{Sessions: []sessionInfo{}}
	metas, err := s.host.List(ctx, nil, root)
	if err != nil {
		return listSessionsResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	labels, err := readLabels(s.getenv(""))
	if err != nil {
		return listSessionsResponse{}, sdk.NewInternalError(map[string]any{"error": err.Error()})
	}
	var last dialog.SessionInfo
	for _, m := range metas {
		label := labels[m.ID]
		if (after != nil && !after.before(m)) || (filter == archivedExclude && label.Archived) || (filter == archivedOnly && !label.Archived) {
			continue
		}
		if len(out.Sessions) == listPageSize {
			out.NextCursor = sdk.Ptr(listCursor{Updated: last.UpdatedAt, ID: last.ID}.String())
			break
		}
		last = m
		info := sessionInfo{SessionID: sdk.SessionId(m.ID), Cwd: m.Root, UpdatedAt: isoTime(m.UpdatedAt), Archived: label.Archived}
		if title := cmp.Or(label.Title, m.Title); title != "" {
			info.Title = sdk.Ptr(title)
		}
		out.Sessions = append(out.Sessions, info)
	}
	return out, nil
}

// listCursor is where a page of sessions ended: the last one's place in
// the order (updated, newest first, then id). The next page starts after
// it, so sessions saved meanwhile do not shift it.
type listCursor struct {
	Updated time.Time `json:"u"`
	ID      string    `json:"id"`
}

// before reports whether the cursor's session comes before m in the order.
func (c listCursor) before(m dialog.SessionInfo) bool {
	if !m.UpdatedAt.Equal(c.Updated) {
		return m.UpdatedAt.Before(c.Updated)
	}
	return m.ID > c.ID
}

func (c listCursor) String() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func parseCursor(s string) (listCursor, error) {
	var c listCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err == nil {
		err = json.Unmarshal(b, &c)
	}
	if err != nil || c.ID == "" {
		return listCursor{}, fmt.Errorf("cursor %q is not one session/list gave", s)
	}
	return c, nil
}
