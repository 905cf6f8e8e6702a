package commands

import (
	"maps"
	"reflect"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/tools/mcp"
)

func required(names ...string) []mcp.PromptArgument {
	var out []mcp.PromptArgument
	for _, n := range names {
		out = append(out, mcp.PromptArgument{Name: n, Required: true})
	}
	return out
}

// Gemini CLI's McpPromptLoader.test.ts parseArgs cases, and its
// invocation ones.
func TestPromptArgs(t *testing.T) {
	tests := []struct {
		name, args string
		params     []mcp.PromptArgument
		want       map[string]string
		wantErr    string
	}{
		{"multi-word positional", "hello world", required("arg1", "arg2"), map[string]string{"arg1": "hello", "arg2": "world"}, ""},
		{"quoted positional", `"hello world" foo`, required("arg1", "arg2"), map[string]string{"arg1": "hello world", "arg2": "foo"}, ""},
		{"one argument takes every word", "hello world", required("arg1"), map[string]string{"arg1": "hello world"}, ""},
		{"escaped quotes", `"hello \"world\""`, required("arg1"), map[string]string{"arg1": `hello "world"`}, ""},
		{"escaped backslash", `"hello\\world"`, required("arg1"), map[string]string{"arg1": `hello\world`}, ""},
		{"named then positional", `--named="value" positional`, required("named", "pos"), map[string]string{"named": "value", "pos": "positional"}, ""},
		{"positional then named", `positional --named="value"`, required("pos", "named"), map[string]string{"pos": "positional", "named": "value"}, ""},
		{"interspersed", `p1 --named="value" p2`, required("pos1", "named", "pos2"), map[string]string{"pos1": "p1", "named": "value", "pos2": "p2"}, ""},
		{"escaped quote at the start", `\"hello world`, required("arg1", "arg2"), map[string]string{"arg1": `"hello`, "arg2": "world"}, ""},
		{"complex", `p1 --named1="value 1" "p2 has spaces" --named2=value2 "p3 \"with quotes\""`, required("pos1", "named1", "pos2", "named2", "pos3"),
			map[string]string{"pos1": "p1", "named1": "value 1", "pos2": "p2 has spaces", "named2": "value2", "pos3": `p3 "with quotes"`}, ""},
		{"invocation", "test-name 123 tiger", required("name", "age", "species"), map[string]string{"name": "test-name", "age": "123", "species": "tiger"}, ""},
		{"missing", "test-name", required("name", "age", "species"), nil, "missing required argument(s): --age, --species"},
		{"optional only by name", "x", []mcp.PromptArgument{{Name: "style"}}, map[string]string{}, ""},
		{"optional named", "--style=warm Ada", []mcp.PromptArgument{{Name: "name", Required: true}, {Name: "style"}}, map[string]string{"name": "Ada", "style": "warm"}, ""},
		{"no parameters", "anything", nil, map[string]string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := PromptArgs(tt.args, tt.params)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !maps.Equal(got, tt.want) {
				t.Errorf("PromptArgs(%q) = %v, %v; want %v", tt.args, got, err, tt.want)
			}
		})
	}
}

func TestPromptCommand(t *testing.T) {
	c := PromptCommand(mcp.Prompt{Server: "s", Name: "  Prompt Name ", Arguments: []mcp.PromptArgument{{Name: "name", Required: true}, {Name: "style"}}})
	want := Command{Name: "Prompt-Name", Description: "Invoke prompt   Prompt Name ", Hint: `--name="…" [--style="…"]`, Source: MCP, Prompt: true}
	if !reflect.DeepEqual(c, want) {
		t.Errorf("PromptCommand = %+v, want %+v", c, want)
	}
}
