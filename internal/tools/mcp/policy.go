package mcp

import (
	"cmp"
	"encoding/json"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/tools"
)

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

// MCPContext is what the BeforeTool and AfterTool hooks are told of the
// tool's server (their input's mcp_context), as Gemini CLI 0.61 tells
// them (coreToolHookTriggers.js extractMcpContext): its name, the tool's
// name on it, and how it is reached, as the settings give them: command,
// args and cwd, or url (else httpUrl). Not its env or headers, which may
// hold secrets. A field the settings leave out is left out, as 0.61's
// JSON leaves out an undefined one.
func (t *tool) MCPContext() map[string]any {
	cfg := t.server.cfg
	ctx := map[string]any{"server_name": t.server.alias, "tool_name": t.remote.Name}
	if cfg.Command != "" {
		ctx["command"] = cfg.Command
	}
	if cfg.Args != nil {
		ctx["args"] = cfg.Args
	}
	if cfg.Cwd != "" {
		ctx["cwd"] = cfg.Cwd
	}
	if url := cmp.Or(cfg.URL, cfg.HTTPURL); url != "" {
		ctx["url"] = url
	}
	return ctx
}

// Annotations are what the server says of the tool, as far as Gemini CLI
// 0.61 acts on it: its readOnlyHint (mcp-client.ts's isReadOnly), by
// which plan mode asks before the tool runs instead of refusing it
// (plan.toml). Its other hints are the server's word, which 0.61 lets
// decide nothing (openWorldHint, say, would let auto_edit run it
// unasked). Its kind is execute: a server's tool can do anything.
func (t *tool) Annotations() tools.Annotations {
	a := t.remote.Annotations
	return tools.Annotations{Kind: dialog.KindExecute, ReadOnly: a != nil && a.ReadOnlyHint}
}
