package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/conversation"
	"github.com/gemini-ls/gemini-ls/dialog"
	"github.com/gemini-ls/gemini-ls/models"
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
	resume       string
	listSessions bool
	include      dirList
	policies     dirList
	adminPolicy  dirList
	logs         logFlags
}

// dirList is a repeatable flag of comma-separated directories, as Gemini
// CLI's --include-directories.
type dirList []string

func (l *dirList) String() string { return strings.Join(*l, ",") }

func (l *dirList) Set(v string) error {
	for _, dir := range strings.Split(v, ",") {
		if dir = strings.TrimSpace(dir); dir != "" {
			*l = append(*l, dir)
		}
	}
	return nil
}

// from is paths, each relative one taken from dir.
func from(dir string, paths []string) []string {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		out = append(out, p)
	}
	return out
}

func runHeadless(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	var f runFlags
	fs.StringVar(&f.prompt, "p", "", "the `PROMPT` to run")
	fs.StringVar(&f.prompt, "prompt", "", "the `PROMPT` to run")
	fs.StringVar(&f.dir, "C", ".", "run in `DIR` (the workspace root)")
	fs.StringVar(&f.model, "model", "", "the `MODEL` (default: GEMINI_MODEL, else the settings' model.name, else "+models.Default+")")
	fs.StringVar(&f.approvalMode, "approval-mode", "", "what runs without asking, the `MODE`: default (nothing: edits, shell commands and other calls that need approval are refused), auto_edit (edits), yolo (everything), plan (read-only research and the plan file; other writes and commands are refused); settings' general.defaultApprovalMode when not given, else default")
	fs.StringVar(&f.resume, "resume", "", "continue the saved session `ID` (or latest, this directory's newest); -list-sessions lists them")
	fs.BoolVar(&f.listSessions, "list-sessions", false, "list this directory's saved sessions, newest first, and exit")
	fs.Var(&f.include, "include-directories", "more workspace roots: `DIRS`, comma-separated (relative to -C), the flag repeatable; after settings' context.includeDirectories")
	fs.Var(&f.policies, "policy", "policy `PATHS` (files or directories, comma-separated, the flag repeatable) read instead of ~/.gemini/policies and settings' policyPaths")
	fs.Var(&f.adminPolicy, "admin-policy", "admin-tier policy `PATHS` (comma-separated, repeatable), instead of settings' adminPolicyPaths; skipped when the system policies directory holds policies")
	fs.StringVar(&f.outputFormat, "output-format", "text", "the `FORMAT` of stdout: text, json or stream-json")
	f.logs.register(fs, "warn", "info")
	if code, ok := parseFlags(fs, args, stderr); !ok {
		return code
	}
	out, err := newReport(f.outputFormat, stdout, stderr)
	if err != nil {
		return usageError(stderr, err)
	}
	mode := tools.ApprovalMode(f.approvalMode)
	switch mode {
	case "", tools.ApprovalDefault, tools.ApprovalAutoEdit, tools.ApprovalYolo, tools.ApprovalPlan:
	default:
		return usageError(stderr, fmt.Errorf("--approval-mode must be default, auto_edit, yolo or plan, not %q", f.approvalMode))
	}
	if f.prompt == "" && !f.listSessions {
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
	user := &unattended{out: out}
	host := conversation.NewHost[struct{}](conversation.Config{
		Getenv:     os.Getenv,
		LookupEnv:  os.LookupEnv,
		Version:    version,
		Logger:     log,
		Unattended: true,
	}, user)
	built, err := host.Build(ctx, conversation.Place{
		Workspace: ws,
		Warn:      func(what string, err error) { out.warn(fmt.Sprintf("%s: %v", what, err)) },
		// The URL on a line of its own, to copy whole.
		ShowAuthURL: func(server, authURL string) {
			fmt.Fprintf(stderr, "gemini-ls: MCP server '%s' requires authentication. Open this URL in your browser to sign in:\n%s\n", server, authURL)
		},
		Model:        f.model,
		ApprovalMode: mode,

		IncludeDirectories: f.include,
		PolicyPaths:        from(dir, f.policies),
		AdminPolicyPaths:   from(dir, f.adminPolicy),
	})
	if err != nil {
		return usageError(stderr, err)
	}
	defer built.Close()
	user.untrusted = built.NotTrusted() != nil // before any call asks
	if built.AuthErr != nil {
		fmt.Fprintln(stderr, built.AuthErr)
		return exitError
	}
	if f.listSessions {
		return listSessions(ctx, host, built, dir, stdout, stderr)
	}
	live, err := session(ctx, host, built, f.resume, dir)
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls: %v\n", err)
		return exitError
	}
	if f.approvalMode != "" {
		// Chosen for this run: it wins over the mode a resumed session
		// saved, which it continues in otherwise.
		if err := host.SetMode(ctx, live.ID(), ""); err != nil {
			fmt.Fprintf(stderr, "gemini-ls: %v\n", err)
			return exitError
		}
	}
	// One prompt to run: let it see every MCP server's tools, as Gemini CLI
	// does; each server's timeout bounds its start. Only a cancelled run
	// ends the wait early, and the prompt then ends too.
	host.Ready(ctx, live)
	start := time.Now()
	out.begin(live.ID(), built.Model, f.prompt)
	o := host.Prompt(ctx, live.ID(), dialog.Input{Text: f.prompt})
	res := o.Result
	switch o.Ending {
	case conversation.NotRun:
		fmt.Fprintf(stderr, "gemini-ls: %v\n", o.NotRun)
		return exitError
	case conversation.Busy, conversation.Unknown, conversation.Refused:
		res = dialog.PromptResult{StopReason: dialog.StopError, Err: o.Err}
	}
	out.end(res, statsOf(live.Stats(), live.Info().Usage, time.Since(start)))
	return exitCode(o, res, stderr)
}

// exitCode is the exit status of a run that ended as o (res its result),
// saying on stderr why a run that did not end its turn stopped.
func exitCode(o conversation.Outcome, res dialog.PromptResult, stderr io.Writer) int {
	switch o.Ending {
	case conversation.Done:
		return 0
	case conversation.Cancelled:
		return exitCancelled
	}
	fmt.Fprintf(stderr, "gemini-ls: %s\n", conversation.Explanation(res))
	if o.Ending == conversation.MaxTurns {
		return exitMaxTurns
	}
	return exitError
}

func usageError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "gemini-ls run: %v\n", err)
	return exitUsage
}

// unattended is the user of a headless run, who is not there: it lands
// allowed changes straight on disk, and refuses what needs asking, saying
// what was refused and how to allow it.
type unattended struct {
	// out shows the run's events.
	out *report
	// untrusted says the folder is not trusted, so no --approval-mode
	// but default holds until it is (setup says so at start).
	untrusted bool
}

// Emit shows one event of the run.
func (u *unattended) Emit(_ context.Context, _ *conversation.Live[struct{}], e dialog.Event) {
	u.out.event(e)
}

// Land lands an allowed change on disk and refuses the others: refused,
// not declined, since no user said no, so the later calls still run.
func (u *unattended) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	if req.Ask {
		return dialog.Landing{Decision: tools.Decision{Outcome: tools.Refused, Reason: "edits need confirmation, and gemini-ls is running headless with nobody to give it; " +
			u.rerun("auto_edit") + " to allow edits"}}, nil
	}
	if err := ctx.Err(); err != nil {
		return dialog.Landing{}, err
	}
	d, err := tools.LandOnDisk(ctx, req.Change)
	return dialog.Landing{Decision: d}, err
}

// LandFiles lands a revert on disk: the user asked for it, and there is
// nobody else to ask.
func (*unattended) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]tools.Decision, error) {
	out := make([]tools.Decision, len(req.Changes))
	for i, c := range req.Changes {
		d, err := conversation.LandRevertOnDisk(ctx, c)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// Ask words the reason as Gemini CLI does where it cannot prompt.
func (*unattended) Ask(context.Context, dialog.AskRequest) (tools.Answer, error) {
	return tools.Answer{}, fmt.Errorf("%w: gemini-ls is running headless, and asking the user is not supported in non-interactive mode", dialog.ErrCannotAsk)
}

// Confirm refuses: there is nobody to ask. The refusal names the tool
// and what would let it run headless: auto_edit for web_fetch (as in
// Gemini CLI), else yolo, the only mode that runs a call that asks (MCP
// tools, discovered tools, save_memory, activate_skill and shell
// commands alike), or settings that allow it.
func (u *unattended) Confirm(_ context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	switch req.Kind {
	case dialog.ConfirmRewind:
		return dialog.Cancel, fmt.Errorf("%w: gemini-ls is running headless; revert the file yourself, or rewind in an editor", dialog.ErrCannotAsk)
	case dialog.ConfirmModelFallback:
		return dialog.Cancel, fmt.Errorf("%w: gemini-ls is running headless, so nobody can approve this: %s", dialog.ErrCannotAsk, req.Title)
	}
	tool := cmp.Or(req.Tool, "this call")
	allow := fmt.Sprintf("or allow %s in settings' tools.allowed", tool)
	if req.Kind == mcp.ConfirmationKind {
		allow = `or trust its MCP server ("trust": true), or allow the tool in settings' tools.allowed`
	}
	mode := "yolo"
	if tool == tools.WebFetchName {
		mode = "auto_edit"
	}
	return dialog.Cancel, fmt.Errorf("%w: %s needs confirmation, and gemini-ls is running headless with nobody to give it; %s to allow it, %s",
		dialog.ErrCannotAsk, tool, u.rerun(mode), allow)
}

// rerun says to run again in mode, in a trusted folder if this one is not.
func (u *unattended) rerun(mode string) string {
	if u.untrusted {
		return "trust this folder and rerun with --approval-mode " + mode + " (an untrusted folder runs in the default mode)"
	}
	return "rerun with --approval-mode " + mode
}
