package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/agent/geminitest"
)

// TestRunWhenTheModelEndpointRefusesConnections: each retry is told once
// on stderr (a human line, no log line besides it), saying that no
// connection could be made to the endpoint, not that an answer was cut
// off; the run then fails saying so.
func TestRunWhenTheModelEndpointRefusesConnections(t *testing.T) {
	h := newHeadless(t, nil)
	url := geminitest.RefusingURL(t)
	env := append(h.withoutEnv("GOOGLE_GEMINI_BASE_URL"), "GOOGLE_GEMINI_BASE_URL="+url)
	r := h.runIn(h.root, env, "run", "-p", "hi")
	r.wantExit(t, 1)
	failure := "could not connect to " + url + ": connection refused"
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	var retries []string
	for _, line := range lines {
		if strings.Contains(line, "retrying") || strings.Contains(line, "trying again") {
			retries = append(retries, line)
		}
		if strings.Contains(line, "cut off") || strings.Contains(line, "broke off") {
			t.Errorf("stderr says an answer was cut off: %q", line)
		}
	}
	var want []string
	for attempt, wait := range []string{"1s", "2s", "4s"} {
		want = append(want, fmt.Sprintf("gemini-ls: %s; trying again in %s (attempt %d)", failure, wait, attempt+2))
	}
	if !slices.Equal(retries, want) {
		t.Errorf("retries on stderr:\n%s\nwant:\n%s", strings.Join(retries, "\n"), strings.Join(want, "\n"))
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "gemini-ls: ") || !strings.Contains(last, failure+" (4 attempts)") {
		t.Errorf("stderr ends with %q, want the failure %q", last, failure+" (4 attempts)")
	}
}
