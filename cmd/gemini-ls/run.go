package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gemini-ls/gemini-ls/agent"
	agentsetup "github.com/gemini-ls/gemini-ls/setup"
	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/tools/mcp"
	"github.com/gemini-ls/gemini-ls/workspace"
)

// Exit statuses of `run`, as Gemini CLI uses them where it has one.
const (
	exitError     = 1
	exitUsage     = 2
	exitMaxTurns  = 53
	exitCancelled = 130
)

type runFlags struct {
	prompt       string
	dir          string
	model        string
	approvalMode string
	outputFormat string
	logs         logFlags
}

func runHeadless(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	fs.StringVar(&f.prompt, "p", "", "the `PROMPT` to run")
	fs.StringVar(&f.prompt, "prompt", "", "the `PROMPT` to run")
	fs.StringVar(&f.dir, "C", ".", "run in `DIR` (the workspace root)")
	fs.StringVar(&f.model, "model", "", "the `MODEL` (default: GEMINI_MODEL, else "+agent.DefaultModel+")")
	fs.StringVar(&f.approvalMode, "approval-mode", string(tools.ApprovalDefault), "what runs without asking, the `MODE`: default (nothing: edits, shell commands and other calls that need approval are refused), auto_edit (edits), yolo (everything)")
	fs.StringVar(&f.outputFormat, "output-format", "text", "the `FORMAT` of stdout: text, json or stream-json")
	f.logs.register(fs, "warn")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	out, err := newOutput(f.outputFormat, stdout)
	if err != nil {
		return usageError(stderr, err)
	}
	mode := tools.ApprovalMode(f.approvalMode)
	switch mode {
	case tools.ApprovalDefault, tools.ApprovalAutoEdit, tools.ApprovalYolo:
	default:
		return usageError(stderr, fmt.Errorf("--approval-mode must be default, auto_edit or yolo, not %q", f.approvalMode))
	}
	if f.prompt == "" {
		return usageError(stderr, errors.New("-p PROMPT is required"))
	}
	log, closeLog, err := f.logs.logger(stderr)
	if err != nil {
		return usageError(stderr, err)
	}
	defer closeLog()

	dir, err := filepath.Abs(f.dir)
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls: -C: %v\n", err)
		return exitUsage
	}
	ws, err := workspace.New([]string{dir}, nil)
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls: -C: %v\n", err)
		return exitUsage
	}
	built, err := agentsetup.Build(ctx, agentsetup.Options{
		Workspace:    ws,
		Getenv:       os.Getenv,
		Version:      version,
		Logger:       log,
		Warn:         func(what string, err error) { fmt.Fprintf(stderr, "gemini-ls: %s: %v\n", what, err) },
		Proposer:     diskProposer{},
		Confirmer:    nobodyToAsk{},
		Model:        f.model,
		ApprovalMode: mode,
	})
	if err != nil {
		return usageError(stderr, err)
	}
	defer built.Close()
	if built.AuthErr != nil {
		fmt.Fprintln(stderr, built.AuthErr)
		return exitError
	}
	// One prompt to run: let it see every MCP server's tools, as Gemini CLI
	// does; each server's timeout bounds its start. Only a cancelled run
	// ends the wait early, and the prompt then ends too.
	_ = built.Tools.WaitForServers(ctx)
	ag := built.Agent
	sess := ag.NewSession()
	start := time.Now()
	out.begin(sess.ID(), built.Model, f.prompt)
	res, err := sess.Prompt(ctx, agent.Input{Text: f.prompt}, out.event)
	if err != nil {
		res = agent.PromptResult{StopReason: agent.StopError, Err: err}
	}
	out.end(res, built.Model, time.Since(start))

	switch res.StopReason {
	case agent.StopEndTurn:
		return 0
	case agent.StopCancelled:
		return exitCancelled
	case agent.StopMaxTurns:
		fmt.Fprintln(stderr, "gemini-ls: Reached max session turns for this session.")
		return exitMaxTurns
	default:
		if res.Err != nil {
			fmt.Fprintf(stderr, "gemini-ls: %v\n", res.Err)
		}
		return exitError
	}
}

func usageError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "gemini-ls run: %v\n", err)
	return exitUsage
}

// diskProposer applies changes straight to disk when the session's
// approvals allow edits; there is nobody to ask otherwise.
type diskProposer struct{}

func (p diskProposer) Propose(ctx context.Context, change workspace.FileChange) (tools.Decision, error) {
	info, _ := tools.CallInfoFrom(ctx)
	if !info.Allowed(tools.EditKey) {
		return tools.Decision{Outcome: tools.Declined, Reason: "edits need confirmation and gemini-ls is running headless without --approval-mode auto_edit or yolo; rerun with --approval-mode auto_edit to allow edits"}, nil
	}
	if err := ctx.Err(); err != nil {
		return tools.Decision{}, err
	}
	if err := workspace.WriteFile(ctx, change, change.After); err != nil {
		if errors.Is(err, workspace.ErrStale) {
			return tools.Decision{Outcome: tools.Stale, Reason: err.Error()}, nil
		}
		return tools.Decision{}, err
	}
	return tools.Decision{Outcome: tools.Applied, Content: change.After}, nil
}

// nobodyToAsk refuses calls that need approval, saying how to allow them.
type nobodyToAsk struct{}

func (nobodyToAsk) Confirm(_ context.Context, req agent.ConfirmRequest) (agent.ConfirmOutcome, error) {
	if req.Kind == mcp.ConfirmationKind {
		return agent.Cancel, fmt.Errorf(`%w: gemini-ls is running headless, so tools of MCP servers without "trust": true need --approval-mode yolo`, agent.ErrCannotAsk)
	}
	return agent.Cancel, fmt.Errorf("%w: gemini-ls is running headless, so shell commands need --approval-mode yolo", agent.ErrCannotAsk)
}
