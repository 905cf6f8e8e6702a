package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
)

// logFlags are shared by serve and run.
type logFlags struct {
	file  string
	level string
}

func (l *logFlags) register(fs *flag.FlagSet, defaultLevel string) {
	fs.StringVar(&l.file, "log-file", "", "write logs to `PATH` (default: stderr)")
	fs.StringVar(&l.level, "log-level", defaultLevel, "log `LEVEL`: debug, info, warn, error")
}

// logger builds the process logger: JSON lines to the log file, or to
// stderr. Never stdout: stdout carries the protocol or the answer.
func (l *logFlags) logger(stderr io.Writer) (*zap.Logger, func(), error) {
	level, err := zapcore.ParseLevel(l.level)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-level: %w", err)
	}
	sink := zapcore.AddSync(stderr)
	closeFn := func() {}
	if l.file != "" {
		f, err := os.OpenFile(l.file, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err != nil {
			return nil, nil, fmt.Errorf("opening the log file: %w", err)
		}
		sink = zapcore.AddSync(f)
		closeFn = func() { _ = f.Close() }
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(sink), level)
	return zap.New(core), closeFn, nil
}
