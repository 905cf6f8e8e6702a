//go:build unix

package lsp

import (
	"errors"
	"io/fs"
	"testing"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/umasktest"
)

func init() { umasktest.Main(map[string]umasktest.Case{"state files": stateFilesUnderUmask}) }

// Transcripts and the diffs an edit question points to come out 0666
// less the umask, as any Unix tool makes them.
func TestStateFilesHonourTheUmask(t *testing.T) {
	for _, mask := range []fs.FileMode{0o077, 0o002} {
		umasktest.Run(t, "state files", mask)
	}
}

func stateFilesUnderUmask(dir string, mask fs.FileMode) error {
	s := &Server{opts: Options{StateDir: dir}, log: zap.NewNop()}
	tr := (&transcripts{}).begin(s, dialog.SessionInfo{ID: "session"}, "a prompt")
	if tr.path == "" {
		return errors.New("the transcript was not written")
	}
	diff, err := s.writeDiff("main.go", "--- a\n+++ b\n")
	if err != nil {
		return err
	}
	return errors.Join(
		umasktest.WantMode(tr.path, 0o666&^mask),
		umasktest.WantMode(diff, 0o666&^mask),
	)
}
