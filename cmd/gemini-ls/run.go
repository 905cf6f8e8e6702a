package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/agent"
	geminiauth "github.com/gemini-ls/gemini-ls/auth"
	"github.com/gemini-ls/gemini-ls/settings"
	"github.com/gemini-ls/gemini-ls/tools"
	"github.com/gemini-ls/gemini-ls/tools/mcp"
	"github.com/gemini-ls/gemini-ls/tools/toolset"
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
	if f.model == "" {
		f.model = strings.TrimSpace(os.Getenv("GEMINI_MODEL"))
	}
	if f.model == "" {
		f.model = agent.DefaultModel
	}
	log, closeLog, err := f.logs.logger(stderr)
	if err != nil {
		return usageError(stderr, err)
	}
	defer closeLog()

	auth, err := geminiauth.Resolve("", os.Getenv)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitError
	}
	auth.Version = version
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
	gen := geminiauth.NewGenerator(auth)
	set, err := settings.Load(os.Getenv, []string{dir})
	if err != nil {
		log.Warn("some settings were not read", zap.Error(err))
	}
	toolSet := toolset.Build(ctx, toolset.Config{
		Tools: tools.Options{
			Workspace: ws,
			Proposer:  diskProposer{mode: mode},
			Utility:   agent.NewUtility(gen, "", agent.RetryPolicy{}),
		},
		Settings: set,
		Getenv:   os.Getenv,
		Version:  version,
		Logger:   log,
		Warn:     func(what string, err error) { log.Warn(what, zap.Error(err)) },
	})
	defer toolSet.Close()
	// One prompt to run: let it see every MCP server's tools, as Gemini CLI
	// does; each server's timeout bounds its start. Only a cancelled run
	// ends the wait early, and the prompt then ends too.
	_ = toolSet.WaitForServers(ctx)
	registry := toolSet.Registry
	ag := agent.New(agent.Config{
		Generator:    gen,
		Model:        f.model,
		Tools:        registry,
		Confirmer:    nobodyToAsk{},
		ApprovalMode: mode,
		Logger:       log,
		AuthType:     auth.Type,
		Thinking:     true,
	})
	// The files the prompt's @paths name go with it.
	parts, err := agent.ExpandReferences(ctx, ws, f.prompt)
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls: reading the files the prompt references: %v\n", err)
		return exitError
	}
	sess := ag.NewSession()
	start := time.Now()
	out.begin(sess.ID(), f.model, f.prompt)
	res := sess.Prompt(ctx, parts, out.event)
	out.end(res, f.model, time.Since(start))

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

// diskProposer applies changes straight to disk when the approval mode
// allows edits; there is nobody to ask otherwise.
type diskProposer struct{ mode tools.ApprovalMode }

func (p diskProposer) Propose(ctx context.Context, change workspace.FileChange) (tools.Decision, error) {
	info, _ := tools.CallInfoFrom(ctx)
	if !info.AutoApprove {
		return tools.Decision{Outcome: tools.Declined, Reason: "edits need confirmation and gemini-ls is running headless with --approval-mode " +
			string(p.mode) + "; rerun with --approval-mode auto_edit to allow edits"}, nil
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
