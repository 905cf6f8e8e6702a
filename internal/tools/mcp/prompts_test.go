package mcp

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// Every running server's prompts are listed with their arguments, and
// one is filled in with the arguments given.
func TestPromptsAreListedAndGot(t *testing.T) {
	m, _ := started(t, map[string]settings.MCPServer{"alpha": {Command: testServer}, "beta": {Command: testServer}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	prompts, errs := m.Prompts(ctx)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	greet := Prompt{Server: "alpha", Name: "greet", Description: "Greets someone.", Arguments: []PromptArgument{
		{Name: "name", Description: "who to greet", Required: true}, {Name: "style", Description: "how"},
	}}
	if len(prompts) != 4 || !reflect.DeepEqual(prompts[0], greet) || prompts[1].Name != "status" || prompts[2].Server != "beta" {
		t.Fatalf("prompts %+v", prompts)
	}
	got, err := m.GetPrompt(ctx, "beta", "greet", map[string]string{"name": "Ada", "style": "warm"})
	if err != nil || got != "Greet Ada in a warm way." {
		t.Errorf("greet = %q, %v", got, err)
	}
	if _, err := m.GetPrompt(ctx, "gamma", "greet", nil); err == nil || !strings.Contains(err.Error(), "gamma is not running") {
		t.Errorf("a server not running: %v", err)
	}
	if _, err := m.GetPrompt(ctx, "alpha", "nope", nil); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("a prompt the server lacks: %v", err)
	}
}
