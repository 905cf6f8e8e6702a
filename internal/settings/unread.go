package settings

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Unread is a key a settings file holds that gemini-ls does not read, so
// that the user is told rather than left to wonder why it does nothing.
type Unread struct {
	File string
	Key  string
	// Unknown: not a key of Gemini CLI's settings either (a typo, or
	// another version's key), as opposed to one gemini-ls does not
	// implement.
	Unknown bool
}

// UnreadKeys are the keys of the files Load read that gemini-ls does not
// read, in the files' order and each file's keys sorted.
func (s Settings) UnreadKeys() []Unread { return slices.Clone(s.unread) }

// catalogue answers, for a dotted path, whether it is a settings key and
// whether gemini-ls reads it.
type catalogue struct {
	keys    map[string]support
	parents map[string]bool // every proper prefix of a key: an object to look into
	mcp     map[string]support
}

func newCatalogue() catalogue {
	c := catalogue{keys: schemaKeys(), parents: map[string]bool{}, mcp: mcpServerFields()}
	for key := range c.keys {
		for i := strings.LastIndexByte(key, '.'); i > 0; i = strings.LastIndexByte(key[:i], '.') {
			c.parents[key[:i]] = true
		}
	}
	return c
}

// unreadKeys are the keys of obj, the object of the settings file at
// path, that gemini-ls does not read.
func (c catalogue) unreadKeys(path string, obj map[string]any) []Unread {
	var out []Unread
	c.walk(obj, "", func(key string, unknown bool) {
		out = append(out, Unread{File: path, Key: key, Unknown: unknown})
	})
	return out
}

// walk calls report for each key below prefix in obj that is not read.
func (c catalogue) walk(obj map[string]any, prefix string, report func(key string, unknown bool)) {
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		if s, ok := c.keys[key]; ok {
			if s == notImplemented {
				report(key, false)
			} else if key == "mcpServers" {
				c.walkMCPServers(obj[name], report)
			}
			continue
		}
		if !c.parents[key] {
			report(key, true)
			continue
		}
		if inner, ok := obj[name].(map[string]any); ok {
			c.walk(inner, key, report)
		} else if obj[name] != nil {
			// Not the object Gemini CLI's schema has here, and nothing
			// of gemini-ls's reads it (Load would have refused it).
			report(key, false)
		}
	}
}

// walkMCPServers reports the fields of each mcpServers entry that are not
// read, as mcpServers.NAME.FIELD.
func (c catalogue) walkMCPServers(servers any, report func(key string, unknown bool)) {
	byName, _ := servers.(map[string]any)
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		fields, _ := byName[name].(map[string]any)
		for _, field := range slices.Sorted(maps.Keys(fields)) {
			s, known := c.mcp[field]
			if !known || s == notImplemented {
				report(fmt.Sprintf("mcpServers.%s.%s", name, field), !known)
			}
		}
	}
}
