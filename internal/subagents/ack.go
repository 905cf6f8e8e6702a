package subagents

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// The acknowledgments are Gemini CLI's file, shared with it: a project's
// agents acknowledged in either program are in the other.
//
// 0.61 keeps them in ~/.gemini/acknowledgments/agents.json
// (Storage.getAcknowledgedAgentsPath, chunk-JDPZ4CE3.js:253220) as
// {"<project root>": {"<agent name>": "<hash>"}}, written by
// JSON.stringify(…, null, 2) (AcknowledgedAgentsService, :364434). An
// agent is acknowledged while its hash is the one recorded: editing the
// file asks again.

// maxAckFile bounds the acknowledgments file read.
const maxAckFile = 4 << 20

// AcknowledgmentsPath is the acknowledgments file under userDir, ~/.gemini.
func AcknowledgmentsPath(userDir string) string {
	return filepath.Join(userDir, "acknowledgments", "agents.json")
}

// readAcks reads the acknowledgments; a missing file has none. A file
// that does not parse is an error, as 0.61 logs it and reads none.
func readAcks(path string) (map[string]map[string]string, error) {
	data, err := safefile.Read(path, maxAckFile)
	if errors.Is(err, fs.ErrNotExist) {
		return map[string]map[string]string{}, nil
	}
	if err != nil {
		return map[string]map[string]string{}, fmt.Errorf("reading the agents acknowledged: %w", err)
	}
	// Entries of another shape are skipped, not fatal: the file is Gemini
	// CLI's too.
	var raw map[string]map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		return map[string]map[string]string{}, fmt.Errorf("reading the agents acknowledged in %s: %w", path, err)
	}
	acks := map[string]map[string]string{}
	for project, agents := range raw {
		acks[project] = map[string]string{}
		for name, hash := range agents {
			if s, ok := hash.(string); ok {
				acks[project][name] = s
			}
		}
	}
	return acks, nil
}

// acknowledge records that the user accepted the project's agent name at
// hash, keeping every other entry. The file is locked meanwhile
// (internal/sharedlock), so two sessions acknowledging at once keep both.
func acknowledge(ctx context.Context, path, project, name, hash string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("recording the agent acknowledged: %w", err)
	}
	lock, err := sharedlock.Acquire(ctx, path)
	if err != nil {
		return fmt.Errorf("recording the agent acknowledged: %w", err)
	}
	defer lock.Release()
	data, err := safefile.Read(path, maxAckFile)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("recording the agent acknowledged: %w", err)
	}
	// The file is kept whole, values of other shapes included.
	all := map[string]map[string]any{}
	if len(data) > 0 {
		if err := json.Unmarshal(data, &all); err != nil {
			return fmt.Errorf("recording the agent acknowledged: %s does not parse, and is left alone: %w", path, err)
		}
	}
	if all[project] == nil {
		all[project] = map[string]any{}
	}
	all[project][name] = hash
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false) // as JSON.stringify writes it
	enc.SetIndent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	if err := safefile.WriteIf(path, bytes.TrimSuffix(out.Bytes(), []byte("\n")), lock.Held); err != nil {
		return fmt.Errorf("recording the agent acknowledged: %w", err)
	}
	return nil
}

// remoteHash is 0.61's ensureRemoteAgentHash (chunk-JDPZ4CE3.js:341240):
// a remote agent is known by its card's URL, or its inline card's
// SHA-256, not by its file's.
func remoteHash(d Definition) string {
	if d.CardURL != "" {
		return d.CardURL
	}
	sum := sha256.Sum256([]byte(d.CardJSON))
	return hex.EncodeToString(sum[:])
}
