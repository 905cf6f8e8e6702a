package commands

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/gemini-ls/gemini-ls/internal/tools/mcp"
)

type fakePrompts struct {
	prompts []mcp.Prompt
	got     map[string]string
}

func (f *fakePrompts) MCPPrompts(context.Context) ([]mcp.Prompt, []error) {
	return f.prompts, []error{errors.New("listing the prompts of MCP server broken: gone")}
}

func (f *fakePrompts) MCPPrompt(_ context.Context, server, name string, args map[string]string) (string, error) {
	f.got = args
	return server + "/" + name + " for " + args["who"], nil
}

// The user's commands: MCP prompts, then custom commands, a custom one
// replacing a prompt of its name, the first server's prompt winning a
// name two servers offer.
func TestUserCommands(t *testing.T) {
	src := &fakePrompts{prompts: []mcp.Prompt{
		{Server: "a", Name: "hello world", Arguments: []mcp.PromptArgument{{Name: "who", Required: true}}},
		{Server: "a", Name: "review"},
		{Server: "b", Name: "hello world"},
	}}
	custom := []Custom{{Name: "review", Description: "mine", Prompt: "Review {{args}}", Source: User}}
	u := ReadUserCommands(context.Background(), custom, []error{errors.New("bad.toml")}, src)
	var names []string
	for _, c := range u.List {
		names = append(names, c.Name+":"+c.Source.String())
	}
	if want := []string{"hello-world:mcp", "review:user"}; !slices.Equal(names, want) {
		t.Errorf("list %v, want %v", names, want)
	}
	if len(u.Errs) != 2 {
		t.Errorf("errors %v, want the file's and the listing's", u.Errs)
	}
	exp, err := u.Expand(context.Background(), Invocation{Name: "hello-world", Raw: "/hello-world Ada Lovelace", Args: "Ada Lovelace"}, nil, nil)
	if err != nil || exp.Text() != "a/hello world for Ada Lovelace" {
		t.Errorf("the MCP prompt expanded to %q, %v", exp.Text(), err)
	}
	exp, err = u.Expand(context.Background(), Invocation{Name: "review", Raw: "/review x", Args: "x"}, nil, nil)
	if err != nil || exp.Text() != "Review x" {
		t.Errorf("the custom command expanded to %q, %v", exp.Text(), err)
	}
	if _, err := u.Expand(context.Background(), Invocation{Name: "nope"}, nil, nil); err == nil || u.Has("nope") {
		t.Error("an unknown command expanded")
	}
}
