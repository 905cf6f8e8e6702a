package acp

// The stable session updates the SDK's types cannot say (newer.go), each
// sent only as the client's capabilities allow: notices
// (clientCapabilities.session.notices), compaction updates
// (clientCapabilities.session.compaction), and the tool call's name,
// which every client may be sent.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/ellipsis"
)

// noticeTitleRunes bounds a notice's title: a line that stands alone;
// the whole text goes in its description.
const noticeTitleRunes = 100

// takesNotices reports whether the client declared
// clientCapabilities.session.notices.
func (s *server) takesNotices() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return declared(s.clientSession.Notices)
}

// takesCompaction reports whether the client declared
// clientCapabilities.session.compaction.
func (s *server) takesCompaction() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return declared(s.clientSession.Compaction)
}

// updateOwn sends one session/update of a kind the SDK's types cannot
// say. It writes through the same writer as the SDK's connection, at
// once, so it keeps its place among the session's other updates.
func (sess *session) updateOwn(u any) {
	err := sess.srv.wire.send(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", sdk.ClientMethodSessionUpdate, struct {
		SessionID sdk.SessionId `json:"sessionId"`
		Update    any           `json:"update"`
	}{sdk.SessionId(sess.id), u}})
	if err != nil {
		sess.log.Debug("sending a session update", zap.Error(err))
	}
}

// notice tells the user title (and description) as a session notice,
// when the client takes notices, and reports whether it did. Before
// the session has its id (while it is built) the notice waits for
// announce.
func (sess *session) notice(severity, title, description string) bool {
	if !sess.srv.takesNotices() {
		return false
	}
	n := noticeUpdate{SessionUpdate: "notice", Severity: severity, Title: title}
	if n.Title = strings.TrimSpace(n.Title); n.Title == "" {
		n.Title = "gemini-ls"
	}
	if d := strings.TrimSpace(description); d != "" && d != n.Title {
		n.Description = &d
	}
	sess.mu.Lock()
	if sess.id == "" {
		sess.pendingNotices = append(sess.pendingNotices, n)
		sess.mu.Unlock()
		return true
	}
	sess.mu.Unlock()
	sess.updateOwn(n)
	return true
}

// sendPendingNotices sends the notices that waited for the session's id.
func (sess *session) sendPendingNotices() {
	sess.mu.Lock()
	pending := sess.pendingNotices
	sess.pendingNotices = nil
	sess.mu.Unlock()
	for _, n := range pending {
		sess.updateOwn(n)
	}
}

// noticeOf is text as a notice: its first line, shortened, as the
// title, the whole as the description.
func noticeOf(text string) (title, description string) {
	line, _, _ := strings.Cut(strings.TrimSpace(text), "\n")
	return ellipsis.Cut(line, noticeTitleRunes), text
}

// compacted shows a compression of the session's history: a completed
// compaction_update, its summary saying by how much, to a client that
// takes them; else the thought every client is shown.
func (sess *session) compacted(ctx context.Context, c dialog.CompressionInfo) {
	text := fmt.Sprintf("The history was compressed from %d to %d tokens.\n", c.Before, c.After)
	if !sess.srv.takesCompaction() {
		sess.update(ctx, sdk.UpdateAgentThoughtText(text))
		return
	}
	id := fmt.Sprintf("compaction-%d", sess.compactions.Add(1))
	sess.updateOwn(compactionUpdate{SessionUpdate: "compaction_update", CompactionID: id, Status: "completed",
		Summary: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// showCall sends a tool_call with the tool's own name beside its title.
func (sess *session) showCall(u sdk.SessionUpdate, name string) {
	sess.updateOwn(namedToolCall{call: u.ToolCall, name: name})
}

// noticeLogger is the session's logger, with the records marked for the
// user (dialog.UserNoticeKey: an MCP server that did not start) also
// told as notices, when the client takes them.
func (sess *session) noticeLogger() *zap.Logger {
	if !sess.srv.takesNotices() {
		return sess.srv.log
	}
	tell := func(msg, why string) { sess.notice("error", msg, why) }
	return zap.New(zapcore.NewTee(sess.srv.log.Core(), noticeCore{tell: tell}))
}

// noticeCore passes the records marked for the user to tell.
type noticeCore struct {
	fields []zapcore.Field
	tell   func(msg, why string)
}

func (c noticeCore) Enabled(zapcore.Level) bool { return true }

func (c noticeCore) With(fields []zapcore.Field) zapcore.Core {
	return noticeCore{fields: append(slices.Clip(c.fields), fields...), tell: c.tell}
}

func (c noticeCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	return ce.AddCore(e, c)
}

func (c noticeCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	all := append(slices.Clip(c.fields), fields...)
	marked, why := false, ""
	for _, f := range all {
		switch {
		case f.Key == dialog.UserNoticeKey && f.Type == zapcore.BoolType:
			marked = f.Integer == 1
		case f.Key == "error" && f.Type == zapcore.StringType:
			why = f.String
		case f.Key == "error" && f.Type == zapcore.ErrorType:
			if err, ok := f.Interface.(error); ok {
				why = err.Error()
			}
		}
	}
	if marked {
		c.tell(e.Message, why)
	}
	return nil
}

func (c noticeCore) Sync() error { return nil }
