package builtin

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	toolcheckpoint "github.com/gemini-ls/gemini-ls/internal/agent/checkpoint"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

const restoreHint = "[<checkpoint>]"

// restore is Gemini CLI's /restore: without arguments it lists the
// checkpoints taken before edits (internal/agent/checkpoint); "/restore <name>"
// puts the files back to the checkpoint's snapshot, as one change the
// user previews, and then the conversation, and then proposes the call
// the checkpoint was taken before again, as Gemini CLI does: run for the
// user (agent.Session.RunCall), confirmed or declined as any call.
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
	files, err := env.Session.RestoreFiles(ctx, fmt.Sprintf("Restore the files to checkpoint %s (%d %s)", name, len(targets), plural(len(targets), "file", "files")), targets, env.Port)
	if err != nil {
		return Reply{}, fmt.Errorf("the checkpoint %q was not restored: %w", name, err)
	}
	var b strings.Builder
	b.WriteString(restoredFiles(name, files))
	if len(files) > 0 && !slices.ContainsFunc(files, func(f dialog.FileRevert) bool { return f.Outcome != dialog.NotReverted }) {
		b.WriteString("\nNo file was restored, so the conversation was left as it is, and the call was not proposed again.")
		return Reply{Text: b.String()}, nil
	}
	if len(cp.ClientHistory) == 0 {
		b.WriteString("\nThe checkpoint holds no conversation, so the conversation was left as it is.\n")
	} else {
		history := cp.RestorableHistory()
		if err := env.Session.ReplaceHistory(ctx, history); err != nil {
			fmt.Fprintf(&b, "\nThe conversation was not restored, so the call %s was not proposed again: %v", callText(cp), err)
			return Reply{Text: b.String()}, nil
		}
		fmt.Fprintf(&b, "\nRestored the conversation to that moment (%d %s).\n", prompts(history), plural(prompts(history), "prompt", "prompts"))
	}
	res, err := env.Session.RunCall(ctx, cp.ToolCall.Name, cp.ToolCall.Args, env.Port)
	if err != nil {
		fmt.Fprintf(&b, "\nThe call %s was not proposed again: %v", callText(cp), err)
		return Reply{Text: b.String()}, nil
	}
	b.WriteString("\n" + proposedAgain(cp, res))
	return Reply{Text: b.String()}, nil
}

// proposedAgain tells what became of the checkpoint's call, proposed
// again: what ran and its result, or that it did not run.
func proposedAgain(cp toolcheckpoint.File, res dialog.ToolResult) string {
	call := callText(cp)
	display := strings.TrimSpace(res.Display)
	switch res.Status {
	case dialog.StatusOK:
		return fmt.Sprintf("The checkpoint was taken before the call %s, which was proposed again and ran:\n\n%s", call, display)
	case dialog.StatusRejected, dialog.StatusCancelled:
		// The first line says why; a declined edit's diff follows it.
		why, _, _ := strings.Cut(display, "\n")
		return fmt.Sprintf("The checkpoint was taken before the call %s, which was proposed again and did not run: %s\nThe files and the conversation stay as restored.", call, why)
	}
	return fmt.Sprintf("The checkpoint was taken before the call %s, which was proposed again and failed: %s", call, display)
}

// restoredFiles tells what became of each file of a restore.
func restoredFiles(name string, files []dialog.FileRevert) string {
	if len(files) == 0 {
		return fmt.Sprintf("The files are as checkpoint %s found them.\n", name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Files of checkpoint %s:\n", name)
	for _, f := range files {
		switch f.Outcome {
		case dialog.Reverted:
			fmt.Fprintf(&b, "- `%s`: restored", f.Path)
		case dialog.Unchanged:
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
