package main

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"go.uber.org/zap"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/sandbox"
	"github.com/gemini-ls/gemini-ls/internal/startup"
	"github.com/gemini-ls/gemini-ls/internal/workspace"
)

// Exit statuses of `run`, Gemini CLI 0.61's (its ExitCodes and
// FatalError subclasses).
const (
	exitError     = 1
	exitAuth      = 41 // FatalAuthenticationError
	exitInput     = 42 // FatalInputError
	exitSandbox   = 44 // FatalSandboxError
	exitConfig    = 52 // FatalConfigError
	exitMaxTurns  = 53 // FatalTurnLimitedError
	exitUntrusted = 55 // FatalUntrustedWorkspaceError
	exitCancelled = 130
)

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

// firstCollection is the heap a headless run's first collection waits
// for (startup.DelayFirstCollection): three times the collector's default.
const firstCollection = 12 << 20

func runHeadless(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	releaseStartUp()
	// A run is one prompt: an 8-call one allocates about 8 MiB, which the
	// collector's default 4 MiB first cycle would walk through twice.
	startup.DelayFirstCollection(firstCollection)
	// A write to a stdout nobody reads must fail (EPIPE), for
	// watchedOutput to stop the run, rather than kill the process by
	// SIGPIPE in the middle of a command or an edit. Caught, unlike
	// ignored, the signal is not inherited by the commands the run starts.
	sigpipe := make(chan os.Signal, 1)
	signal.Notify(sigpipe, syscall.SIGPIPE)
	defer signal.Stop(sigpipe)
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	watched := &watchedOutput{w: stdout, stop: stop}
	code := headless(ctx, args, stdin, watched, stderr)
	switch err := watched.failed(); {
	case err == nil:
		return code
	case readerGone(err):
		// As Gemini CLI 0.61's run ends when its stdout is closed.
		return 0
	default:
		fmt.Fprintf(stderr, "gemini-ls: writing the answer: %v\n", err)
		return exitError
	}
}

// headless runs the prompt run's command line asks for, its answer on
// stdout, and returns the exit status.
func headless(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	f, out, code := parseRun(args, stdout, stderr)
	if out == nil {
		return code
	}
	if f.promptInteractive.given {
		return interactive(stdin == nil || !isTerminal(stdin), stderr)
	}
	wt, code := f.enterWorktree(ctx, stderr)
	if code != 0 {
		return code
	}
	var sessionID string
	code = f.headlessIn(ctx, stdin, stdout, stderr, out, &sessionID)
	if wt != nil {
		wt.leave(ctx, sessionID, stderr)
	}
	return code
}

// headlessIn runs the prompt in f.dir once the run is there (its
// worktree's root with -w), and returns the exit status; *sessionID is
// the session's, once it has one.
func (f *runFlags) headlessIn(ctx context.Context, stdin io.Reader, stdout, stderr io.Writer, out *report, sessionID *string) int {
	// Sessions are listed and deleted as in Gemini CLI, before anything
	// is built: no credentials or trust needed.
	if f.listSessions {
		return listSessions(ctx, os.Getenv, f.dir, stdout, stderr)
	}
	if f.deleteSession != "" {
		return deleteSession(ctx, os.Getenv, f.dir, f.deleteSession, stdout, stderr)
	}
	log, closeLog, err := f.logs.logger(stderr, true)
	if err != nil {
		return out.badUsage(err)
	}
	defer closeLog()
	sendLibraryLogsTo(log)

	dir, ws, err := runWorkspace(f.dir)
	if err != nil {
		return out.badUsage(fmt.Errorf("-C: %w", err))
	}
	out.runsIn(dir)
	host := f.host(log, dir)
	place := f.place(dir, ws, out, stderr)
	// What lists and exits comes first, as in Gemini CLI: it needs
	// neither a trusted folder nor a prompt, and starts nothing.
	if f.listExtensions {
		loaded, err := host.Load(place)
		if err != nil {
			return out.badUsage(err)
		}
		return listExtensions(loaded, stdout)
	}
	built, code := buildRun(ctx, host, place, out)
	if built == nil {
		return code
	}
	defer built.Close()
	// Building (settings, policies, the tools' schemas, memory) touched
	// code and data the turn does not: about 3 MiB of the turn's peak.
	releaseStartUp()
	if code := f.check(built, dir, out, stderr); code != 0 {
		return code
	}
	input, piped, code := f.input(ctx, stdin, out)
	if code != 0 {
		return code
	}
	if sandboxed := built.Sandbox(); sandboxed != sandbox.None {
		fmt.Fprintf(stderr, "gemini-ls: sandbox: %s\n", sandboxed)
	}
	live, err := session(ctx, host, built, f.resume, f.sessionID, dir, out)
	if err != nil {
		return out.fail(exitInput, "gemini-ls: "+err.Error())
	}
	*sessionID = live.ID()
	if code := f.chooseMode(ctx, host, built, live, out); code != 0 {
		return code
	}
	return promptOnce(ctx, host, built, live, dialog.Input{Text: input, Piped: piped}, out, stderr)
}

// interactive ends a run given -i: where stdin is no terminal (piped),
// with 0.61's error and exit status, as it could not read the terminal
// either; else saying that gemini-ls has no interactive mode.
func interactive(piped bool, stderr io.Writer) int {
	if piped {
		fmt.Fprintln(stderr, "Error: The --prompt-interactive flag cannot be used when input is piped from stdin.")
		return exitInput
	}
	fmt.Fprintf(stderr, "gemini-ls run: --prompt-interactive does not apply: gemini-ls has no interactive terminal UI: run the prompt with -p, or chat in your editor; %s\n", cmdline.SeeHelp("run"))
	return exitError
}

// parseRun parses run's command line into its flags and the report of
// the run; with no report, the exit status.
func parseRun(args []string, stdout, stderr io.Writer) (*runFlags, *report, int) {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	f := new(runFlags)
	f.register(fs)
	words, err := f.parse(fs, args, stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return nil, nil, 0
	case err != nil:
		// Said on stderr already, and only there, whatever the format,
		// as 0.61's yargs says it.
		return nil, nil, exitError
	}
	if len(words) > 0 {
		f.prompt = strings.Join(words, " ")
	}
	out, err := newReport(f.outputFormat, stdout, stderr)
	if err != nil {
		return nil, nil, usageError(stderr, err)
	}
	out.raw = f.rawOutput || f.acceptRawRisk
	return f, out, 0
}

// runWorkspace is the workspace of the directory -C names, and its
// absolute path.
func runWorkspace(name string) (string, *workspace.Workspace, error) {
	dir, err := filepath.Abs(name)
	if err != nil {
		return "", nil, err
	}
	ws, err := workspace.New([]string{dir}, nil)
	if err != nil {
		return "", nil, err
	}
	return dir, ws, nil
}

// mode is the approval mode --approval-mode chose: one of its choices,
// or "".
func (f *runFlags) mode() dialog.ApprovalMode { return dialog.ApprovalMode(f.approvalMode) }

// host is the conversation host of a run in dir, which nobody attends.
func (f *runFlags) host(log *zap.Logger, dir string) *conversation.Host[struct{}] {
	getenv, lookupEnv := processEnv()
	if f.skipTrust {
		// As Gemini CLI's --skip-trust: the variable, for this run.
		getenv, lookupEnv = withEnv(getenv, lookupEnv, "GEMINI_CLI_TRUST_WORKSPACE", "true")
	}
	return conversation.NewHost[struct{}](conversation.Config{
		Getenv:     getenv,
		LookupEnv:  lookupEnv,
		Version:    version,
		Logger:     log,
		Unattended: true,

		SandboxSupervisor: sandboxSupervisor(),
		Responses:         f.responses.responses(dir),
	})
}

// place is where the run's conversation is built, as the flags say.
func (f *runFlags) place(dir string, ws *workspace.Workspace, out *report, stderr io.Writer) conversation.Place {
	return conversation.Place{
		Workspace: ws,
		Warn:      func(what string, err error) { out.warn(fmt.Sprintf("%s: %v", what, err)) },
		// The URL on a line of its own, to copy whole.
		ShowAuthURL: func(server, authURL string) {
			fmt.Fprintf(stderr, "gemini-ls: MCP server '%s' requires authentication. Open this URL in your browser to sign in:\n%s\n", server, authURL)
		},
		Model:        f.model,
		ApprovalMode: f.mode(),

		IncludeDirectories: f.include,
		PolicyPaths:        from(dir, f.policies),
		AdminPolicyPaths:   from(dir, f.adminPolicy),
		AllowedTools:       f.allowedTools,
		AllowedMCPServers:  f.allowedMCP,
		Extensions:         f.extensions,
		Sandbox:            f.sandbox.p,
	}
}

// buildRun builds the run's conversation; with none, the exit status.
func buildRun(ctx context.Context, host *conversation.Host[struct{}], place conversation.Place, out *report) (*conversation.Build, int) {
	built, err := host.Build(ctx, place)
	switch {
	case errors.Is(err, dialog.ErrYoloDisabled):
		return nil, out.fail(exitConfig, err.Error())
	case errors.Is(err, sandbox.ErrSetup):
		// Nothing runs unsandboxed when a sandbox was asked for.
		return nil, out.fail(exitSandbox, "gemini-ls: "+err.Error())
	case err != nil:
		return nil, out.badUsage(err)
	}
	return built, 0
}

// check settles the report's format with the settings, warns of what the
// flags and settings risk, and fails a run in an untrusted folder or
// without credentials: it returns the exit status, or 0 to go on.
func (f *runFlags) check(built *conversation.Build, dir string, out *report, stderr io.Writer) int {
	// The flag wins over the settings, as in Gemini CLI 0.61: with it,
	// the report has its format already (and the warnings told since).
	format := cmp.Or(f.outputFormat, built.OutputFormat(), "text")
	if f.outputFormat == "" {
		if err := out.choose(format); err != nil {
			return out.badUsage(err)
		}
	}
	// A slip of a model's name is told here, before any request: the
	// API would answer 404 only after the first turn began.
	if near := built.MisspeltModel(f.model); near != "" {
		return out.fail(exitError, fmt.Sprintf("gemini-ls: unknown model %q (did you mean %q?)", f.model, near))
	}
	if f.rawOutput && !f.acceptRawRisk && format == "text" {
		fmt.Fprintln(stderr, "[WARNING] --raw-output is enabled. Model output is not sanitized and may contain harmful ANSI sequences (e.g. for phishing or command injection). Use --accept-raw-output-risk to suppress this warning.")
	}
	if len(f.allowedTools) > 0 || built.SettingsAllowTools() {
		out.warn("Warning: --allowed-tools cli argument and tools.allowed in settings.json are deprecated and will be removed in 1.0: Migrate to Policy Engine: https://geminicli.com/docs/core/policy-engine/")
	}
	if built.NotTrusted() != nil {
		hint := untrustedHint(dir)
		return out.fail(exitUntrusted, hint)
	}
	if err := built.AuthErr(); err != nil {
		return out.failAuth(err.Error())
	}
	return 0
}

// chooseMode sets the session's approval mode for the run. A mode chosen
// for this run wins over the mode a resumed session saved, which it
// continues in otherwise, unless that is more permissive than the run's
// own: a person chose it where they could be asked (an editor's yolo),
// and nobody can be here. It returns the exit status, or 0 to go on.
func (f *runFlags) chooseMode(ctx context.Context, host *conversation.Host[struct{}], built *conversation.Build, live *conversation.Live[struct{}], out *report) int {
	saved := live.Mode()
	raised := saved.MorePermissive(built.ApprovalMode())
	if raised && f.mode() == "" {
		out.warn(fmt.Sprintf("The resumed session was in %s mode; this run stays in %s mode, its own, as nobody is here to be asked. Pass --approval-mode %s to continue in it.", saved.Name(), built.ApprovalMode().Name(), saved))
	}
	if f.mode() != "" || raised {
		if err := host.SetMode(ctx, live.ID(), ""); err != nil {
			return out.fail(exitError, "gemini-ls: "+err.Error())
		}
	}
	return 0
}

// promptOnce runs input in live and reports its outcome. One prompt to
// run: it sees every MCP server's tools, as Gemini CLI does; each
// server's timeout bounds its start. Only a cancelled run ends the wait
// early, and the prompt then ends too.
func promptOnce(ctx context.Context, host *conversation.Host[struct{}], built *conversation.Build, live *conversation.Live[struct{}], input dialog.Input, out *report, stderr io.Writer) int {
	host.Ready(ctx, live)
	start := time.Now()
	out.begin(live.ID(), host.Model(built), input.Text)
	o := host.Prompt(ctx, live.ID(), input, unattended{out})
	if o.Ending == conversation.NotRun {
		return out.failPrompt(exitInput, "gemini-ls: "+o.NotRun.Error(), o.NotRun.Error())
	}
	out.end(o, statsOf(live.Stats(), live.Info().Usage, time.Since(start)))
	return exitCode(o, stderr)
}

// input is the prompt to run: what a piped stdin holds, then a blank
// line and the prompt, as Gemini CLI joins them, and whether it begins
// with what was piped; or the exit status when there is none.
func (f *runFlags) input(ctx context.Context, stdin io.Reader, out *report) (input string, piped bool, exit int) {
	input = f.prompt
	if stdin != nil && !isTerminal(stdin) {
		text, truncated, err := pipedInput(ctx, stdin)
		if err != nil {
			msg := "reading stdin: " + err.Error()
			return "", false, out.fail(exitInput, "gemini-ls: "+msg)
		}
		if truncated {
			out.warn(fmt.Sprintf("Warning: stdin input truncated to %d bytes.", maxStdin))
		}
		if text != "" && input != "" {
			input = text + "\n\n" + input
		} else if text != "" {
			input = text
		}
		piped = text != ""
	}
	if input == "" {
		const msg = "No input provided via stdin. Input can be provided by piping data into gemini-ls or using the --prompt option."
		return "", false, out.fail(exitInput, "gemini-ls: "+msg)
	}
	return input, piped, 0
}

// withEnv is getenv and lookupEnv with name set to value (lookupEnv may
// be nil when only getenv is wanted).
func withEnv(getenv func(string) string, lookupEnv func(string) (string, bool), name, value string) (func(string) string, func(string) (string, bool)) {
	return func(k string) string {
			if k == name {
				return value
			}
			return getenv(k)
		}, func(k string) (string, bool) {
			if k == name {
				return value, true
			}
			return lookupEnv(k)
		}
}

// listExtensions prints the installed extensions, as Gemini CLI's -l.
func listExtensions(loaded *conversation.Build, stdout io.Writer) int {
	fmt.Fprintln(stdout, "Installed extensions:")
	for _, name := range loaded.Extensions() {
		fmt.Fprintf(stdout, "- %s\n", name)
	}
	return 0
}

// exitCode is the exit status of a run that ended as o, saying on
// stderr why a run that did not end its turn stopped.
func exitCode(o conversation.Outcome, stderr io.Writer) int {
	switch o.Ending {
	case conversation.Done:
		return 0
	case conversation.Cancelled:
		return exitCancelled
	}
	if _, ok := errors.AsType[*dialog.ReferenceError](o.Err); ok {
		// An @ reference that could not be read: 0.61's FatalInputError.
		fmt.Fprintf(stderr, "gemini-ls: %v\n", o.Err)
		return exitInput
	}
	fmt.Fprintf(stderr, "gemini-ls: %s\n", o.Explanation())
	if o.Ending == conversation.MaxTurns {
		return exitMaxTurns
	}
	return exitError
}

// usageError says err, a mistake in the command line, in one line; 1,
// as Gemini CLI exits for its flags' mistakes.
func usageError(stderr io.Writer, err error) int {
	fmt.Fprintf(stderr, "gemini-ls run: %v\n", err)
	return exitError
}

// unattended is the view of a headless run's turn, whose user is not
// there: its report shows the turn's events; it lands allowed changes
// straight on disk, and refuses what needs asking, saying what was
// refused and how to allow it.
type unattended struct {
	*report
}

// Land lands an allowed change on disk and refuses the others: refused,
// not declined, since no user said no, so the later calls still run.
func (u unattended) Land(ctx context.Context, req dialog.LandRequest) (dialog.Landing, error) {
	if req.Ask {
		return dialog.Landing{Decision: u.editNeedsConfirmation()}, nil
	}
	d, err := u.landOnDisk(ctx, req.Change)
	return dialog.Landing{Decision: d}, err
}

// editNeedsConfirmation refuses an edit nobody can confirm.
func (u unattended) editNeedsConfirmation() dialog.Decision {
	return dialog.Decision{Outcome: dialog.Refused, Reason: "edits need confirmation, and gemini-ls is running headless with nobody to give it; " +
		u.rerun("auto_edit") + " to allow edits"}
}

// landOnDisk lands an allowed change on disk, counting its lines.
func (u unattended) landOnDisk(ctx context.Context, change workspace.FileChange) (dialog.Decision, error) {
	if err := ctx.Err(); err != nil {
		return dialog.Decision{}, err
	}
	d, err := conversation.LandOnDisk(ctx, change)
	if err == nil && (d.Outcome == dialog.Applied || d.Outcome == dialog.Modified) {
		u.landed(change)
	}
	return d, err
}

// LandFiles lands a revert on disk: the user asked for it, and there is
// nobody else to ask. An edit call's change across files (CallID set: a
// rename) is an edit like any other: each file landed as Land lands one
// when allowed, every file refused when it needs asking.
func (u unattended) LandFiles(ctx context.Context, req dialog.LandFilesRequest) ([]dialog.Decision, error) {
	out := make([]dialog.Decision, len(req.Changes))
	call := req.CallID != ""
	for i, c := range req.Changes {
		var d dialog.Decision
		var err error
		switch {
		case call && req.Ask:
			d = u.editNeedsConfirmation()
		case call && !c.Remove:
			d, err = u.landOnDisk(ctx, c.FileChange)
		default:
			d, err = conversation.LandRevertOnDisk(ctx, c)
		}
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// Ask words the reason as Gemini CLI does where it cannot prompt.
func (unattended) Ask(context.Context, dialog.AskRequest) (dialog.Answer, error) {
	return dialog.Answer{}, fmt.Errorf("%w: gemini-ls is running headless, and asking the user is not supported in non-interactive mode", dialog.ErrCannotAsk)
}

// AskTrust refuses: a headless run in a folder no rule decides is
// refused before any prompt (untrustedHint), as in Gemini CLI;
// /permissions trust then trusts the folder as its name asks.
func (unattended) AskTrust(context.Context, dialog.TrustRequest) (string, error) {
	return "", fmt.Errorf("%w: gemini-ls is running headless", dialog.ErrCannotAsk)
}

// Confirm refuses: there is nobody to ask. The refusal names the tool
// and what would let it run headless: auto_edit for web_fetch (as in
// Gemini CLI), else yolo, the only mode that runs a call that asks (MCP
// tools, discovered tools, activate_skill and shell
// commands alike), or settings that allow it.
func (u unattended) Confirm(_ context.Context, req dialog.ConfirmRequest) (dialog.ConfirmOutcome, error) {
	tool := cmp.Or(req.Tool, "this call")
	allow := fmt.Sprintf("or allow %s in settings' tools.allowed", tool)
	switch req.Kind {
	case dialog.ConfirmRewind:
		return dialog.Cancel, fmt.Errorf("%w: gemini-ls is running headless; revert the file yourself, or rewind in an editor", dialog.ErrCannotAsk)
	case dialog.ConfirmExtension, dialog.ConfirmAgents:
		return dialog.Cancel, fmt.Errorf("%w: gemini-ls is running headless, so nobody can answer %q", dialog.ErrCannotAsk, req.Title)
	case dialog.ConfirmModelFallback:
		return dialog.Cancel, fmt.Errorf("%w: gemini-ls is running headless, so nobody can approve this: %s", dialog.ErrCannotAsk, req.Title)
	case dialog.ConfirmMCP:
		allow = `or trust its MCP server ("trust": true), or allow the tool in settings' tools.allowed`
	case dialog.ConfirmEdit, dialog.ConfirmExecute, dialog.ConfirmRead, dialog.ConfirmFetch, dialog.ConfirmInfo,
		dialog.ConfirmPlan, dialog.ConfirmSearch, dialog.ConfirmThink, dialog.ConfirmOther:
	}
	mode := "yolo"
	if req.Kind == dialog.ConfirmFetch {
		mode = "auto_edit"
	}
	return dialog.Cancel, fmt.Errorf("%w: %s needs confirmation, and gemini-ls is running headless with nobody to give it; %s to allow it, %s",
		dialog.ErrCannotAsk, tool, u.rerun(mode), allow)
}

// rerun says to run again in mode; the folder is trusted (a headless run
// refuses any other), so the mode holds.
func (u unattended) rerun(mode string) string {
	return "rerun with --approval-mode " + mode
}
