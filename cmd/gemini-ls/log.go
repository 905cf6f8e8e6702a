package main

import (
	"flag"
	"fmt"
	"io"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// logFlags are shared by serve and run.
type logFlags struct {
	file  string
	level string
	// fileLevel is the level when the logs go to a file and no
	// --log-level was given; the flag's default is for stderr.
	fileLevel   string
	stderrLevel string
}

// register declares the flags. stderrLevel is the default level on
// stderr, fileLevel with --log-file: editors show a language server's
// stderr as errors (Helix, Neovim), so serve keeps it for warnings and
// errors, and a log file the user asked for gets more.
func (l *logFlags) register(fs *flag.FlagSet, stderrLevel, fileLevel string) {
	l.fileLevel = fileLevel
	fs.StringVar(&l.file, "log-file", "", "write logs to `PATH` (default: stderr)")
	fs.StringVar(&l.level, "log-level", "", "log `LEVEL`: debug, info, warn, error (default: "+stderrLevel+" on stderr, "+fileLevel+" in a --log-file)")
	l.stderrLevel = stderrLevel
}

// logger builds the process logger: JSON lines to the log file, or to
// stderr. Never stdout: stdout carries the protocol or the answer.
func (l *logFlags) logger(stderr io.Writer) (*zap.Logger, func(), error) {
	name := l.level
	switch {
	case name != "":
	case l.file != "":
		name = l.fileLevel
	default:
		name = l.stderrLevel
	}
	level, err := zapcore.ParseLevel(name)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-level: %w", err)
	}
	sink := zapcore.AddSync(stderr)
	closeFn := func() {}
	if l.file != "" {
		f, err := safefile.Append(l.file)
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
