package settings

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/spelling"
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
	// Meant is the key an Unknown one is likely a typo of, a key at the
	// same place (model for modle, general.defaultApprovalMode for
	// general.defaultAproval, an MCP server's field for its fields); ""
	// when none is near (spelling.Suggest).
	Meant string
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
	// children are the names under each parent ("" for the top), sorted:
	// what a key there that is neither could have meant.
	children map[string][]string
}

func newCatalogue() catalogue {
	c := catalogue{keys: schemaKeys(), parents: map[string]bool{}, mcp: mcpServerFields(), children: map[string][]string{}}
	named := map[string]bool{}
	for key := range c.keys {
		for i := len(key); i > 0; i = strings.LastIndexByte(key[:i], '.') {
			if i < len(key) {
				c.parents[key[:i]] = true
			}
			if !named[key[:i]] {
				named[key[:i]] = true
				parent, name := splitKey(key[:i])
				c.children[parent] = append(c.children[parent], name)
			}
		}
	}
	for _, names := range c.children {
		slices.Sort(names)
	}
	return c
}

// splitKey is a dotted key's parent ("" at the top) and last name.
func splitKey(key string) (parent, name string) {
	i := strings.LastIndexByte(key, '.')
	if i < 0 {
		return "", key
	}
	return key[:i], key[i+1:]
}

// meant is the key that key, under no name of the catalogue, is likely
// a typo of: a name at its place; "" when none is near.
func (c catalogue) meant(key string) string {
	parent, name := splitKey(key)
	near := spelling.Suggest(name, c.children[parent])
	if near == "" || parent == "" {
		return near
	}
	return parent + "." + near
}

// unreadKeys are the keys of obj, the object of the settings file at
// path, that gemini-ls does not read.
func (c catalogue) unreadKeys(path string, obj map[string]any) []Unread {
	var out []Unread
	c.walk(obj, "", func(u Unread) {
		u.File = path
		out = append(out, u)
	})
	return out
}

// walk calls report for each key below prefix in obj that is not read.
func (c catalogue) walk(obj map[string]any, prefix string, report func(Unread)) {
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		key := name
		if prefix != "" {
			key = prefix + "." + name
		}
		if s, ok := c.keys[key]; ok {
			if s == notImplemented {
				report(Unread{Key: key})
			} else if key == "mcpServers" {
				c.walkMCPServers(obj[name], report)
			}
			continue
		}
		if !c.parents[key] {
			report(Unread{Key: key, Unknown: true, Meant: c.meant(key)})
			continue
		}
		if inner, ok := obj[name].(map[string]any); ok {
			c.walk(inner, key, report)
		} else if obj[name] != nil {
			// Not the object Gemini CLI's schema has here, and nothing
			// of gemini-ls's reads it (Load would have refused it).
			report(Unread{Key: key})
		}
	}
}

// walkMCPServers reports the fields of each mcpServers entry that are not
// read, as mcpServers.NAME.FIELD.
func (c catalogue) walkMCPServers(servers any, report func(Unread)) {
	byName, _ := servers.(map[string]any)
	fieldNames := slices.Sorted(maps.Keys(c.mcp))
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		fields, _ := byName[name].(map[string]any)
		for _, field := range slices.Sorted(maps.Keys(fields)) {
			s, known := c.mcp[field]
			if known && s != notImplemented {
				continue
			}
			u := Unread{Key: fmt.Sprintf("mcpServers.%s.%s", name, field), Unknown: !known}
			if near := spelling.Suggest(field, fieldNames); !known && near != "" {
				u.Meant = fmt.Sprintf("mcpServers.%s.%s", name, near)
			}
			report(u)
		}
	}
}
