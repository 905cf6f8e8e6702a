package main

import (
	"cmp"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
	"github.com/gemini-ls/gemini-ls/internal/conversation"
	"github.com/gemini-ls/gemini-ls/internal/dialog"
	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// runFlags are a headless run's flags: Gemini CLI 0.61's, by its names
// and aliases (its packages/cli config.ts), and gemini-ls's own (-C,
// --log-file, --log-level). Flags 0.61 has that make no sense here are
// declared too, so that using one says why rather than "not defined",
// and hidden from help.
type runFlags struct {
	prompt       string
	dir          string
	model        string
	approvalMode string
	yolo         bool
	outputFormat string
	resume       string
	// worktree is -w's name, "" for a generated one; nil without -w.
	worktree       *string
	sessionID      string
	deleteSession  string
	listSessions   bool
	listExtensions bool
	skipTrust      bool
	sandbox        optionalBool
	debug          bool
	rawOutput      bool
	acceptRawRisk  bool
	include        listFlag
	policies       listFlag
	adminPolicy    listFlag
	allowedTools   listFlag
	allowedMCP     listFlag
	extensions     listFlag
	responses      responseFlags
	logs           logFlags
	// promptInteractive is 0.61's -i: an interactive session after its
	// prompt, which gemini-ls has not (interactive).
	promptInteractive interactiveFlag
	// notHere are the flags of 0.61 that do not apply in gemini-ls.
	notHere []*notHereFlag
	// order is the flags' first names in the order declared, which help
	// follows.
	order []string
}

// listFlag is a repeatable flag of comma-separated values, as Gemini
// CLI's array flags (--include-directories, --allowed-tools, -e).
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Get() any { return []string(*l) }

func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// notHereFlag is a flag of Gemini CLI's that gemini-ls does not take:
// given, the run stops with why. It takes no value, so that the word
// after it (-i's prompt, -w's name) does not hide the reason.
type notHereFlag struct {
	names []string
	why   string
	given bool
}

func (f *notHereFlag) String() string   { return "" }
func (f *notHereFlag) IsBoolFlag() bool { return true }
func (f *notHereFlag) Set(string) error { f.given = true; return nil }
func (f *notHereFlag) hiddenFromHelp()  {}

// interactiveFlag is Gemini CLI's -i/--prompt-interactive, which takes
// a prompt to start an interactive session with: gemini-ls has none,
// and says so as 0.61 would (interactive).
type interactiveFlag struct{ given bool }

func (f *interactiveFlag) String() string   { return "" }
func (f *interactiveFlag) Set(string) error { f.given = true; return nil }
func (f *interactiveFlag) hiddenFromHelp()  {}

// optionalBool is a boolean flag that tells "not given" (nil) from
// false, as yargs' boolean options without a default.
type optionalBool struct{ p *bool }

func (o *optionalBool) String() string {
	if o == nil || o.p == nil {
		return ""
	}
	return strconv.FormatBool(*o.p)
}

func (o *optionalBool) Get() any         { return o.p }
func (o *optionalBool) IsBoolFlag() bool { return true }

func (o *optionalBool) Set(v string) error {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return err
	}
	o.p = &b
	return nil
}

// choiceFlag is a string flag that takes one of its choices, as yargs'
// options with choices; help shows them.
type choiceFlag struct {
	p       *string
	choices []string
}

func (c *choiceFlag) String() string {
	if c.p == nil { // the zero value, which the flag package makes
		return ""
	}
	return *c.p
}

func (c *choiceFlag) Get() any { return c.String() }

func (c *choiceFlag) Set(v string) error {
	if !slices.Contains(c.choices, v) {
		return fmt.Errorf("not one of %s", cmdline.QuoteAll(c.choices))
	}
	*c.p = v
	return nil
}

// validSessionID is what Gemini CLI's --session-id takes.
var validSessionID = lazyregexp.New(`^[a-zA-Z0-9_-]+$`)

// resumeLatest is what --resume means with no value, as in Gemini CLI.
const resumeLatest = "latest"

// register declares the flags in fs, each once with its aliases (the
// names sharing its flag.Value), in the order help shows them.
func (f *runFlags) register(fs *flag.FlagSet) {
	// alias gives the flag declared as names[0] its other names.
	alias := func(names []string) {
		f.order = append(f.order, names[0])
		fl := fs.Lookup(names[0])
		for _, n := range names[1:] {
			fs.Var(fl.Value, n, fl.Usage)
		}
	}
	str := func(p *string, value, usage string, names ...string) {
		fs.StringVar(p, names[0], value, usage)
		alias(names)
	}
	choice := func(p *string, value string, choices []string, usage string, names ...string) {
		*p = value
		fs.Var(&choiceFlag{p: p, choices: choices}, names[0], usage)
		alias(names)
	}
	boolean := func(p *bool, usage string, names ...string) {
		fs.BoolVar(p, names[0], false, usage)
		alias(names)
	}
	list := func(p *listFlag, usage string, names ...string) {
		fs.Var(p, names[0], usage)
		alias(names)
	}
	str(&f.prompt, "", "Run this prompt headless, after what stdin holds (a positional prompt does the same)", "p", "prompt")
	str(&f.dir, ".", "Run in this directory, the workspace root", "C")
	str(&f.model, "", "Model (default: GEMINI_MODEL, else settings' model.name, else auto)", "m", "model")
	choice(&f.approvalMode, "", approvalModes(), "What runs without asking: default (nothing: edits, shell commands and other calls that need approval are refused), auto_edit (edits), yolo (everything), plan (read-only research and the plan file; other writes and commands are refused); when not given, settings' general.defaultApprovalMode, else default", "approval-mode")
	boolean(&f.yolo, "Run everything without asking, as --approval-mode yolo", "y", "yolo")
	choice(&f.outputFormat, "", []string{"text", "json", "stream-json"}, "The format of stdout (default: settings' output.format, else text)", "o", "output-format")
	fs.String("w", "", "Start in a new git worktree, .gemini/worktrees/NAME on the branch worktree-NAME from HEAD (a generated name when none is given), removed at the end when nothing changed; needs experimental.worktrees in the settings")
	alias([]string{"w", "worktree"})
	str(&f.resume, "", "Continue a saved session: latest (also with no value), its number in --list-sessions, its id, or a session file saved elsewhere (gemini-ls action's artifact), imported into this project", "r", "resume")
	str(&f.sessionID, "", "Start a new session with this id (letters, digits, - and _)", "session-id")
	str(&f.deleteSession, "", "Delete a saved session, by its number in --list-sessions or its id, and exit", "delete-session")
	boolean(&f.listSessions, "List this directory's saved sessions and exit", "list-sessions")
	boolean(&f.listExtensions, "List the installed extensions and exit", "l", "list-extensions")
	boolean(&f.skipTrust, "Trust the workspace for this run, as GEMINI_CLI_TRUST_WORKSPACE=true does", "skip-trust")
	fs.Var(&f.sandbox, "s", "Run the commands the model starts in a sandbox (bubblewrap on Linux, docker or podman where a daemon answers); see GEMINI_SANDBOX and tools.sandbox")
	alias([]string{"s", "sandbox"})
	boolean(&f.debug, "Log at debug level (on stderr, unless --log-file)", "d", "debug")
	boolean(&f.rawOutput, "Print the model's text as it is, terminal escape sequences included", "raw-output")
	boolean(&f.acceptRawRisk, "With --raw-output, without its warning", "accept-raw-output-risk")
	list(&f.include, "More workspace roots (comma-separated or repeated, relative to -C), after settings' context.includeDirectories", "include-directories")
	list(&f.policies, "Policy files or directories (comma-separated or repeated), read instead of ~/.gemini/policies and settings' policyPaths", "policy")
	list(&f.adminPolicy, "Admin-tier policy files or directories (comma-separated or repeated), instead of settings' adminPolicyPaths; skipped when the system policies directory holds policies", "admin-policy")
	list(&f.allowedTools, "Tools that run without asking (comma-separated or repeated), instead of settings' tools.allowed; deprecated in Gemini CLI for policies", "allowed-tools")
	list(&f.allowedMCP, "The only MCP servers used (comma-separated or repeated), instead of settings' mcp.allowed and mcp.excluded", "allowed-mcp-server-names")
	list(&f.extensions, "The only extensions enabled (comma-separated or repeated; none: no extension)", "e", "extensions")
	fs.Var(&f.promptInteractive, "i", "Not in gemini-ls: it has no interactive terminal UI")
	alias([]string{"i", "prompt-interactive"})
	f.order = append(f.order, f.responses.register(fs)...)
	f.logs.register(fs)
	for _, n := range []*notHereFlag{
		{names: []string{"screen-reader"}, why: "gemini-ls has no terminal UI to adapt: your editor's screen reader support applies"},
		{names: []string{"session-file"}, why: "gemini-ls resumes saved sessions by --resume, not from a file"},
		// Gemini CLI's names for ACP mode are a command here.
		{names: []string{"acp"}, why: acpIsACommand},
		{names: []string{"experimental-acp"}, why: acpIsACommand},
	} {
		f.notHere = append(f.notHere, n)
		fs.Var(n, n.names[0], "Not in gemini-ls: "+n.why)
		alias(n.names)
	}
}

// responseFlags are Gemini CLI's flags that replay the model's answers
// from a file, or record them in one (conversation.Responses), which
// run and acp take.
type responseFlags struct {
	fake, fakeNonStrict, record string
}

// register declares the flags in fs and returns their names, in help's
// order.
func (r *responseFlags) register(fs *flag.FlagSet) []string {
	fs.StringVar(&r.fake, "fake-responses", "", "Answer each model call with the next line of this file of recorded answers (as --record-responses writes them), never asking the model: no credentials needed; a call the next line is not for fails")
	fs.StringVar(&r.fakeNonStrict, "fake-responses-non-strict", "", "As --fake-responses, each call answered by the first line left of its kind (stream, generate, count)")
	fs.StringVar(&r.record, "record-responses", "", "Append each answer of the model to this file, a JSON line per call, for --fake-responses to replay")
	return []string{"fake-responses", "fake-responses-non-strict", "record-responses"}
}

// responses are what the flags ask for, --fake-responses-non-strict
// winning over --fake-responses as in Gemini CLI; relative paths are
// taken from dir.
func (r *responseFlags) responses(dir string) conversation.Responses {
	var out conversation.Responses
	switch {
	case r.fakeNonStrict != "":
		out.Replay, out.NonStrict = from(dir, []string{r.fakeNonStrict})[0], true
	case r.fake != "":
		out.Replay = from(dir, []string{r.fake})[0]
	}
	if r.record != "" {
		out.Record = from(dir, []string{r.record})[0]
	}
	return out
}

const acpIsACommand = "ACP is its own command here: gemini-ls acp (or gemini-ls --acp with no other flag)"

// approvalModes are --approval-mode's choices.
func approvalModes() []string {
	return []string{string(dialog.ApprovalDefault), string(dialog.ApprovalAutoEdit), string(dialog.ApprovalYolo), string(dialog.ApprovalPlan)}
}

// usageMistake is a mistake in the command line, said on stderr already in
// one line; Gemini CLI exits 1 for its own (yargs' failures). Its text is
// the mistake, for the JSON formats' result.
type usageMistake struct{ msg string }

func (e *usageMistake) Error() string { return e.msg }

// parse parses args (flags and positional words mixed, as yargs takes
// them) into f and returns the positional words, or an error said in one
// line on stderr: a *usageMistake, or flag.ErrHelp after the help.
func (f *runFlags) parse(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(stderr)
	fs.Usage = func() {}
	var words []string
	args = valuesLeftOut(args)
	if line := unknownArguments(fs, args); line != "" {
		fmt.Fprintf(stderr, "%s\ngemini-ls run: %s\n", line, cmdline.SeeHelp("run"))
		return nil, &usageMistake{line}
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				writeCommandHelp(stderr, "run", options(fs, f.order))
				return nil, err
			}
			// The flag package wrote the error's line.
			fmt.Fprintf(stderr, "gemini-ls run: %s\n", cmdline.SeeHelp("run"))
			return nil, &usageMistake{err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" {
			words = append(words, rest...)
			break
		}
		words = append(words, rest[0])
		args = rest[1:]
	}
	// Gemini CLI trims --resume's value and takes an empty one for
	// latest, and trims -w's (getWorktreeArg).
	fs.Visit(func(fl *flag.Flag) {
		switch fl.Name {
		case "r", "resume":
			f.resume = cmp.Or(strings.TrimSpace(f.resume), resumeLatest)
		case "w", "worktree":
			name := strings.TrimSpace(fl.Value.String())
			f.worktree = &name
		}
	})
	for _, n := range f.notHere {
		if n.given {
			return nil, f.usage(stderr, fmt.Sprintf("--%s does not apply: %s", n.names[len(n.names)-1], n.why))
		}
	}
	if f.prompt != "" && len(words) > 0 {
		return nil, f.usage(stderr, "Cannot use both a positional prompt and the --prompt (-p) flag together")
	}
	if f.resume != "" && f.sessionID != "" {
		return nil, f.usage(stderr, "The flags --resume, --session-id, and --session-file are mutually exclusive. Please provide only one.")
	}
	if f.sessionID != "" && !validSessionID.MatchString(f.sessionID) {
		return nil, f.usage(stderr, fmt.Sprintf("Invalid session ID %q: Only alphanumeric characters, dashes, and underscores are allowed.", f.sessionID))
	}
	if f.yolo && f.approvalMode != "" {
		return nil, f.usage(stderr, "Cannot use both --yolo (-y) and --approval-mode together. Use --approval-mode=yolo instead.")
	}
	if f.yolo {
		f.approvalMode = "yolo"
	}
	if f.debug && f.logs.level == "" {
		f.logs.level = "debug"
	}
	return words, nil
}

// unknownArguments is yargs' line for the flags of args fs does not
// declare, each with the flag of fs (shown in help) it is likely a typo
// of (cmdline.UnknownArguments); "" when fs declares them all.
func unknownArguments(fs *flag.FlagSet, args []string) string {
	unknown := cmdline.Scan(fs, args).Unknown
	if len(unknown) == 0 {
		return ""
	}
	var known []string
	for _, o := range options(fs, nil) {
		known = append(known, o.Names...)
	}
	return cmdline.UnknownArguments(unknown, append(known, "help"))
}

func (f *runFlags) usage(stderr io.Writer, msg string) error {
	fmt.Fprintf(stderr, "gemini-ls run: %s; %s\n", msg, cmdline.SeeHelp("run"))
	return &usageMistake{msg}
}

// valuesLeftOut is args with the values of --resume (latest) and -w (""
// for a generated name) written out where they were left out (last, or
// followed by another flag), as Gemini CLI takes a bare --resume or -w.
func valuesLeftOut(args []string) []string {
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		var value string
		switch out[i] {
		case "--":
			return out
		case "-r", "--r", "-resume", "--resume":
			value = resumeLatest
		case "-w", "--w", "-worktree", "--worktree":
			value = ""
		default:
			continue
		}
		if i+1 == len(out) || strings.HasPrefix(out[i+1], "-") {
			out = slices.Insert(out, i+1, value)
		}
		i++
	}
	return out
}
