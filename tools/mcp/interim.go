package mcp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/settings"
)

// InterimServers reads "mcpServers" from root/.gemini/settings.json (plain
// JSON). It stands in for settings.Load, which replaces it when the
// settings reader lands.
func InterimServers(root string) (map[string]settings.MCPServer, error) {
	path := filepath.Join(root, ".gemini", "settings.json")
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	var s settings.Settings
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	return s.MCPServers, nil
}
