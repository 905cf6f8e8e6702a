package subagents

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/jsjson"
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
	all, err := jsjson.ParseObject(data)
	if err != nil {
		return map[string]map[string]string{}, fmt.Errorf("reading the agents acknowledged in %s: %w", path, err)
	}
	// Entries of another shape are skipped, not fatal: the file is Gemini
	// CLI's too.
	acks := map[string]map[string]string{}
	for _, project := range all.Keys() {
		v, _ := all.Get(project)
		agents, ok := v.(*jsjson.Object)
		if !ok {
			continue
		}
		acks[project] = map[string]string{}
		for _, name := range agents.Keys() {
			if hash, ok := agents.Get(name); ok {
				if s, ok := hash.(string); ok {
					acks[project][name] = s
				}
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
	err := sharedlock.Rewrite(ctx, path, maxAckFile, func(old []byte) ([]byte, error) {
		// Parsed and written as 0.61's JSON.parse and JSON.stringify: the
		// other entries, of any shape, come out as they were, in order.
		all := jsjson.NewObject()
		if old != nil {
			var err error
			if all, err = jsjson.ParseObject(old); err != nil {
				return nil, fmt.Errorf("%s does not parse, and is left alone: %w", path, err)
			}
		}
		v, _ := all.Get(project)
		agents, isObject := v.(*jsjson.Object)
		if !isObject {
			agents = jsjson.NewObject()
		}
		agents.Set(name, hash)
		all.Set(project, agents)
		return jsjson.Stringify(all), nil
	}, safefile.WriteIf)
	if err != nil {
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
