package builtin

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/geminidir"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/safefile"
)

// A checkpoint is Gemini CLI's manual save of a conversation
// (packages/core/src/core/logger.ts): <project dir>/checkpoint-<tag>.json,
// the tag encoded as encodeURIComponent encodes it, holding the genai
// history and the auth type it was made with, indented two spaces. An
// older Gemini CLI wrote the history alone, as an array, under the raw
// tag; both are read.
const (
	checkpointPrefix = "checkpoint-"
	checkpointSuffix = ".json"
	// maxCheckpointSize bounds a checkpoint read: a history with a few
	// images in it, not a file put there to exhaust memory.
	maxCheckpointSize = 64 << 20
	// maxTagLength bounds an encoded tag, so its file name fits the
	// 255 bytes every file system allows.
	maxTagLength = 200
)

// checkpoint is a checkpoint file's content, as logger.ts's Checkpoint.
type checkpoint struct {
	History  []*genai.Content `json:"history"`
	AuthType string           `json:"authType,omitempty"`
}

// savedChat is a checkpoint as /chat list shows it.
type savedChat struct {
	Tag   string
	Saved time.Time
}

// errNoCheckpoint is a tag no checkpoint has.
var errNoCheckpoint = errors.New("no checkpoint")

// checkpoints are the checkpoints of one project.
type checkpoints struct{ dirs geminidir.Dirs }

// checkTag refuses a tag that cannot name a checkpoint file here. Gemini
// CLI encodes a separator, but also looks for the raw tag as a file name:
// a tag with one could name a file elsewhere.
func checkTag(tag string) error {
	switch {
	case tag == "":
		return errors.New("missing tag")
	case strings.ContainsAny(tag, `/\`):
		return fmt.Errorf("invalid tag %q: a tag cannot contain / or \\", tag)
	case !utf8.ValidString(tag) || strings.ContainsRune(tag, 0):
		return fmt.Errorf("invalid tag %q: a tag must be text", tag)
	case len(encodeTag(tag)) > maxTagLength:
		return fmt.Errorf("invalid tag: at most %d characters once encoded", maxTagLength)
	}
	return nil
}

// encodeTag is JavaScript's encodeURIComponent, as Gemini CLI names the
// file.
func encodeTag(tag string) string {
	var b strings.Builder
	for i := 0; i < len(tag); i++ {
		c := tag[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}

// percentByte is what decodeTag's fallback decodes.
var percentByte = lazyregexp.New(`%[0-9A-F]{2}`)

// decodeTag is Gemini CLI's decodeTagName: decodeURIComponent, else each
// %XX as the character of that code.
func decodeTag(name string) string {
	if s, err := url.PathUnescape(name); err == nil && utf8.ValidString(s) {
		return s
	}
	return percentByte.ReplaceAllStringFunc(name, func(m string) string {
		n, _ := strconv.ParseUint(m[1:], 16, 8)
		return string(rune(n))
	})
}

// path is the file of tag's checkpoint in dir: the encoded name, or an
// older Gemini CLI's raw one when only that exists.
func checkpointPath(dir, tag string) string {
	encoded := filepath.Join(dir, checkpointPrefix+encodeTag(tag)+checkpointSuffix)
	if _, err := os.Lstat(encoded); errors.Is(err, fs.ErrNotExist) {
		raw := filepath.Join(dir, checkpointPrefix+tag+checkpointSuffix)
		if _, err := os.Lstat(raw); err == nil {
			return raw
		}
	}
	return encoded
}

// save writes cp as tag's checkpoint; one of that tag is not replaced
// (Gemini CLI asks first; here the user deletes it first).
func (c checkpoints) save(tag string, cp checkpoint) (string, error) {
	dir, err := c.dirs.FindOrClaim()
	if err != nil {
		return "", err
	}
	path := checkpointPath(dir, tag)
	if _, err := os.Lstat(path); err == nil {
		return "", fmt.Errorf("a checkpoint tagged %q already exists: delete it first (/chat delete %s) or save under another tag", tag, tag)
	}
	data, err := json.MarshalIndent(cp, "", "  ")
	if err != nil {
		return "", fmt.Errorf("encoding the checkpoint: %w", err)
	}
	if err := safefile.Replace(path, data, 0o600); err != nil {
		return "", fmt.Errorf("writing the checkpoint %s: %w", path, err)
	}
	return path, nil
}

// load reads tag's checkpoint; errNoCheckpoint when there is none.
func (c checkpoints) load(tag string) (checkpoint, error) {
	dir, err := c.dirs.Find()
	if err != nil {
		return checkpoint{}, err
	}
	if dir == "" {
		return checkpoint{}, errNoCheckpoint
	}
	path := checkpointPath(dir, tag)
	data, err := safefile.Read(path, maxCheckpointSize)
	if errors.Is(err, fs.ErrNotExist) {
		return checkpoint{}, errNoCheckpoint
	}
	if err != nil {
		return checkpoint{}, fmt.Errorf("reading the checkpoint %s: %w", path, err)
	}
	cp, err := parseCheckpoint(data)
	if err != nil {
		return checkpoint{}, fmt.Errorf("reading the checkpoint %s: %w", path, err)
	}
	return cp, nil
}

// parseCheckpoint reads either format Gemini CLI has written.
func parseCheckpoint(data []byte) (checkpoint, error) {
	var cp checkpoint
	if trimmed := strings.TrimSpace(string(data)); strings.HasPrefix(trimmed, "[") {
		if err := json.Unmarshal(data, &cp.History); err != nil {
			return checkpoint{}, fmt.Errorf("it is not a Gemini CLI checkpoint: %w", err)
		}
		return cp, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(data, &fields); err != nil {
		return checkpoint{}, fmt.Errorf("it is not a Gemini CLI checkpoint: %w", err)
	}
	if _, ok := fields["history"]; !ok {
		return checkpoint{}, errors.New("it is not a Gemini CLI checkpoint: it has no history")
	}
	if err := json.Unmarshal(data, &cp); err != nil {
		return checkpoint{}, fmt.Errorf("it is not a Gemini CLI checkpoint: %w", err)
	}
	return cp, nil
}

// list is every checkpoint of the project, the oldest first, as Gemini
// CLI lists them.
func (c checkpoints) list() ([]savedChat, error) {
	dir, err := c.dirs.Find()
	if err != nil || dir == "" {
		return nil, err
	}
	entries, err := safefile.ReadDir(dir, geminidir.MaxScanned)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", dir, err)
	}
	var out []savedChat
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Name(), checkpointPrefix)
		if !ok || !strings.HasSuffix(name, checkpointSuffix) || !e.Type().IsRegular() {
			continue
		}
		fi, err := e.Info()
		if err != nil {
			continue // deleted meanwhile
		}
		out = append(out, savedChat{Tag: decodeTag(strings.TrimSuffix(name, checkpointSuffix)), Saved: fi.ModTime()})
	}
	slices.SortFunc(out, func(a, b savedChat) int {
		if n := a.Saved.Compare(b.Saved); n != 0 {
			return n
		}
		return strings.Compare(a.Tag, b.Tag)
	})
	return out, nil
}

// delete removes tag's checkpoint; errNoCheckpoint when there is none.
func (c checkpoints) delete(tag string) error {
	dir, err := c.dirs.Find()
	if err != nil {
		return err
	}
	if dir == "" {
		return errNoCheckpoint
	}
	path := checkpointPath(dir, tag)
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("deleting the checkpoint: %s is not a regular file", path)
	}
	switch err := os.Remove(path); {
	case errors.Is(err, fs.ErrNotExist):
		return errNoCheckpoint
	case err != nil:
		return fmt.Errorf("deleting the checkpoint: %w", err)
	}
	return nil
}
