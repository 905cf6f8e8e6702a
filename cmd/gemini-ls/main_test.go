package main

import (
	"testing"
)

// The commit make dist stamps wins over the one go build recorded.
func TestVersionLine(t *testing.T) {
	for _, tc := range []struct{ stamped, recorded, want string }{
		{"abc123", "def456", "gemini-ls " + version + " (commit abc123)"},
		{"", "def456", "gemini-ls " + version + " (commit def456)"},
		{"", "", "gemini-ls " + version},
	} {
		if got := versionLine(tc.stamped, tc.recorded); got != tc.want {
			t.Errorf("versionLine(%q, %q) = %q, want %q", tc.stamped, tc.recorded, got, tc.want)
		}
	}
}
