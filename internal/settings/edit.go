package settings

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/safefile"
	"github.com/gemini-ls/gemini-ls/internal/sharedlock"
)

// maxSettingsFile bounds a settings file read for an edit.
const maxSettingsFile = 4 << 20

// EditSkillsDisabled changes skills.disabled in the settings file at
// path (Gemini CLI's /skills enable and disable): edit gets the list the
// file holds and returns the new one. Only that value's text changes:
// the rest of the file, its comments and layout, is kept byte for byte.
// A missing file is created. A file that is not a JSON object is an
// error, and is left alone; so is one another program changed meanwhile.
func EditSkillsDisabled(ctx context.Context, path string, edit func(old []string) []string) error {
	return editFile(ctx, path, func(src []byte, obj map[string]any) ([]byte, error) {
		var old []string
		if skills, ok := obj["skills"].(map[string]any); ok {
			if list, ok := skills["disabled"].([]any); ok {
				for _, v := range list {
					if s, ok := v.(string); ok {
						old = append(old, s)
					}
				}
			}
		}
		return setMember(src, []string{"skills", "disabled"}, jsonList(edit(old)))
	})
}

// SetModelName sets model.name in the settings file at path to name, as
// Gemini CLI's /model set --persist saves it in the user's settings; the
// file is edited as EditSkillsDisabled edits it.
func SetModelName(ctx context.Context, path, name string) error {
	return editFile(ctx, path, func(src []byte, _ map[string]any) ([]byte, error) {
		return setMember(src, []string{"model", "name"}, quote(name))
	})
}

// errUnchanged stops an edit that would write what the file says already.
var errUnchanged = errors.New("unchanged")

// SetAgentEnabled sets agents.overrides.NAME.enabled in the settings file
// at path, as Gemini CLI 0.61's /agents enable and disable write it
// (agentSettings.ts); the file is edited as EditSkillsDisabled edits it,
// and left alone when it says so already. changed reports a write.
func SetAgentEnabled(ctx context.Context, path, name string, enabled bool) (changed bool, err error) {
	err = editFile(ctx, path, func(src []byte, obj map[string]any) ([]byte, error) {
		if cur, ok := lookupKeys(obj, "agents", "overrides", name, "enabled"); ok && cur == enabled {
			return nil, errUnchanged
		}
		value := "false"
		if enabled {
			value = "true"
		}
		return setMember(src, []string{"agents", "overrides", name, "enabled"}, value)
	})
	if errors.Is(err, errUnchanged) {
		return false, nil
	}
	return err == nil, err
}

// AgentEnabled is agents.overrides.NAME.enabled in the settings file at
// path; ok is false when the file does not set it (or does not exist).
func AgentEnabled(path, name string) (enabled, ok bool, err error) {
	src, err := safefile.Read(path, maxSettingsFile)
	if errors.Is(err, fs.ErrNotExist) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("reading %s: %w", path, err)
	}
	obj, err := parseObject(path, src)
	if err != nil {
		return false, false, err
	}
	v, ok := lookupKeys(obj, "agents", "overrides", name, "enabled")
	b, isBool := v.(bool)
	return b, ok && isBool, nil
}

// lookupKeys is the value at keys in obj, keys being literal (an agent's
// name may hold what a dotted path would split).
func lookupKeys(obj map[string]any, keys ...string) (any, bool) {
	var cur any = obj
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = m[k]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// editFile rewrites the settings file at path with what change makes of
// its text and parsed object. A missing file is created; one that is not
// a JSON object, or that another program changed meanwhile, is an error
// and is left alone. The edit is made under the file's lock
// (internal/sharedlock), which every gemini-ls takes; Gemini CLI 0.61
// takes none on its settings, so the file is also checked unchanged just
// before the rename.
func editFile(ctx context.Context, path string, change func(src []byte, obj map[string]any) ([]byte, error)) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	// The lock's, the read's and the write's errors name the file, as
	// parseObject's do.
	return sharedlock.Rewrite(ctx, path, maxSettingsFile, func(src []byte) ([]byte, error) {
		obj, err := parseObject(path, src)
		if err != nil {
			return nil, err
		}
		if depth := nesting(obj); depth > maxEditNesting {
			return nil, fmt.Errorf("editing %s: its values nest %d levels deep, and an edit, which re-indents them, stops at %d; nothing was written, edit the file by hand", path, depth, maxEditNesting)
		}
		out, err := change(src, obj)
		if err != nil {
			return nil, fmt.Errorf("editing %s: %w", path, err)
		}
		return out, nil
	}, safefile.WriteIf)
}

// maxEditNesting is how deep the values of a file an edit re-indents may
// nest. Each level adds two blanks to every line below it, so a file of
// n nested brackets (the JSON parser allows 10000) would be written
// back n² bytes long; settings nest a handful of levels.
const maxEditNesting = 32

// nesting is how deep v, a decoded JSON value, nests: 0 for a scalar.
// Its recursion is as deep as v, which the JSON parser bounds.
func nesting(v any) int {
	deepest := 0
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			deepest = max(deepest, nesting(e))
		}
	case []any:
		for _, e := range v {
			deepest = max(deepest, nesting(e))
		}
	default:
		return 0
	}
	return deepest + 1
}

// jsonList is list as a one-line JSON array.
func jsonList(list []string) string {
	quoted := make([]string, len(list))
	for i, s := range list {
		b, _ := json.Marshal(s)
		quoted[i] = string(b)
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// setMember returns src, a settings file (JSON with comments), with the
// member at keys set to value, text that is valid JSON: the old value's
// text replaced, or the missing members inserted first in their objects.
func setMember(src []byte, keys []string, value string) ([]byte, error) {
	clean := stripJSONC(src)
	start := skipSpace(clean, 0)
	if start == len(clean) {
		return []byte(nest(keys, value, "") + "\n"), nil
	}
	if clean[start] != '{' {
		return nil, errors.New("the file does not hold a JSON object")
	}
	open := start // the '{' of the object the next key is looked up in
	for depth, key := range keys {
		valStart, valEnd, found, err := lastMember(clean, open, key)
		if err != nil {
			return nil, err
		}
		last := depth == len(keys)-1
		switch {
		case found && !last && clean[valStart] == '{':
			open = valStart
			continue
		case found:
			return splice(src, valStart, valEnd, nest(keys[depth+1:], value, indentOf(src, valStart))), nil
		}
		indent := indentOf(src, open) + "  "
		member := "\n" + indent + quote(key) + ": " + nest(keys[depth+1:], value, indent)
		if emptyObject(clean, open) {
			member += "\n" + indentOf(src, open)
		} else {
			member += ","
		}
		return splice(src, open+1, open+1, member), nil
	}
	return nil, errors.New("no key to set")
}

// nest is value under keys, as JSON text indented from indent.
func nest(keys []string, value, indent string) string {
	if len(keys) == 0 {
		return value
	}
	inner := indent + "  "
	return "{\n" + inner + quote(keys[0]) + ": " + nest(keys[1:], value, inner) + "\n" + indent + "}"
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func splice(src []byte, from, to int, text string) []byte {
	out := append([]byte{}, src[:from]...)
	out = append(out, text...)
	return append(out, src[to:]...)
}

// indentOf is the leading blanks of the line holding offset, at most
// maxIndent of them.
func indentOf(src []byte, offset int) string {
	lineStart := bytes.LastIndexByte(src[:offset], '\n') + 1
	end := lineStart
	for end < len(src) && end-lineStart < maxIndent && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	return string(src[lineStart:end])
}

// maxIndent bounds the indentation an edit copies: each line of a value
// re-indented gets it, so a deeper one, which nobody writes by hand,
// would make the edited file grow as the square of its size.
const maxIndent = 64

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func emptyObject(clean []byte, open int) bool {
	i := skipSpace(clean, open+1)
	return i < len(clean) && clean[i] == '}'
}

// lastMember finds the value of key in the object whose '{' is at open:
// the last one, as a JSON parser keeps.
func lastMember(clean []byte, open int, key string) (valStart, valEnd int, found bool, err error) {
	i := skipSpace(clean, open+1)
	if i < len(clean) && clean[i] == '}' {
		return 0, 0, false, nil
	}
	for {
		keyEnd, err := valueEnd(clean, i)
		if err != nil || clean[i] != '"' {
			return 0, 0, false, errors.New("the file is not valid JSON")
		}
		var name string
		if err := json.Unmarshal(clean[i:keyEnd], &name); err != nil {
			return 0, 0, false, err
		}
		i = skipSpace(clean, keyEnd)
		if i >= len(clean) || clean[i] != ':' {
			return 0, 0, false, errors.New("the file is not valid JSON")
		}
		start := skipSpace(clean, i+1)
		end, err := valueEnd(clean, start)
		if err != nil {
			return 0, 0, false, err
		}
		if name == key {
			valStart, valEnd, found = start, end, true
		}
		i = skipSpace(clean, end)
		switch {
		case i < len(clean) && clean[i] == ',':
			i = skipSpace(clean, i+1)
			if i < len(clean) && clean[i] == '}' { // a trailing comma, blanked already
				return valStart, valEnd, found, nil
			}
		case i < len(clean) && clean[i] == '}':
			return valStart, valEnd, found, nil
		default:
			return 0, 0, false, errors.New("the file is not valid JSON")
		}
	}
}

// valueEnd is the offset just past the JSON value starting at i.
func valueEnd(b []byte, i int) (int, error) {
	if i >= len(b) {
		return 0, errors.New("the file is not valid JSON")
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1, nil
			}
		}
		return 0, errors.New("the file is not valid JSON")
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, err := valueEnd(b, j)
				if err != nil {
					return 0, err
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1, nil
				}
			}
		}
		return 0, errors.New("the file is not valid JSON")
	}
	j := i
	for j < len(b) && !strings.ContainsRune(",}] \t\r\n", rune(b[j])) {
		j++
	}
	return j, nil
}
