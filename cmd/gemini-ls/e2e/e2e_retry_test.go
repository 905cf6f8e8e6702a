package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
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
	// The failure ends it, said for a person: what to check.
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "gemini-ls: C"+failure[1:]+" (4 attempts); check the network connection") {
		t.Errorf("stderr ends with %q, want the failure %q and what to check", last, failure+" (4 attempts)")
	}
}

// With the default model, auto, and an endpoint that refuses
// connections, `gemini-ls run` names the endpoint (host:port) on stderr
// within a second and fails within 20 s, as issue 43 bounds it: the
// routing request is not retried, so the chat request's first failure is
// told at once and its three quick retries (1 s, 2 s, 4 s) end the run
// after about 7 s. The bounds are the issue's; the run meets them with
// room (its first line comes within milliseconds of its start). Gemini CLI
// 0.61 first retries the classifier's ECONNREFUSED for about a minute.
func TestRunOnAutoWhenTheEndpointRefusesConnections(t *testing.T) {
	h := newHeadless(t, nil)
	url := geminitest.RefusingURL(t)
	endpoint := strings.TrimPrefix(url, "http://")
	var env []string
	for _, kv := range h.env {
		if !strings.HasPrefix(kv, "GOOGLE_GEMINI_BASE_URL=") && !strings.HasPrefix(kv, "GEMINI_MODEL=") {
			env = append(env, kv)
		}
	}
	env = append(env, "GOOGLE_GEMINI_BASE_URL="+url)

	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, "run", "-p", "hi")
	cmd.Dir, cmd.Env = h.root, env
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var told time.Duration // when a line for the user first named the endpoint
	var lines []string
	for sc := bufio.NewScanner(stderr); sc.Scan(); {
		line := sc.Text()
		lines = append(lines, line)
		if told == 0 && strings.HasPrefix(line, "gemini-ls: ") && strings.Contains(line, endpoint) {
			told = time.Since(start)
		}
	}
	err = cmd.Wait()
	took := time.Since(start)
	all := strings.Join(lines, "\n")
	t.Logf("stderr named %s after %v; the run ended after %v", endpoint, told, took)

	switch {
	case told == 0:
		t.Errorf("stderr never named %s, want it within 1s:\n%s", endpoint, all)
	case told > time.Second:
		t.Errorf("stderr named %s after %v, want within 1s:\n%s", endpoint, told, all)
	}
	if took > 20*time.Second {
		t.Errorf("the run took %v, want at most 20s:\n%s", took, all)
	}
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() <= 0 {
		t.Errorf("exit = %v, want a non-zero code", err)
	}
	failure := "Could not connect to " + url + ": connection refused (4 attempts)"
	if len(lines) == 0 || !strings.HasPrefix(lines[len(lines)-1], "gemini-ls: ") || !strings.Contains(lines[len(lines)-1], failure) {
		t.Errorf("stderr does not end with the failure %q:\n%s", failure, all)
	}
}

// Over the LSP the same: with auto against a closed port, the retry
// update naming the endpoint comes within a second of the prompt (the
// issue's bound, met in milliseconds), and the prompt fails within 20 s
// saying what could not be reached.
func TestLSPPromptOnAutoWhenTheEndpointRefusesConnections(t *testing.T) {
	url := geminitest.RefusingURL(t)
	h := start(t, setup{env: []string{"GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_MODEL=auto"}})
	begin := time.Now()
	done := make(chan error, 1)
	var res promptResult
	go func() { done <- h.client.Call(h.ctx, "gemini/prompt", map[string]any{"prompt": "hi"}, &res) }()

	ctx, cancel := context.WithTimeout(h.ctx, time.Second)
	defer cancel()
	endpoint := strings.TrimPrefix(url, "http://")
	if _, err := h.client.WaitMessage(ctx, "gemini/update", func(p json.RawMessage) bool {
		var u update
		return json.Unmarshal(p, &u) == nil && u.Kind == "retry" && strings.Contains(u.Reason, endpoint)
	}); err != nil {
		t.Errorf("no retry update named %s within 1s (%v); updates: %+v", endpoint, err, h.updates(""))
	}
	select {
	case err := <-done:
		failure := "Could not connect to " + url + ": connection refused (4 attempts)"
		if err != nil || res.StopReason != "error" || !strings.Contains(res.Error, failure) {
			t.Errorf("gemini/prompt = %+v, %v; want the error %q", res, err, failure)
		}
	case <-time.After(20*time.Second - time.Since(begin)):
		t.Fatal("the prompt did not end within 20 s")
	}
}

// Over ACP the same, the retry told as the agent's thought.
func TestACPPromptOnAutoWhenTheEndpointRefusesConnections(t *testing.T) {
	url := geminitest.RefusingURL(t)
	h := startACP(t, acpSetup{env: []string{"GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_MODEL=auto"}})
	begin := time.Now()
	done := make(chan error, 1)
	go func() {
		_, err := h.prompt("hi")
		done <- err
	}()

	ctx, cancel := context.WithTimeout(h.ctx, time.Second)
	defer cancel()
	endpoint := strings.TrimPrefix(url, "http://")
	h.client.Wait(ctx, "a thought naming "+endpoint+" within 1s", func(c *acptest.Client) bool {
		for _, n := range c.Updates() {
			if th := n.Update.AgentThoughtChunk; th != nil && th.Content.Text != nil && strings.Contains(th.Content.Text.Text, endpoint) {
				return true
			}
		}
		return false
	})
	select {
	case err := <-done:
		failure := "Could not connect to " + url + ": connection refused (4 attempts)"
		if err == nil || !strings.Contains(err.Error(), failure) {
			t.Errorf("session/prompt = %v, want the error %q", err, failure)
		}
	case <-time.After(20*time.Second - time.Since(begin)):
		t.Fatal("the prompt did not end within 20 s")
	}
}
