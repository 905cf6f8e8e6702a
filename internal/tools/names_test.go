package tools

import (
	"strings"
	"testing"
)

func TestValidFunctionName(t *testing.T) {
	for name, want := range map[string]bool{
		"read_file": true, "_x": true, "a.b:c-d": true, "A9": true,
		strings.Repeat("a", 64): true, strings.Repeat("a", 65): false,
		"": false, "9a": false, "-a": false, ".a": false, "a b": false, "é": false, "a/b": false,
	} {
		if got := ValidFunctionName(name); got != want {
			t.Errorf("ValidFunctionName(%q) = %v, want %v", name, got, want)
		}
	}
}
