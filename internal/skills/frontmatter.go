package skills

import (
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/frontmatter"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// parseFrontMatter reads name and description from front matter as Gemini
// CLI's parseFrontmatter does: as YAML, where both must be strings; else
// line by line (parseSimpleFrontmatter), which takes a description with
// a colon in it that YAML refuses.
func parseFrontMatter(text string) (name, description string, ok bool) {
	if doc, err := frontmatter.Parse(text); err == nil && doc.Kind == frontmatter.Map {
		n, nameOK := doc.Get("name")
		d, descOK := doc.Get("description")
		if nameOK && descOK && n.Kind == frontmatter.String && d.Kind == frontmatter.String {
			return n.Text, d.Text, true
		}
	}
	return parseSimpleFrontMatter(text)
}

var (
	simpleName        = lazyregexp.New(`^\s*name:\s*(.*)$`)
	simpleDescription = lazyregexp.New(`^\s*description:\s*(.*)$`)
	continuation      = lazyregexp.New(`^[ \t]+\S`)
)

// parseSimpleFrontMatter is Gemini CLI's parseSimpleFrontmatter: the last
// name: and description: lines, a description continued by indented
// lines.
func parseSimpleFrontMatter(text string) (name, description string, ok bool) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	var haveName, haveDescription bool
	for i := 0; i < len(lines); i++ {
		if m := simpleName.FindStringSubmatch(lines[i]); m != nil {
			name, haveName = strings.TrimSpace(m[1]), true
			continue
		}
		m := simpleDescription.FindStringSubmatch(lines[i])
		if m == nil {
			continue
		}
		parts := []string{strings.TrimSpace(m[1])}
		for i+1 < len(lines) && continuation.MatchString(lines[i+1]) {
			parts = append(parts, strings.TrimSpace(lines[i+1]))
			i++
		}
		var kept []string
		for _, p := range parts {
			if p != "" {
				kept = append(kept, p)
			}
		}
		description, haveDescription = strings.Join(kept, " "), true
	}
	return name, description, haveName && haveDescription
}
