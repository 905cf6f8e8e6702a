package lsp

import (
	"context"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap/zapcore"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// mirrorWarnings tees warnings and errors to the client's log
// (window/logMessage), and those marked for the user (dialog.UserNoticeKey) to
// window/showMessage too, so a user sees them without opening our log file:
// in words, the record's message and its error, as an editor shows them
// to a person; the other fields (paths, ids, durations) go to the log
// file only, never zap's encoding of them.
func mirrorWarnings(core zapcore.Core, conn jsonrpc2.Conn) zapcore.Core {
	return zapcore.NewTee(core, &clientLogCore{conn: conn})
}

type clientLogCore struct {
	conn   jsonrpc2.Conn
	fields []zapcore.Field
}

func (c *clientLogCore) Enabled(l zapcore.Level) bool { return l >= zapcore.WarnLevel }

func (c *clientLogCore) With(fields []zapcore.Field) zapcore.Core {
	return &clientLogCore{conn: c.conn, fields: append(append([]zapcore.Field(nil), c.fields...), fields...)}
}

func (c *clientLogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *clientLogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	all := append(append([]zapcore.Field(nil), c.fields...), fields...)
	if slices.ContainsFunc(all, func(f zapcore.Field) bool { return f.Key == "event.name" }) {
		// Gemini CLI's telemetry events (api_error, loop_detected) are
		// the log file's: the turn says what they report, in words.
		return nil
	}
	typ := protocol.MessageTypeWarning
	if e.Level >= zapcore.ErrorLevel {
		typ = protocol.MessageTypeError
	}
	words := prose(e.Message, all)
	err := c.conn.Notify(context.Background(), "window/logMessage", &protocol.LogMessageParams{Type: typ, Message: "gemini-ls: " + words})
	if err == nil && forTheUser(all) {
		// An editor keeps its log out of sight: what the user must know
		// (an MCP server that did not start) is shown, as warnUser shows.
		err = c.conn.Notify(context.Background(), "window/showMessage", &protocol.ShowMessageParams{Type: typ, Message: "Gemini: " + words})
	}
	return err
}

// forTheUser reports whether a record's fields mark it for the user's
// eyes (dialog.UserNoticeKey).
func forTheUser(fields []zapcore.Field) bool {
	return slices.ContainsFunc(fields, func(f zapcore.Field) bool {
		return f.Key == dialog.UserNoticeKey && f.Type == zapcore.BoolType && f.Integer == 1
	})
}

func (c *clientLogCore) Sync() error { return nil }

// prose is a record as a person reads it: its message, then the error
// it carries ("the agent is unavailable: GEMINI_API_KEY …"), whether an
// error value or the words of one (a string field "error" or "why"), a
// sentence ending with a full stop.
func prose(msg string, fields []zapcore.Field) string {
	msg = strings.TrimSpace(msg)
	for _, f := range fields {
		var why string
		switch {
		case f.Type == zapcore.ErrorType && f.Key == "error":
			if err, ok := f.Interface.(error); ok {
				why = err.Error()
			}
		case f.Type == zapcore.StringType && (f.Key == "error" || f.Key == "why"):
			why = f.String
		}
		if why = strings.TrimSpace(why); why != "" {
			msg = strings.TrimSuffix(msg, ".") + ": " + why
		}
	}
	if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "!") && !strings.HasSuffix(msg, "?") {
		msg += "."
	}
	return msg
}
