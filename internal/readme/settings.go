package readme

import (
	"errors"
	"fmt"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// The markers around the generated table of the settings gemini-ls does
// not read, in docs/configuration.md.
const (
	SettingsBegin = "<!-- settings not read: made by `go generate .` from internal/settings/catalogue.go (internal/readme); do not edit -->\n"
	SettingsEnd   = "<!-- end of the settings not read -->\n"
)

// SettingsTable is the Markdown docs/configuration.md holds between
// SettingsBegin and SettingsEnd: each of Gemini CLI 0.61's keys that
// gemini-ls does not read, grouped by why (settings.NotReadKeys).
func SettingsTable() string {
	groups := settings.NotReadKeys()
	n := 0
	for _, g := range groups {
		n += len(g.Keys)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d of Gemini CLI 0.61's settings (an MCP server's fields among them, as `mcpServers.*.FIELD`) are not read:\n\n", n)
	b.WriteString("| Settings | Why gemini-ls does not read them |\n| --- | --- |\n")
	for _, g := range groups {
		fmt.Fprintf(&b, "| %s | %s |\n", codeList(g.Keys), tableCell(g.Why))
	}
	return b.String()
}

// tableCell is text made safe in a Markdown table's cell.
func tableCell(text string) string { return strings.ReplaceAll(text, "|", `\|`) }

// GeneratedSettings is the text between the settings table's markers in
// doc, and an error when they are missing, out of order or there twice.
func GeneratedSettings(doc string) (string, error) {
	return between(doc, SettingsBegin, SettingsEnd, "settings table")
}

// UpdateSettings returns doc with SettingsTable between its markers.
func UpdateSettings(doc string) (string, error) {
	return Replace(doc, SettingsBegin, SettingsEnd, "settings table", SettingsTable())
}

// Replace returns text with content between the markers begin and end,
// and an error naming what (the part they mark) when they are missing,
// out of order or there twice.
func Replace(text, begin, end, what, content string) (string, error) {
	inside, err := between(text, begin, end, what)
	if err != nil {
		return "", err
	}
	return strings.Replace(text, begin+inside+end, begin+content+end, 1), nil
}

// between is the text between begin and end in text, and an error
// naming what (the part they mark) when they are missing, out of order
// or there twice.
func between(text, begin, end, what string) (string, error) {
	before, rest, ok := strings.Cut(text, begin)
	if !ok {
		return "", fmt.Errorf("no %s marker %q", what, strings.TrimSpace(begin))
	}
	inside, _, ok := strings.Cut(rest, end)
	if !ok {
		return "", fmt.Errorf("the %s has no end marker %q after its start", what, strings.TrimSpace(end))
	}
	if strings.Contains(before, end) || strings.Contains(rest, begin) {
		return "", errors.New("the " + what + " markers are there twice or out of order")
	}
	return inside, nil
}
