package settings

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// Expansion is bounded, so that a settings file cannot make gemini-ls
// hold more than a small multiple of its own size: a few bytes of "$BIG"
// repeated a million times with a large BIG would otherwise ask for
// gigabytes. Values well inside the bounds are what settings hold
// (commands, paths, URLs, headers).
const (
	// maxExpandedString bounds one string with its variables expanded,
	// unless it was longer as written: 128 KiB, the most one environment
	// variable can hold on Linux (MAX_ARG_STRLEN).
	maxExpandedString = 128 << 10
	// maxExpansionGrowth bounds what the variables add to one file, all
	// its strings together.
	maxExpansionGrowth = 1 << 20
)

// expandFile expands the variables in every string of obj, one file's
// object, in place, and adds to given each value a variable gave, with the
// variable's name. Past a bound it stops with an error naming the key,
// never a value: obj is then half expanded and must not be used.
func expandFile(obj map[string]any, getenv Getenv, given map[string]string) error {
	e := expander{getenv: getenv, budget: maxExpansionGrowth, given: given}
	_, err := e.value(obj)
	return err
}

// expander expands one file's strings, within the file's budget.
type expander struct {
	getenv Getenv
	budget int               // bytes the variables may still add to the file
	given  map[string]string // value → the variable that gave it
	// path is where the value being expanded is, spelled out only for an
	// error.
	path []step
}

// step is one step of a path: a key, or an index (then index ≥ 0).
type step struct {
	key   string
	index int
}

// value expands v, a decoded JSON value at e.path.
func (e *expander) value(v any) (any, error) {
	switch v := v.(type) {
	case string:
		return e.string(v)
	case map[string]any:
		// In order, so that the key an error names is the same each time.
		for _, k := range slices.Sorted(maps.Keys(v)) {
			out, err := e.child(step{key: k, index: -1}, v[k])
			if err != nil {
				return nil, err
			}
			v[k] = out
		}
	case []any:
		for i, elem := range v {
			out, err := e.child(step{index: i}, elem)
			if err != nil {
				return nil, err
			}
			v[i] = out
		}
	}
	return v, nil
}

// child expands v, one step below e.path.
func (e *expander) child(s step, v any) (any, error) {
	e.path = append(e.path, s)
	out, err := e.value(v)
	e.path = e.path[:len(e.path)-1]
	return out, err
}

// key is e.path spelled as settings.json's keys: "mcpServers.s.args[2]".
func (e *expander) key() string {
	var b strings.Builder
	for i, s := range e.path {
		switch {
		case s.index >= 0:
			b.WriteString("[" + strconv.Itoa(s.index) + "]")
		case i > 0:
			b.WriteString("." + s.key)
		default:
			b.WriteString(s.key)
		}
	}
	return b.String()
}

// string replaces each variable in s with its value, else its default,
// else leaves it as written.
func (e *expander) string(s string) (string, error) {
	ref, ok := nextVar(s, 0)
	if !ok {
		return s, nil
	}
	own := max(len(s), maxExpandedString)
	limit := min(own, len(s)+e.budget)
	var b strings.Builder
	last := 0
	for ; ok; ref, ok = nextVar(s, ref.end) {
		b.WriteString(s[last:ref.start])
		last = ref.end
		val := e.getenv(ref.name)
		switch {
		case val != "":
			if len(val) >= minRedacted && e.given != nil {
				e.given[val] = ref.name
			}
		case ref.hasDefault:
			val = ref.def
		default:
			val = s[ref.start:ref.end]
		}
		if b.Len()+len(val) > limit {
			return "", tooLong(e.key(), limit, limit < own)
		}
		b.WriteString(val)
	}
	b.WriteString(s[last:])
	if b.Len() > limit {
		return "", tooLong(e.key(), limit, limit < own)
	}
	e.budget -= max(0, b.Len()-len(s))
	return b.String(), nil
}

// varRef is one variable reference in a string: s[start:end].
type varRef struct {
	start, end int
	name, def  string
	hasDefault bool
}

// nextVar finds the first reference in s at or after from: $VAR, ${VAR}
// or ${VAR:-default}, as Gemini CLI's envVarResolver.ts matches them
// (/\$(?:(\w+)|{([^}]+?)(?::-([^}]*))?})/g). It scans instead of using
// a regular expression so that a string of a million references costs
// nothing beyond its output.
func nextVar(s string, from int) (varRef, bool) {
	for i := from; i < len(s); i++ {
		j := strings.IndexByte(s[i:], '$')
		if j < 0 {
			return varRef{}, false
		}
		i += j
		if i+1 >= len(s) {
			return varRef{}, false
		}
		if isWordByte(s[i+1]) {
			end := i + 2
			for end < len(s) && isWordByte(s[end]) {
				end++
			}
			return varRef{start: i, end: end, name: s[i+1 : end]}, true
		}
		if s[i+1] != '{' {
			continue
		}
		closing := strings.IndexByte(s[i+2:], '}')
		if closing <= 0 { // no "}", or "${}"
			continue
		}
		body := s[i+2 : i+2+closing]
		ref := varRef{start: i, end: i + 3 + closing, name: body}
		// The name is as short as it can be: up to the first ":-" after
		// its first byte.
		if k := strings.Index(body[1:], ":-"); k >= 0 {
			ref.name, ref.def, ref.hasDefault = body[:k+1], body[k+3:], true
		}
		return ref, true
	}
	return varRef{}, false
}

// isWordByte is \w: an ASCII letter, digit or underscore.
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// tooLong is the error of a string that outgrew a bound; it names the key
// and the bound, never what the variables held.
func tooLong(key string, limit int, fileBound bool) error {
	if fileBound {
		return fmt.Errorf("%s: expanding its variables would make the file's strings more than %d MiB longer than written; the file is not used", key, maxExpansionGrowth>>20)
	}
	return fmt.Errorf("%s: expanding its variables would make it longer than %d bytes (the longer of %d KiB and its length as written); the file is not used", key, limit, maxExpandedString>>10)
}

// minRedacted is the shortest value Redact hides: a shorter one would
// match all over a message and hide nothing worth hiding.
const minRedacted = 4

// WithRedacted is s whose Redact also hides each of values (value →
// the variable that gave it), those of at least 4 bytes: for what other
// files' variables gave settings (an extension's manifest).
func (s Settings) WithRedacted(values map[string]string) Settings {
	given := maps.Clone(s.given)
	for v, name := range values {
		if len(v) >= minRedacted {
			if given == nil {
				given = map[string]string{}
			}
			given[v] = name
		}
	}
	s.given = given
	return s
}

// Redact is text with every value a variable gave a setting (of at least
// 4 bytes) replaced by the variable ($NAME): an error or a log line about
// a setting (a discovery command that failed, an MCP server's URL) never
// shows what the environment held. Values are hidden longest first, so
// that a value holding another is hidden whole. Each value is looked for
// once through text, so the cost is linear in text for each value (a
// strings.Replacer of several values compares each at every byte:
// quadratic in a long repetitive value).
func (s Settings) Redact(text string) string {
	if len(s.given) == 0 {
		return text
	}
	values := slices.SortedFunc(maps.Keys(s.given), func(a, b string) int {
		return cmp.Or(len(b)-len(a), strings.Compare(a, b))
	})
	type secret struct{ start, end int }
	var found []secret
	var taken []bool // the bytes of text a longer value hides
	for _, v := range values {
		for at := 0; ; {
			k := strings.Index(text[at:], v)
			if k < 0 {
				break
			}
			start, end := at+k, at+k+len(v)
			if taken == nil {
				taken = make([]bool, len(text))
			}
			if c := slices.Index(taken[start:end], true); c >= 0 {
				// Every occurrence starting before the taken byte's run
				// ends overlaps it: go on after the run, which is at
				// least as long as v.
				for at = start + c; at < len(text) && taken[at]; at++ {
				}
				continue
			}
			for i := start; i < end; i++ {
				taken[i] = true
			}
			found = append(found, secret{start, end})
			at = end
		}
	}
	if len(found) == 0 {
		return text
	}
	slices.SortFunc(found, func(a, b secret) int { return a.start - b.start })
	var b strings.Builder
	last := 0
	for _, f := range found {
		b.WriteString(text[last:f.start])
		b.WriteString("$" + s.given[text[f.start:f.end]])
		last = f.end
	}
	b.WriteString(text[last:])
	return b.String()
}
