//go:build unix

package tools

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/umasktest"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

func init() { umasktest.Main(map[string]umasktest.Case{"create": createUnderUmask}) }

// New files come out 0666 less the umask, as any Unix tool makes them;
// an edited file keeps its mode.
func TestNewFilesHonourTheUmask(t *testing.T) {
	for _, mask := range []fs.FileMode{0o077, 0o002} {
		umasktest.Run(t, "create", mask)
	}
}

// diskProposer lands every change on disk, as headless runs and ACP do.
type diskProposer struct{}

func (diskProposer) Propose(ctx context.Context, change workspace.FileChange) (dialog.Decision, error) {
	return LandOnDisk(ctx, change)
}

// createUnderUmask creates a file with write_file and edits a 0640 one
// with it.
func createUnderUmask(dir string, mask fs.FileMode) error {
	ctx := context.Background()
	ws, err := workspace.New([]string{dir}, nil)
	if err != nil {
		return err
	}
	existing := filepath.Join(dir, "existing.txt")
	if err := os.WriteFile(existing, []byte("old"), 0o600); err != nil {
		return err
	}
	if err := os.Chmod(existing, 0o640); err != nil {
		return err
	}
	write := proposingTool{Tool: writeFile(ws), p: diskProposer{}}
	for _, c := range []struct {
		tool Tool
		args map[string]any
	}{
		{write, map[string]any{"file_path": "new.txt", "content": "new"}},
		{write, map[string]any{"file_path": "existing.txt", "content": "edited"}},
	} {
		call, err := c.tool.Build(c.args)
		if err != nil {
			return err
		}
		res, err := call.Execute(ctx, CallInfo{})
		if err == nil && res.Error != "" {
			err = errors.New(res.Error)
		}
		if err != nil {
			return err
		}
	}
	return errors.Join(
		umasktest.WantMode(filepath.Join(dir, "new.txt"), 0o666&^mask),
		umasktest.WantMode(existing, 0o640),
	)
}
