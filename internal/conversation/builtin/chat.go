package builtin

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/geminidir"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// Gemini CLI's manual checkpoints (/chat), in its place and format
// (checkpoint.go, internal/geminidir): a conversation saved by either is
// resumed by the other; and its share (share.go). As in 0.61, "checkpoints list" and the like run
// them too (its hidden compatibility subcommand).
func chatSubcommands() []Builtin {
	subs := []Builtin{
		{Command: command("list", "List the saved checkpoints of this project", ""), Run: listChats},
		{Command: command("save", "Save the conversation as a checkpoint", "<tag>"), Run: saveChat},
		{Command: also(command("resume", "Replace the conversation with a saved checkpoint", "<tag>"), "load"), Run: resumeChat},
		{Command: command("delete", "Delete a saved checkpoint", "<tag>"), Run: deleteChat},
		{Command: command("share", "Share the current conversation to a markdown or json file", "[file]"), Run: shareChat, Writes: "the file you name"},
	}
	checkpoints := withSubcommands(also(command("checkpoints", "Save, resume, list and delete conversation checkpoints", ""), "checkpoint"), subs)
	checkpoints.Hidden = true
	return append(subs, checkpoints)
}

// checkpointsOf are the checkpoints of env's project.
func checkpointsOf(env Env) (checkpoints, error) {
	dirs, err := geminidir.New(settings.UserDir(env.Built.Getenv), env.Root)
	return checkpoints{dirs: dirs}, err
}

// chatTag is the tag args name, or why it cannot name a checkpoint.
func chatTag(sub, args string) (string, error) {
	if err := checkTag(args); err != nil {
		return "", subUsage("chat", sub, "<tag>", err.Error())
	}
	return args, nil
}

func listChats(_ context.Context, env Env, _ string) (Reply, error) {
	cps, err := checkpointsOf(env)
	if err != nil {
		return Reply{}, err
	}
	list, err := cps.list()
	if err != nil {
		return Reply{}, fmt.Errorf("listing the checkpoints: %w", err)
	}
	if len(list) == 0 {
		return Reply{Text: "No saved conversation checkpoints found for this project. Save one with `/chat save <tag>`."}, nil
	}
	var b strings.Builder
	b.WriteString("Saved conversation checkpoints, the oldest first:\n")
	for _, c := range list {
		fmt.Fprintf(&b, "- `%s` (saved %s)\n", c.Tag, c.Saved.UTC().Format(time.RFC3339))
	}
	b.WriteString("\nResume one with `/chat resume <tag>`.")
	return Reply{Text: b.String()}, nil
}

func saveChat(_ context.Context, env Env, args string) (Reply, error) {
	tag, err := chatTag("save", args)
	if err != nil {
		return Reply{}, err
	}
	history, err := env.Session.History()
	if err != nil {
		return Reply{}, fmt.Errorf("the conversation was not saved: %w", err)
	}
	if len(history) == 0 {
		return Reply{Text: "No conversation found to save."}, nil
	}
	cps, err := checkpointsOf(env)
	if err != nil {
		return Reply{}, err
	}
	if _, err := cps.save(tag, checkpoint{History: history, AuthType: env.Built.AuthStatus().Type}); err != nil {
		return Reply{}, fmt.Errorf("the conversation was not saved: %w", err)
	}
	return Reply{Text: fmt.Sprintf("Conversation checkpoint saved with tag: %s.", tag)}, nil
}

func resumeChat(ctx context.Context, env Env, args string) (Reply, error) {
	tag, err := chatTag("resume", args)
	if err != nil {
		return Reply{}, err
	}
	cps, err := checkpointsOf(env)
	if err != nil {
		return Reply{}, err
	}
	cp, err := cps.load(tag)
	if errors.Is(err, errNoCheckpoint) || err == nil && len(cp.History) == 0 {
		return Reply{}, fmt.Errorf("no saved checkpoint found with tag %q (/chat list shows them)", tag)
	}
	if err != nil {
		return Reply{}, err
	}
	if now := env.Built.AuthStatus().Type; cp.AuthType != "" && now != "" && cp.AuthType != now {
		return Reply{}, fmt.Errorf("cannot resume the conversation: it was saved with a different authentication method (%s) than the current one (%s)", cp.AuthType, now)
	}
	if err := env.Session.ReplaceHistory(ctx, cp.History); err != nil {
		return Reply{}, fmt.Errorf("the checkpoint %q was not resumed: %w", tag, err)
	}
	return Reply{Text: fmt.Sprintf("Resumed the conversation saved as %s (%d prompt(s)); the next prompt continues it.", tag, prompts(cp.History))}, nil
}

func deleteChat(_ context.Context, env Env, args string) (Reply, error) {
	tag, err := chatTag("delete", args)
	if err != nil {
		return Reply{}, err
	}
	cps, err := checkpointsOf(env)
	if err != nil {
		return Reply{}, err
	}
	switch err := cps.delete(tag); {
	case errors.Is(err, errNoCheckpoint):
		return Reply{}, fmt.Errorf("no checkpoint found with tag %q (/chat list shows them)", tag)
	case err != nil:
		return Reply{}, err
	}
	return Reply{Text: fmt.Sprintf("Conversation checkpoint %q has been deleted.", tag)}, nil
}

// prompts counts the user's prompts in history: user contents that
// answer no call.
func prompts(history []*genai.Content) int {
	n := 0
	for _, c := range history {
		if c.Role == genai.RoleUser && !answersCall(c) {
			n++
		}
	}
	return n
}

func answersCall(c *genai.Content) bool {
	for _, p := range c.Parts {
		if p.FunctionResponse != nil {
			return true
		}
	}
	return false
}
