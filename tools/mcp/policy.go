package mcp

import "encoding/json"

// MCPAnnotations are the hints the server gives of the tool (readOnlyHint
// ...), which policy rules' toolAnnotations match; nil when it gives none.
func (t *tool) MCPAnnotations() map[string]any {
	if t.remote.Annotations == nil {
		return nil
	}
	b, err := json.Marshal(t.remote.Annotations)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}

// MCPTrusted reports whether the settings trust the tool's server, which
// ranks above some policy rules.
func (t *tool) MCPTrusted() bool { return t.server.cfg.Trust }
