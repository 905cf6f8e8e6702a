package policy

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"github.com/BurntSushi/toml"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// AutoSavedFile is the name of the policy file an "always allow" the user
// gave for all future sessions is saved in, in a trusted workspace's
// .gemini/policies or else the user's ~/.gemini/policies, as Gemini CLI
// 0.61 names it (AUTO_SAVED_POLICY_FILENAME).
const AutoSavedFile = "auto-saved.toml"

// AlwaysAllowPriority is the priority, within its tier, of a rule an
// "always allow" made (Gemini CLI's ALWAYS_ALLOW_PRIORITY_FRACTION): a
// saved rule's priority field, by which security.disableAlwaysAllow
// knows such rules.
const AlwaysAllowPriority = 950

// IsAlwaysAllow reports whether r is a rule an "always allow" made,
// as Gemini CLI's isAlwaysAllowRule tells them: its priority within its
// tier is AlwaysAllowPriority.
func IsAlwaysAllow(r *Rule) bool {
	_, frac := math.Modf(r.Priority)
	return math.Round(frac*1000) == AlwaysAllowPriority
}

// WithoutAlwaysAllow is e without the rules an "always allow" made
// (security.disableAlwaysAllow), which Gemini CLI's engine skips.
func (e *Engine) WithoutAlwaysAllow() *Engine {
	if e == nil {
		return nil
	}
	out := *e
	out.rules = slices.DeleteFunc(slices.Clone(e.rules), IsAlwaysAllow)
	out.listing = sync.OnceValue(func() []*Rule { return slices.DeleteFunc(slices.Clone(e.listing()), IsAlwaysAllow) })
	return &out
}

// SavedRule is an "always allow" as Gemini CLI 0.61 saves it
// (createTomlRule): the tool (an MCP tool's own name, with its server in
// MCPName), the command names of a shell line or the arguments' pattern
// that narrow it, and the modes it holds in.
type SavedRule struct {
	ToolName      string
	MCPName       string
	CommandPrefix []string
	ArgsPattern   string
	Modes         []Mode
}

// table is r as a [[rule]], its fields in the order 0.61 writes them.
func (r SavedRule) table() map[string]any {
	t := map[string]any{"decision": string(Allow), "priority": int64(AlwaysAllowPriority), "toolName": r.ToolName}
	if r.MCPName != "" {
		t["mcpName"] = r.MCPName
	}
	switch {
	case len(r.CommandPrefix) > 0:
		t["commandPrefix"] = r.CommandPrefix
	case r.ArgsPattern != "":
		t["argsPattern"] = r.ArgsPattern
	}
	if len(r.Modes) > 0 {
		modes := make([]string, len(r.Modes))
		for i, m := range r.Modes {
			modes[i] = string(m)
		}
		t["modes"] = modes
	}
	return t
}

// same reports whether t is the rule r, as 0.61's findMatchingRule
// compares them: tool, server, command prefix and pattern.
func (r SavedRule) same(t map[string]any) bool {
	str := func(k string) string { s, _ := t[k].(string); return s }
	prefixes, err := stringOrList(t, "commandPrefix")
	return err == nil && str("toolName") == r.ToolName && str("mcpName") == r.MCPName &&
		slices.Equal(prefixes, r.CommandPrefix) && str("argsPattern") == r.ArgsPattern
}

// Save adds r to the auto-saved policy file at path, creating it and
// its directory, unless the file has the rule already (then its modes
// are r's), as Gemini CLI 0.61's policy updater does, so that the next
// session allows such calls unasked. A file that is not TOML is kept
// as path.bak and replaced, as 0.61 does. Errors are the file system's,
// which name the file. The file is read and rewritten under its lock
// (internal/sharedlock), so that two sessions saving at once keep both
// rules; Gemini CLI 0.61 writes it without one, so it is also checked
// unchanged just before the rename.
func Save(ctx context.Context, path string, r SavedRule) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	err := sharedlock.Rewrite(ctx, path, maxFileSize, func(before []byte) ([]byte, error) {
		rules, err := savedRules(path, before)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(rules, r.same)
		switch {
		case i < 0:
			rules = append(rules, r.table())
		case len(r.Modes) > 0:
			rules[i]["modes"] = r.table()["modes"]
		}
		var buf bytes.Buffer
		enc := toml.NewEncoder(&buf)
		enc.Indent = "" // flush left, as Gemini CLI writes it
		if err := enc.Encode(map[string]any{"rule": rules}); err != nil {
			return nil, fmt.Errorf("encoding %s: %w", path, err)
		}
		return buf.Bytes(), nil
	}, safefile.WriteIf)
	if err != nil {
		return fmt.Errorf("saving the rule: %w", err)
	}
	return nil
}

// savedRules are the rules of data, the auto-saved file at path: none
// when there is none, or when it is not TOML with a [[rule]] array (then
// it is kept as path.bak).
func savedRules(path string, data []byte) ([]map[string]any, error) {
	if data == nil {
		return nil, nil
	}
	var doc map[string]any
	_, err := toml.Decode(string(data), &doc)
	rules, ok := doc["rule"].([]map[string]any)
	if _, has := doc["rule"]; err == nil && (ok || !has) {
		return rules, nil
	}
	if err := os.WriteFile(path+".bak", data, 0o600); err != nil {
		return nil, fmt.Errorf("backing up the unreadable %s: %w", path, err)
	}
	return nil, nil
}
