package main

import (
	"slices"
	"testing"
)

// --resume (or -r) with no value is --resume latest, as in Gemini CLI.
func TestResumeWithoutValue(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"-r"}, []string{"-r", "latest"}},
		{[]string{"--resume", "-p", "hi"}, []string{"--resume", "latest", "-p", "hi"}},
		{[]string{"-r", "3", "-p", "hi"}, []string{"-r", "3", "-p", "hi"}},
		{[]string{"--", "-r"}, []string{"--", "-r"}},
	} {
		if got := resumeWithoutValue(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}
