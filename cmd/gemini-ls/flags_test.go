package main

import (
	"slices"
	"testing"
)

// --resume (or -r) with no value is --resume latest, as in Gemini CLI.
func TestValuesLeftOut(t *testing.T) {
	for _, tc := range []struct{ in, want []string }{
		{[]string{"-r"}, []string{"-r", "latest"}},
		{[]string{"--resume", "-p", "hi"}, []string{"--resume", "latest", "-p", "hi"}},
		{[]string{"-r", "3", "-p", "hi"}, []string{"-r", "3", "-p", "hi"}},
		{[]string{"--", "-r"}, []string{"--", "-r"}},
		// -w (or --worktree) with no value: a generated name, as in 0.61.
		{[]string{"-p", "hi", "-w"}, []string{"-p", "hi", "-w", ""}},
		{[]string{"--worktree", "-p", "hi"}, []string{"--worktree", "", "-p", "hi"}},
		{[]string{"-w", "fix", "-p", "hi"}, []string{"-w", "fix", "-p", "hi"}},
	} {
		if got := valuesLeftOut(tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}
