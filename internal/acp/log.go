package acp

import (
	"context"
	"log/slog"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// slogFor hands the SDK's connection diagnostics to log.
func slogFor(log *zap.Logger) *slog.Logger { return slog.New(zapHandler{log: log}) }

// zapHandler is a slog.Handler writing to a zap logger.
type zapHandler struct {
	log    *zap.Logger
	fields []zap.Field
}

func (h zapHandler) Enabled(_ context.Context, l slog.Level) bool {
	return h.log.Core().Enabled(zapLevel(l))
}

func (h zapHandler) Handle(_ context.Context, r slog.Record) error {
	fields := append([]zap.Field(nil), h.fields...)
	r.Attrs(func(a slog.Attr) bool {
		fields = append(fields, zap.Any(a.Key, a.Value.Any()))
		return true
	})
	if ce := h.log.Check(zapLevel(r.Level), r.Message); ce != nil {
		ce.Write(fields...)
	}
	return nil
}

func (h zapHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	fields := append([]zap.Field(nil), h.fields...)
	for _, a := range attrs {
		fields = append(fields, zap.Any(a.Key, a.Value.Any()))
	}
	return zapHandler{log: h.log, fields: fields}
}

func (h zapHandler) WithGroup(name string) slog.Handler {
	return zapHandler{log: h.log.Named(name), fields: h.fields}
}

func zapLevel(l slog.Level) zapcore.Level {
	switch {
	case l >= slog.LevelError:
		return zapcore.ErrorLevel
	case l >= slog.LevelWarn:
		return zapcore.WarnLevel
	case l >= slog.LevelInfo:
		return zapcore.InfoLevel
	}
	return zapcore.DebugLevel
}
