//go:build unix

package main

import (
	"io"
	"io/fs"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/umasktest"
)

func init() { umasktest.Main(map[string]umasktest.Case{"log file": logFileUnderUmask}) }

// The --log-file comes out 0666 less the umask, as any Unix tool makes it.
func TestLogFileHonoursTheUmask(t *testing.T) {
	for _, mask := range []fs.FileMode{0o077, 0o002} {
		umasktest.Run(t, "log file", mask)
	}
}

func logFileUnderUmask(dir string, mask fs.FileMode) error {
	path := filepath.Join(dir, "gemini-ls.log")
	log, closeLog, err := (&logFlags{file: path}).logger(io.Discard, false)
	if err != nil {
		return err
	}
	log.Info("a line")
	closeLog()
	return umasktest.WantMode(path, 0o666&^mask)
}
