package main

import (
	"flag"
	"fmt"
	"io"

	"github.com/go-logr/stdr"
	"go.opentelemetry.io/otel"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// logFlags are shared by serve, acp and run.
type logFlags struct {
	file  string
	level string
}

// fileLevel is a --log-file's level when no --log-level is given.
const fileLevel = "info"

func (l *logFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&l.file, "log-file", "", "Write logs to this file (default: no logs, or stderr with --log-level)")
	fs.StringVar(&l.level, "log-level", "", "Log level: debug, info, warn or error (default: "+fileLevel+" in a --log-file; on stderr only when given)")
}

// logger builds the process logger: JSON lines to the log file, or to
// stderr when a level was asked for (--log-level, run's --debug), else
// none. stderr is a person's terminal (run) or the editor's log of
// gemini-ls (serve, acp; Helix marks each line [ERROR]): log lines reach
// it only when asked for. With tell (run, acp), the warnings and errors
// go there in words (noticeCore), unless the log lines do already; serve
// mirrors them to the editor instead. Never stdout: it carries the
// protocol or the answer.
func (l *logFlags) logger(stderr io.Writer, tell bool) (*zap.Logger, func(), error) {
	log, closeLog, err := l.jsonLogger(stderr)
	if err != nil || !tell || l.onStderr() {
		return log, closeLog, err
	}
	notices := newNoticeCore(stderr)
	return log.WithOptions(zap.WrapCore(func(c zapcore.Core) zapcore.Core { return zapcore.NewTee(c, notices) })), closeLog, nil
}

// onStderr reports whether the log lines go to stderr: a level was asked
// for, and no --log-file.
func (l *logFlags) onStderr() bool { return l.file == "" && l.level != "" }

// jsonLogger is the logger of JSON lines: to the --log-file, to stderr
// (onStderr), else none.
func (l *logFlags) jsonLogger(stderr io.Writer) (*zap.Logger, func(), error) {
	name := l.level
	if name == "" {
		name = fileLevel
	}
	level, err := zapcore.ParseLevel(name)
	if err != nil {
		return nil, nil, fmt.Errorf("--log-level: %w", err)
	}
	var sink zapcore.WriteSyncer
	closeFn := func() {}
	switch {
	case l.file != "":
		f, err := safefile.Append(l.file)
		if err != nil {
			return nil, nil, fmt.Errorf("opening the log file: %w", err)
		}
		sink = zapcore.AddSync(f)
		closeFn = func() { _ = f.Close() }
	case l.onStderr():
		sink = zapcore.AddSync(stderr)
	default:
		return zap.NewNop(), closeFn, nil
	}
	enc := zap.NewProductionEncoderConfig()
	enc.EncodeTime = zapcore.ISO8601TimeEncoder
	core := zapcore.NewCore(zapcore.NewJSONEncoder(enc), zapcore.Lock(sink), level)
	return zap.New(core), closeFn, nil
}

// sendLibraryLogsTo makes log the log of the libraries that write their
// own: each command calls it once it has its logger.
func sendLibraryLogsTo(log *zap.Logger) {
	sendOTelErrorsTo(log)
	sendStdLogTo(log)
}

// sendStdLogTo routes the standard log package to log at debug level. The
// genai SDK writes with it ("Error context canceled" when a prompt is
// cancelled mid-stream, an error it returns too), and by default to
// stderr: the editor's log of gemini-ls, or a person's terminal, where
// its lines belong only with --debug. The standard logger is
// process-wide, and this is never undone: a stream cancelled as the
// command ends logs after the command returned.
func sendStdLogTo(log *zap.Logger) {
	// Only an invalid level fails.
	_, _ = zap.RedirectStdLogAt(log.Named("stdlog"), zapcore.DebugLevel)
}

// sendOTelErrorsTo makes log the OpenTelemetry SDK's error handler and
// logger, whose defaults write export failures (an unreachable collector)
// and bad OTEL_* variables to stderr. The SDK has them process-wide only,
// so the process's command sets them, once it has its logger. At info:
// an unreachable collector fails every export, every 10 s in serve, and
// the user is told once, at exit, what could not be sent.
func sendOTelErrorsTo(log *zap.Logger) {
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Info("OpenTelemetry SDK error", zap.Error(err))
	}))
	if std, err := zap.NewStdLogAt(log.Named("otel"), zapcore.InfoLevel); err == nil {
		otel.SetLogger(stdr.New(std))
	}
}
