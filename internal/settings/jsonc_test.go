package settings

import (
	"encoding/json"
	"testing"
)

func TestStripJSONC(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"line comment", "{\"a\": 1 // one\n}", "{\"a\": 1       \n}"},
		{"block comment", "{/* x\ny */\"a\": 1}", "{    \n    \"a\": 1}"},
		{"comment markers inside a string stay", `{"url": "http://x/*y*/"}`, `{"url": "http://x/*y*/"}`},
		{"escaped quote inside a string", `{"a": "say \"//hi\""}`, `{"a": "say \"//hi\""}`},
		{"trailing comma in an object", `{"a": 1,}`, `{"a": 1 }`},
		{"trailing comma in an array, before a comment", "[1, 2, // end\n]", "[1, 2        \n]"},
		{"comma inside a string is kept", `{"a": ",}"}`, `{"a": ",}"}`},
		{"unterminated block comment runs to the end", "{} /* open", "{}        "},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := string(stripJSONC([]byte(c.in)))
			if got != c.want {
				t.Errorf("stripJSONC(%q) = %q, want %q", c.in, got, c.want)
			}
			if len(got) != len(c.in) {
				t.Errorf("length changed: %d → %d; offsets would no longer match the file", len(c.in), len(got))
			}
		})
	}
}

func TestStripJSONCResultParses(t *testing.T) {
	src := `{
  // the user's tools
  "tools": {
    "discoveryCommand": "bin/discover", /* prints declarations */
    "callCommand": "bin/call",
  },
  "mcpServers": {"a": {"args": ["--x", "//not a comment",],},},
}`
	var v map[string]any
	if err := json.Unmarshal(stripJSONC([]byte(src)), &v); err != nil {
		t.Fatalf("stripped text does not parse: %v\n%s", err, stripJSONC([]byte(src)))
	}
	args := v["mcpServers"].(map[string]any)["a"].(map[string]any)["args"].([]any)
	if len(args) != 2 || args[1] != "//not a comment" {
		t.Errorf("args = %#v", args)
	}
}
