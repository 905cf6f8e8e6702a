package settings

import (
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/lineartest"
)

// A .env file of 1 MiB, however made, is read in linear time.
func TestParseDotenvIsLinear(t *testing.T) {
	for name, input := range map[string]func(int) string{
		"unclosed quotes":      lineartest.Repeat("A=\"\n"),
		"quotes closed late":   lineartest.Repeat("A='x\\'\n"),
		"mixed quotes":         lineartest.Repeat("A=\"'`\n"),
		"exports":              lineartest.Repeat("export "),
		"escaped newlines":     func(size int) string { return "A=\"" + lineartest.Repeat(`\n`)(size) + "\"" },
		"a quote never closed": func(size int) string { return "A=`" + lineartest.Repeat("x\n")(size) },
		"keys without values":  lineartest.Repeat("A=\n"),
		"comments":             lineartest.Repeat("# A=\"\n"),
	} {
		lineartest.Linear(t, name, input, func(text string) { parseDotenv([]byte(text)) })
	}
}

// A settings file of 1 MiB, however made, is read in linear time.
func TestParseObjectIsLinear(t *testing.T) {
	for name, input := range map[string]func(int) string{
		"comments":        func(size int) string { return "{" + lineartest.Repeat("/**/")(size) + "}" },
		"an open comment": func(size int) string { return "{/*" + lineartest.Repeat("*")(size) },
		"trailing commas": func(size int) string { return "{\"a\": [" + lineartest.Repeat("1,")(size) + "]}" },
		"nested arrays":   func(size int) string { return "{\"a\": " + lineartest.Repeat("[")(size) },
		"escapes":         func(size int) string { return "{\"a\": \"" + lineartest.Repeat(`\"`)(size) + "\"}" },
		"line comments":   func(size int) string { return "{" + lineartest.Repeat("//\n")(size) + "}" },
		"many members":    func(size int) string { return "{" + lineartest.Repeat("\"a\":1,")(size) + "\"b\":1}" },
	} {
		lineartest.Linear(t, name, input, func(text string) { parseObject("settings.json", []byte(text)) })
	}
}
