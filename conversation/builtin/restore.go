package builtin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/agent"
	toolcheckpoint "github.com/gemini-ls/gemini-ls/agent/checkpoint"
)

const restoreHint = "[<checkpoint>]"

// restore is Gemini CLI's /restore: without arguments it lists the
// checkpoints taken before edits (agent/checkpoint); "/restore <name>"
// puts the files back to the checkpoint's snapshot, as one change the
// user previews, and then the conversation, and says which call the
// checkpoint was taken before. Gemini CLI re-proposes that call; here the
// model is told it did not run, and the user asks again to redo it.
func restore(ctx context.Context, env Env, args string) (Reply, error) {
	store := env.Built.Checkpoints
	if store == nil {
		return Reply{}, errors.New("checkpointing is off: /restore needs general.checkpointing.enabled set to true in settings.json (docs/configuration.md)")
	}
	name := strings.TrimSpace(args)
	if name == "" {
		names, err := store.List()
		if err != nil {
			return Reply{}, err
		}
		if len(names) == 0 {
			return Reply{Text: "No restorable tool calls found."}, nil
		}
		return Reply{Text: "Available tool calls to restore:\n\n" + strings.Join(quoted(names), "\n") + "\n\nRestore one with `/restore <checkpoint>`."}, nil
	}
	cp, err := store.Load(name)
	if errors.Is(err, toolcheckpoint.ErrNoCheckpoint) {
		return Reply{}, fmt.Errorf("no checkpoint named %q (/restore lists them)", name)
	}
	if err != nil {
		return Reply{}, err
	}
	targets, err := store.Targets(ctx, cp.CommitHash)
	if err != nil {
		return Reply{}, fmt.Errorf("the checkpoint %q was not restored: %w", name, err)
	}
	name = strings.TrimSuffix(name, ".json")
	files, err := env.Session.RestoreFiles(ctx, fmt.Sprintf("Restore the files to checkpoint %s (%d %s)", name, len(targets), plural(len(targets), "file", "files")), targets)
	if err != nil {
		return Reply{}, fmt.Errorf("the checkpoint %q was not restored: %w", name, err)
	}
	var b strings.Builder
	b.WriteString(restoredFiles(name, files))
	if len(files) > 0 && !slices.ContainsFunc(files, func(f agent.FileRevert) bool { return f.Outcome != agent.NotReverted }) {
		b.WriteString("\nNo file was restored, so the conversation was left as it is.")
		return Reply{Text: b.String()}, nil
	}
	if len(cp.ClientHistory) == 0 {
		b.WriteString("\nThe checkpoint holds no conversation, so the conversation was left as it is.")
		return Reply{Text: b.String()}, nil
	}
	history := cp.RestorableHistory()
	if err := env.Session.ReplaceHistory(ctx, history); err != nil {
		fmt.Fprintf(&b, "\nThe conversation was not restored: %v", err)
		return Reply{Text: b.String()}, nil
	}
	fmt.Fprintf(&b, "\nRestored the conversation to that moment (%d %s).\n", prompts(history), plural(prompts(history), "prompt", "prompts"))
	fmt.Fprintf(&b, "\nThe checkpoint was taken before the call %s, which did not run; ask the model again to have it redone.", callText(cp))
	return Reply{Text: b.String()}, nil
}

// restoredFiles tells what became of each file of a restore.
func restoredFiles(name string, files []agent.FileRevert) string {
	if len(files) == 0 {
		return fmt.Sprintf("The files are as checkpoint %s found them.\n", name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Files of checkpoint %s:\n", name)
	for _, f := range files {
		switch f.Outcome {
		case agent.Reverted:
			fmt.Fprintf(&b, "- `%s`: restored", f.Path)
		case agent.Unchanged:
			fmt.Fprintf(&b, "- `%s`: already as it was", f.Path)
		default:
			fmt.Fprintf(&b, "- `%s`: not restored: %s", f.Path, f.Reason)
		}
		if f.ModeNotSet != "" {
			fmt.Fprintf(&b, ", but its mode (whether it is executable) was not put back: %s", f.ModeNotSet)
		}
		b.WriteString("\n")
	}
	return b.String()
}

// callText is the call's tool and the file it was to change.
func callText(cp toolcheckpoint.File) string {
	path, _ := cp.ToolCall.Args["file_path"].(string)
	if path == "" {
		path = cp.FilePath
	}
	if path == "" {
		return "`" + cp.ToolCall.Name + "`"
	}
	return fmt.Sprintf("`%s` of `%s`", cp.ToolCall.Name, path)
}
