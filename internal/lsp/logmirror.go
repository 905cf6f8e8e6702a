package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.uber.org/zap/zapcore"
)

// mirrorWarnings tees warnings and errors to the client's log
// (window/logMessage), so a user sees them without opening our log file.
func mirrorWarnings(core zapcore.Core, conn jsonrpc2.Conn) zapcore.Core {
	return zapcore.NewTee(core, &clientLogCore{conn: conn, enc: zapcore.NewConsoleEncoder(zapcore.EncoderConfig{MessageKey: "msg"})})
}

type clientLogCore struct {
	conn   jsonrpc2.Conn
	enc    zapcore.Encoder
	fields []zapcore.Field
}

func (c *clientLogCore) Enabled(l zapcore.Level) bool { return l >= zapcore.WarnLevel }

func (c *clientLogCore) With(fields []zapcore.Field) zapcore.Core {
	return &clientLogCore{conn: c.conn, enc: c.enc, fields: append(append([]zapcore.Field(nil), c.fields...), fields...)}
}

func (c *clientLogCore) Check(e zapcore.Entry, ce *zapcore.CheckedEntry) *zapcore.CheckedEntry {
	if c.Enabled(e.Level) {
		return ce.AddCore(e, c)
	}
	return ce
}

func (c *clientLogCore) Write(e zapcore.Entry, fields []zapcore.Field) error {
	buf, err := c.enc.EncodeEntry(e, append(append([]zapcore.Field(nil), c.fields...), fields...))
	if err != nil {
		return err
	}
	defer buf.Free()
	typ := protocol.MessageTypeWarning
	if e.Level >= zapcore.ErrorLevel {
		typ = protocol.MessageTypeError
	}
	msg := "gemini-ls: " + strings.TrimSpace(buf.String())
	return c.conn.Notify(context.Background(), "window/logMessage", &protocol.LogMessageParams{Type: typ, Message: msg})
}

func (c *clientLogCore) Sync() error { return nil }
