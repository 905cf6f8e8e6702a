package cmdline

import (
	"slices"
	"testing"
)

func TestCommandFirst(t *testing.T) {
	for _, tc := range []struct{ args, want []string }{
		{[]string{"--debug", "extensions", "install", "DIR"}, []string{"extensions", "--debug", "install", "DIR"}},
		{[]string{"-d", "--debug=true", "mcp", "add", "x", "--", "-d"}, []string{"mcp", "-d", "--debug=true", "add", "x", "--", "-d"}},
		{[]string{"extensions", "list", "--debug"}, []string{"extensions", "list", "--debug"}},
		// A flag of another kind after them, or none: as they are.
		{[]string{"--debug", "-m", "flash", "extensions"}, []string{"--debug", "-m", "flash", "extensions"}},
		{[]string{"--debug"}, []string{"--debug"}},
		{[]string{"--debug=maybe", "mcp"}, []string{"--debug=maybe", "mcp"}},
		{nil, nil},
	} {
		if got := CommandFirst(tc.args); !slices.Equal(got, tc.want) {
			t.Errorf("CommandFirst(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}

func TestWithoutGlobalFlags(t *testing.T) {
	got := WithoutGlobalFlags([]string{"DIR", "-d", "--parent", "--debug=false", "--", "--debug"})
	if want := []string{"DIR", "--parent", "--", "--debug"}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}
