package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"go.uber.org/zap/zapcore"
)

// noticeCore tells a person, in words, the warnings and errors gemini-ls
// logs: an MCP server that failed, a context file skipped, the sign-in
// URL. serve mirrors the same records to the editor (window/logMessage);
// run and acp write them here, to stderr, one "gemini-ls: " line each, as
// run tells everything else. Gemini CLI's telemetry events (api_error,
// loop_detected: records with an event.name) are not told: the front end
// says what they report in its own words, and they are the log's.
type noticeCore struct {
	zapcore.LevelEnabler
	w      zapcore.WriteSyncer
	fields []zapcore.Field // from With
}

func newNoticeCore(w io.Writer) *noticeCore {
	return &noticeCore{LevelEnabler: zapcore.WarnLevel, w: zapcore.Lock(zapcore.AddSync(w))}
}

func (c *noticeCore) With(fields []zapcore.Field) zapcore.Core {
	return &noticeCore{LevelEnabler: c.LevelEnabler, w: c.w, fields: slices.Concat(c.fields, fields)}
}

func (c *noticeCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *noticeCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	all := slices.Concat(c.fields, fields)
	if slices.ContainsFunc(all, func(f zapcore.Field) bool { return f.Key == "event.name" }) {
		return nil
	}
	_, err := io.WriteString(c.w, notice(e.Message, all))
	return err
}

func (c *noticeCore) Sync() error { return c.w.Sync() }

// notice is a record in words: "gemini-ls: message: error (key: value,
// ...)", on one line unless the message holds line breaks (a URL on a
// line of its own).
func notice(msg string, fields []zapcore.Field) string {
	enc := zapcore.NewMapObjectEncoder()
	var keys []string
	for _, f := range fields {
		if !slices.Contains(keys, f.Key) {
			keys = append(keys, f.Key)
		}
		f.AddTo(enc)
	}
	var b strings.Builder
	b.WriteString("gemini-ls: " + msg)
	if err, ok := enc.Fields["error"]; ok {
		fmt.Fprintf(&b, ": %v", err)
	}
	var rest []string
	for _, k := range keys {
		if v, ok := enc.Fields[k]; ok && !notWords(k) {
			rest = append(rest, fmt.Sprintf("%s: %v", k, v))
		}
	}
	if len(rest) > 0 {
		b.WriteString(" (" + strings.Join(rest, ", ") + ")")
	}
	b.WriteString("\n")
	return b.String()
}

// notWords says key is a field the line leaves out: the error, said
// already, and the marker of a record for the user's eyes, which is how
// it reached them, not what it says.
func notWords(key string) bool {
	return key == "error" || key == "errorVerbose" || key == dialog.UserNoticeKey
}
