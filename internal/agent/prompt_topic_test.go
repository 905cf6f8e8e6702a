package agent_test

import (
	"strings"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/agent"
	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/tools"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// The topic mandate is in the system prompt while narration is on and
// update_topic offered, and only then.
func TestTopicMandate(t *testing.T) {
	ws, err := workspace.New([]string{t.TempDir()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	withTopic := tools.NewRegistry(tools.Builtin(tools.Options{Workspace: ws})...)
	for _, c := range []struct {
		name      string
		narration bool
		reg       *tools.Registry
		want      bool
	}{
		{"on", true, withTopic, true},
		{"off", false, withTopic, false},
		{"on without update_topic", true, tools.NewRegistry(readTool()), false},
	} {
		srv := geminitest.NewTestServer(t)
		a, _ := newAgent(t, srv, agent.Config{Tools: c.reg, TopicNarration: c.narration})
		system := promptOnce(t, srv, a.NewSession()).SystemInstruction.Parts[0].Text
		got := strings.Contains(system, "\n\n## Topic Updates\nAs you work, the user follows along in the editor by reading topic updates that you publish with update_topic.")
		if got != c.want {
			t.Errorf("%s: mandate in the system prompt %v, want %v", c.name, got, c.want)
		}
	}
}
