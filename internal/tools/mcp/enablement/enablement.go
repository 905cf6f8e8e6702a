// Package enablement keeps which MCP servers the user turned off, where
// and as Gemini CLI 0.61's McpServerEnablementManager keeps them:
// ~/.gemini/mcp-server-enablement.json, an object from each server's
// normalized name (lower case, trimmed) to {"enabled": false}, written as
// JSON.stringify(config, null, 2). A server it does not name is enabled,
// so enabling one removes its entry, as 0.61 does; either tool reads what
// the other wrote.
//
// Invariants: a file that cannot be parsed is never overwritten (0.61
// would replace it with {}): Enable and Disable fail, saying why, and
// Disabled reports the error with no server disabled. Writes go through
// a lock on the directory and an atomic replace (safefile).
package enablement

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// FileName is 0.61's MCP_ENABLEMENT_FILENAME, in the user's Gemini
// directory.
const FileName = "mcp-server-enablement.json"

// maxSize bounds the file read; it holds a line per server.
const maxSize = 1 << 20

// Normalize is the name a server is kept under, 0.61's normalizeServerId.
func Normalize(name string) string { return strings.ToLower(strings.TrimSpace(name)) }

// File is the enablement file of one user directory.
type File struct{ path string }

// In is the enablement file of the user's Gemini directory userDir.
func In(userDir string) File { return File{path: filepath.Join(userDir, FileName)} }

// Path is where the file is.
func (f File) Path() string { return f.path }

// Disabled are the normalized names of the servers the file turns off.
func (f File) Disabled() (map[string]bool, error) {
	config, err := f.read()
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, name := range config.Keys() {
		if !enabled(config, name) {
			out[name] = true
		}
	}
	return out, nil
}

// enabled is 0.61's isFileEnabled: state?.enabled ?? true, with only
// false (JavaScript's other falsy values are not written by either tool)
// turning a server off.
func enabled(config *jsjson.Object, name string) bool {
	state, ok := config.Get(name)
	if !ok {
		return true
	}
	obj, ok := state.(*jsjson.Object)
	if !ok {
		return true
	}
	v, _ := obj.Get("enabled")
	return v != false
}

// Enable turns the server name back on: its entry is removed, and the
// file written only if it had one, as 0.61's enable does.
func (f File) Enable(ctx context.Context, name string) error {
	return f.update(ctx, func(config *jsjson.Object) bool {
		key := Normalize(name)
		if !config.Has(key) {
			return false
		}
		*config = *config.Without(key)
		return true
	})
}

// Disable turns the server name off: its entry becomes {"enabled":
// false}, in its place if it had one, else last.
func (f File) Disable(ctx context.Context, name string) error {
	return f.update(ctx, func(config *jsjson.Object) bool {
		state := jsjson.NewObject()
		state.Set("enabled", false)
		config.Set(Normalize(name), state)
		return true
	})
}

// update applies change to the file under its lock
// (sharedlock.Rewrite: Gemini CLI writes it without one, so what it
// writes meanwhile is kept and the change refused), writing it when
// change says it changed.
func (f File) update(ctx context.Context, change func(*jsjson.Object) bool) error {
	dir := filepath.Dir(f.path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	return sharedlock.Rewrite(ctx, f.path, maxSize, func(data []byte) ([]byte, error) {
		config, err := f.parse(data)
		if err != nil {
			return nil, err
		}
		if !change(config) {
			return nil, sharedlock.ErrUnchanged
		}
		return jsjson.Stringify(config), nil
	}, safefile.WriteIf)
}

// read parses the file; a missing one is empty.
func (f File) read() (*jsjson.Object, error) {
	data, err := safefile.Read(f.path, maxSize)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("reading the MCP server enablement file: %w", err)
	}
	return f.parse(data)
}

// parse parses data, the file's text: nil when it is missing, which is
// empty.
func (f File) parse(data []byte) (*jsjson.Object, error) {
	if data == nil {
		return jsjson.NewObject(), nil
	}
	v, err := jsjson.Parse(data)
	if err != nil {
		return nil, fmt.Errorf("reading the MCP server enablement file %s: %w", f.path, err)
	}
	config, ok := v.(*jsjson.Object)
	if !ok {
		return nil, fmt.Errorf("reading the MCP server enablement file %s: it is not a JSON object", f.path)
	}
	return config, nil
}
