package manage

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/cmdline"
	"github.com/gemini-ls/gemini-ls/internal/extensions"
	"github.com/gemini-ls/gemini-ls/internal/settings"
)

// exitFatalConfig is Gemini CLI's exit status for a FatalConfigError,
// which its `extensions enable` of an unknown extension ends with.
const exitFatalConfig = 52

// extensionsSub is one of gemini-ls extensions' commands: what it is
// called, takes and does, and how a run of it does it.
type extensionsSub struct {
	name, args, summary string
	do                  func(context.Context, *extensionsCmd, []string) int
}

// extensionsCommands are gemini-ls extensions' commands.
func extensionsCommands() []cmdline.Command {
	var out []cmdline.Command
	for _, s := range extensionsSubs() {
		out = append(out, cmdline.Command{Name: s.name, Args: s.args, Summary: s.summary, Run: func(ctx context.Context, rest []string, stdin io.Reader, stdout, stderr io.Writer) int {
			x, err := newExtensionsCmd(stdin, stdout, stderr, s.name)
			if err != nil {
				fmt.Fprintf(stderr, "gemini-ls extensions %s: %v\n", s.name, err)
				return exitError
			}
			return s.do(ctx, x, rest)
		}})
	}
	return out
}

// extensionsSubs are gemini-ls extensions' commands, in help's order.
func extensionsSubs() []extensionsSub {
	sub := func(name, args, summary string, do func(context.Context, *extensionsCmd, []string) int) extensionsSub {
		return extensionsSub{name: name, args: args, summary: summary, do: do}
	}
	return []extensionsSub{
		sub("install", "<source>", "Install an extension from a local path or a git repository (http(s)://, ssh://, git@, file://).", func(ctx context.Context, x *extensionsCmd, args []string) int {
			return x.install(ctx, args)
		}),
		sub("uninstall", "[names..]", "Uninstall extensions, by name or source.", func(ctx context.Context, x *extensionsCmd, args []string) int {
			return x.uninstall(ctx, args)
		}),
		sub("list", "", "List the installed extensions.", func(_ context.Context, x *extensionsCmd, args []string) int {
			return x.list(args)
		}),
		sub("update", "[<name>]", "Update an extension, or all: copy a local one again from its source, or fetch a git one again.", func(ctx context.Context, x *extensionsCmd, args []string) int {
			return x.update(ctx, args)
		}),
		sub("disable", "<name>", "Disable an extension.", func(ctx context.Context, x *extensionsCmd, args []string) int {
			return x.setEnabled(ctx, args, false)
		}),
		sub("enable", "<name>", "Enable an extension.", func(ctx context.Context, x *extensionsCmd, args []string) int {
			return x.setEnabled(ctx, args, true)
		}),
		sub("link", "<path>", "Link an extension from a local path: its changes show at once.", func(ctx context.Context, x *extensionsCmd, args []string) int {
			return x.link(ctx, args)
		}),
		sub("new", "<path> [template]", "Create an extension, empty or from a template: "+strings.Join(extensions.Templates(), ", ")+".", func(_ context.Context, x *extensionsCmd, args []string) int {
			return x.newExtension(args)
		}),
		sub("validate", "<path>", "Validate an extension from a local path.", func(_ context.Context, x *extensionsCmd, args []string) int {
			return x.validate(args)
		}),
	}
}

// extensionsCommand is `gemini-ls extensions`.
func extensionsCommand(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "gemini-ls extensions: You need at least one command before continuing.; %s\n", cmdline.SeeHelp("extensions"))
		return exitError
	}
	subs := extensionsCommands()
	if cmdline.AsksHelp(args[:1]) {
		writeGroupHelp(stderr, "extensions", subs)
		return 0
	}
	if c, ok := cmdline.Find(subs, args[0]); ok {
		return c.Run(ctx, args[1:], stdin, stdout, stderr)
	}
	if args[0] == "config" {
		fmt.Fprintln(stderr, "gemini-ls extensions config: gemini-ls does not configure extension settings (some go to the system keychain); use `gemini extensions config`")
		return exitError
	}
	fmt.Fprintf(stderr, "gemini-ls extensions: unknown command %q; %s\n", args[0], cmdline.SeeHelp("extensions"))
	return exitError
}

// extensionsCmd is one run of an extensions subcommand.
type extensionsCmd struct {
	sub            string
	stdout, stderr io.Writer
	getenv         settings.Getenv
	m              extensions.Manager
	consent        bool // --consent: every question is answered yes
	// asker puts a question to the user: the terminal's or a chat's.
	asker Asker
	// prog names the command group in a usage error, and usageTail
	// ends it: where to read more.
	prog, usageTail string
}

// Asker puts a question to the user of a command: text says what it is
// about ("" for nothing more), question asks it, def is the answer an
// empty reply gives. An error says nobody could answer.
type Asker func(text, question string, def bool) (bool, error)

func newExtensionsCmd(stdin io.Reader, stdout, stderr io.Writer, sub string) (*extensionsCmd, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("finding the current directory: %w", err)
	}
	if stdin == nil {
		stdin = strings.NewReader("")
	}
	x := extensionsIn(os.Getenv, cwd, sub, stdout, stderr)
	x.asker = terminalAsker(bufio.NewReader(stdin), stderr)
	x.prog, x.usageTail = "gemini-ls extensions", cmdline.SeeHelp("extensions")
	return x, nil
}

// extensionsIn is a run of sub in workspace cwd, its settings' security
// (allowedExtensions, blockGitExtensions) read there; its asker, prog
// and usageTail are the caller's to set.
func extensionsIn(getenv settings.Getenv, cwd, sub string, stdout, stderr io.Writer) *extensionsCmd {
	x := &extensionsCmd{sub: sub, stdout: stdout, stderr: stderr, getenv: getenv}
	userDir := settings.UserDir(x.getenv)
	x.m = extensions.Manager{
		Config: extensions.Config{UserDir: userDir, Workspace: cwd, Getenv: x.getenv},
		Home:   filepath.Dir(userDir),
		Warn:   func(s string) { fmt.Fprintln(stderr, s) },
	}
	x.m.Consent = x.askConsent
	if trust, err := settings.DecideTrust(x.getenv, []string{cwd}); err == nil {
		if set, err := settings.Load(x.getenv, []string{cwd}, trust); err == nil || set.Security.AllowedExtensions != nil || set.Security.BlockGitExtensions {
			x.m.Allowed, x.m.BlockGit = set.Security.AllowedExtensions, set.Security.BlockGitExtensions
		}
	}
	return x
}

// flagSpec is a subcommand's flags: their names (the first is the key),
// whether each takes a value, its choices and default, and its help.
type flagSpec []mgmtOpt

// find is the flag called name.
func (s flagSpec) find(name string) (mgmtOpt, bool) {
	i := slices.IndexFunc(s, func(o mgmtOpt) bool { return slices.Contains(o.names, name) })
	if i < 0 {
		return mgmtOpt{}, false
	}
	return s[i], true
}

// parse splits args into flags, by key, and positional arguments as
// yargs does: flags anywhere, --name=value or --name value, --no-name for
// false; then gives the flags not given their defaults.
func (s flagSpec) parse(args []string) (map[string]string, []string, error) {
	flags := map[string]string{}
	var pos []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			pos = append(pos, args[i+1:]...)
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			pos = append(pos, a)
			continue
		}
		if cmdline.IsGlobalFlag(a) {
			continue // 0.61's --debug, which changes nothing here
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		opt, known := s.find(name)
		if base, negated := strings.CutPrefix(name, "no-"); !known && negated && !hasValue {
			if o, ok := s.find(base); ok && o.kind == optBool {
				opt, known, value, hasValue = o, true, "false", true
			}
		}
		switch {
		case !known:
			return nil, nil, fmt.Errorf("Unknown argument: %s", name)
		case opt.kind == optBool:
			if !hasValue {
				value = "true"
			}
			if value != "true" && value != "false" {
				return nil, nil, fmt.Errorf("--%s takes no value but true or false, not %q", opt.names[0], value)
			}
		case !hasValue:
			if i+1 >= len(args) {
				return nil, nil, fmt.Errorf("Not enough arguments following: %s", name)
			}
			i++
			value = args[i]
		}
		flags[opt.names[0]] = value
	}
	for _, o := range s {
		v, given := flags[o.names[0]]
		switch {
		case !given && o.def != "":
			flags[o.names[0]] = o.def
		case given && len(o.choices) > 0 && !slices.Contains(o.choices, v):
			return nil, nil, fmt.Errorf("Invalid values: Argument: %s, Given: %q, Choices: %s", o.names[0], v, cmdline.QuoteAll(o.choices))
		}
	}
	return flags, pos, nil
}

// usage reports a bad command line as Gemini CLI's yargs does, in one
// line, with where to look, and its exit status.
func (x *extensionsCmd) usage(msg string) int {
	fmt.Fprintf(x.stderr, "%s %s: %s; %s\n", x.prog, x.sub, msg, x.usageTail)
	return exitError
}

// fail reports err as Gemini CLI does, and its exit status.
func (x *extensionsCmd) fail(err error) int {
	fmt.Fprintln(x.stderr, err)
	return exitError
}

// parseArgs parses args, -h and the flags of spec; ok false means return
// code.
func (x *extensionsCmd) parseArgs(args []string, spec flagSpec) (flags map[string]string, pos []string, code int, ok bool) {
	if cmdline.AsksHelp(args) {
		c, _ := cmdline.Find(extensionsCommands(), x.sub)
		cmdline.WriteUsage(x.stderr, "gemini-ls extensions", c, mgmtOptions(spec))
		return nil, nil, 0, false
	}
	flags, pos, err := spec.parse(args)
	if err != nil {
		return nil, nil, x.usage(err.Error()), false
	}
	x.consent = flags["consent"] == "true"
	return flags, pos, 0, true
}

// terminalAsker asks on stderr and reads the answer from in: "" gives
// def, y or yes true, anything else false. With no answer (stdin ended)
// it is an error, so a headless run refuses rather than guess.
func terminalAsker(in *bufio.Reader, stderr io.Writer) Asker {
	return func(text, question string, def bool) (bool, error) {
		if text != "" {
			fmt.Fprintln(stderr, text)
		}
		fmt.Fprint(stderr, question)
		line, err := in.ReadString('\n')
		if err != nil && line == "" {
			fmt.Fprintln(stderr)
			return false, errors.New("no answer on stdin to the question above")
		}
		switch a := strings.ToLower(strings.TrimSpace(line)); a {
		case "":
			return def, nil
		case "y", "yes":
			return true, nil
		}
		return false, nil
	}
}

// askConsent is Gemini CLI's requestConsentNonInteractive: the
// description, then whether to continue, yes by default.
func (x *extensionsCmd) askConsent(description string) (bool, error) {
	if x.consent {
		return true, nil
	}
	ok, err := x.asker(description, "Do you want to continue? [Y/n]: ", true)
	if err != nil {
		return false, fmt.Errorf("%w; pass --consent to accept without being asked", err)
	}
	return ok, nil
}

// trustFolder records that dir is a trusted folder, as Gemini CLI does
// when the user says yes.
func (x *extensionsCmd) trustFolder(ctx context.Context, dir string) error {
	return settings.RecordTrust(ctx, x.getenv, dir, settings.TrustFolder)
}

// trusted reports whether dir is a trusted folder.
func (x *extensionsCmd) trusted(dir string) bool {
	trust, err := settings.DecideTrust(x.getenv, []string{dir})
	return err == nil && trust.Trusted(dir)
}

// trustWorkspace is Gemini CLI's check before any install, link or
// update: the current directory must be trusted, or be trusted now.
func (x *extensionsCmd) trustWorkspace(ctx context.Context) error {
	ws := x.m.Workspace
	if x.trusted(ws) {
		return nil
	}
	ok, err := x.askConsent(fmt.Sprintf(`The current workspace at "%s" is not trusted. Do you want to trust this workspace to install extensions?`, ws))
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("Could not install extension because the current workspace at %s is not trusted.", ws)
	}
	return x.trustFolder(ctx, ws)
}

// trustSource is Gemini CLI's check before installing a local directory:
// it must be trusted, or the user trusts it now (no by default; --consent
// does not answer this one, as in Gemini CLI).
func (x *extensionsCmd) trustSource(ctx context.Context, source string) error {
	abs, err := filepath.Abs(source)
	if err != nil {
		return err
	}
	if x.trusted(abs) {
		return nil
	}
	real := abs
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		real = r
	}
	text := fmt.Sprintf("\nDo you trust the files in this folder?\n\nThe extension source at \"%s\" is not trusted.\n\n"+
		"Trusting a folder allows Gemini CLI to load its local configurations,\nincluding custom commands, hooks, MCP servers, agent skills, and\n"+
		"settings. These configurations could execute code on your behalf or\nchange the behavior of the CLI.\n", abs)
	ok, err := x.asker(text, "Do you want to trust this folder and continue with the installation? [y/N]: ", false)
	if err != nil {
		return fmt.Errorf(`Installation aborted: Folder "%s" is not trusted (%v; trust it first, in trustedFolders.json, Gemini CLI or /permissions trust).`, abs, err)
	}
	if !ok {
		return fmt.Errorf(`Installation aborted: Folder "%s" is not trusted.`, abs)
	}
	return x.trustFolder(ctx, real)
}

func (x *extensionsCmd) consented() {
	if x.consent {
		fmt.Fprintln(x.stderr, "You have consented to the following:")
		fmt.Fprintln(x.stderr, extensions.InstallWarning)
	}
}

func boolFlag(flags map[string]string, name string) *bool {
	v, ok := flags[name]
	if !ok {
		return nil
	}
	b := v == "true"
	return &b
}

func (x *extensionsCmd) install(ctx context.Context, args []string) int {
	flags, pos, code, ok := x.parseArgs(args, flagSpec{
		{names: []string{"ref"}, kind: optString, help: "The git ref to install from"},
		{names: []string{"auto-update"}, kind: optBool, help: "Enable auto-update for this extension"},
		{names: []string{"pre-release"}, kind: optBool, help: "Enable pre-release versions for this extension"},
		{names: []string{"consent"}, kind: optBool, help: "Acknowledge the security risks of installing an extension and skip the confirmation prompt"},
		{names: []string{"skip-settings"}, kind: optBool, help: "Skip the extension's settings on install (gemini-ls never asks for them)"},
	})
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return x.usage(fmt.Sprintf("Not enough non-option arguments: got %d, need at least 1", len(pos)))
	}
	source := pos[0]
	if !extensions.IsRemote(source) && !filepath.IsAbs(source) {
		source = filepath.Join(x.m.Workspace, source) // the chat's workspace, the command line's working directory
	}
	rec, err := extensions.InferSource(source, flags["ref"], boolFlag(flags, "auto-update"), boolFlag(flags, "pre-release"))
	if err != nil {
		return x.fail(err)
	}
	if rec.Type == extensions.TypeLocal {
		abs, err := filepath.Abs(rec.Source)
		if err != nil {
			return x.fail(err)
		}
		rec.Source = abs
		if err := x.trustSource(ctx, abs); err != nil {
			return x.fail(err)
		}
	}
	x.consented()
	if err := x.trustWorkspace(ctx); err != nil {
		return x.fail(err)
	}
	ext, err := x.m.Install(ctx, rec)
	if err != nil {
		return x.fail(err)
	}
	fmt.Fprintf(x.stdout, "Extension %q installed successfully and enabled.\n", ext.Name)
	return 0
}

func (x *extensionsCmd) link(ctx context.Context, args []string) int {
	_, pos, code, ok := x.parseArgs(args, flagSpec{{names: []string{"consent"}, kind: optBool, help: "Acknowledge the security risks of installing an extension and skip the confirmation prompt"}})
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return x.usage(fmt.Sprintf("Not enough non-option arguments: got %d, need at least 1", len(pos)))
	}
	x.consented()
	if err := x.trustWorkspace(ctx); err != nil {
		return x.fail(err)
	}
	ext, err := x.m.Install(ctx, extensions.Record{Source: pos[0], Type: extensions.TypeLink})
	if err != nil {
		return x.fail(err)
	}
	fmt.Fprintf(x.stdout, "Extension %q linked successfully and enabled.\n", ext.Name)
	return 0
}

func (x *extensionsCmd) uninstall(ctx context.Context, args []string) int {
	flags, pos, code, ok := x.parseArgs(args, flagSpec{{names: []string{"all"}, kind: optBool, help: "Uninstall all installed extensions"}})
	if !ok {
		return code
	}
	all := flags["all"] == "true"
	if !all && len(pos) == 0 {
		return x.usage("Please include at least one extension name to uninstall as a positional argument, or use the --all flag.")
	}
	var names []string
	if all {
		for _, e := range x.m.Installed() {
			names = append(names, e.Name)
		}
		if len(names) == 0 {
			fmt.Fprintln(x.stdout, "No extensions currently installed.")
			return 0
		}
	} else {
		for _, n := range pos {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	var failed []string
	for _, n := range names {
		if _, err := x.m.Uninstall(ctx, n); err != nil {
			failed = append(failed, fmt.Sprintf("Failed to uninstall %q: %v", n, err))
			continue
		}
		fmt.Fprintf(x.stdout, "Extension %q successfully uninstalled.\n", n)
	}
	for _, f := range failed {
		fmt.Fprintln(x.stderr, f)
	}
	if len(failed) > 0 {
		return exitError
	}
	return 0
}

func (x *extensionsCmd) list(args []string) int {
	flags, pos, code, ok := x.parseArgs(args, flagSpec{{names: []string{"output-format", "o"}, kind: optString, choices: []string{"text", "json"}, def: "text", help: "The format of the list"}})
	if !ok {
		return code
	}
	if len(pos) > 0 {
		return x.usage("Unknown argument: " + pos[0])
	}
	format := flags["output-format"]
	loaded := extensions.Load(x.m.Config)
	for _, err := range loaded.Errs {
		var e *extensions.Error
		if errors.As(err, &e) {
			fmt.Fprintf(x.stderr, "Warning: Skipping extension in %s: %v\n", e.Dir, e.Err)
		} else {
			fmt.Fprintln(x.stderr, err)
		}
	}
	if format == "json" {
		out := []extensions.Listed{}
		for _, e := range loaded.All {
			out = append(out, x.m.JSON(e))
		}
		data, err := json.MarshalIndent(out, "", "  ")
		if err != nil {
			return x.fail(err)
		}
		fmt.Fprintln(x.stdout, string(data))
		return 0
	}
	if len(loaded.All) == 0 {
		fmt.Fprintln(x.stdout, "No extensions installed.")
		return 0
	}
	parts := make([]string, len(loaded.All))
	for i, e := range loaded.All {
		parts[i] = x.m.Describe(e)
	}
	fmt.Fprintln(x.stdout, strings.Join(parts, "\n\n"))
	return 0
}

// update updates as `gemini extensions update` does; like it, it exits 0
// when an update fails, having said why on stderr.
func (x *extensionsCmd) update(ctx context.Context, args []string) int {
	flags, pos, code, ok := x.parseArgs(args, flagSpec{
		{names: []string{"all"}, kind: optBool, help: "Update all extensions"},
		{names: []string{"consent"}, kind: optBool, help: "Acknowledge the security risks of installing an extension and skip the confirmation prompt"},
	})
	if !ok {
		return code
	}
	all := flags["all"] == "true"
	switch {
	case all && len(pos) > 0:
		return x.usage("Arguments name and all are mutually exclusive")
	case !all && len(pos) == 0:
		return x.usage("Either an extension name or --all must be provided")
	case len(pos) > 1:
		return x.usage("Unknown argument: " + pos[1])
	}
	if err := x.trustWorkspace(ctx); err != nil {
		return x.fail(err)
	}
	installed := x.m.Installed()
	if !all {
		name := pos[0]
		i := slices.IndexFunc(installed, func(e extensions.Extension) bool { return e.Name == name })
		if i < 0 {
			if len(installed) == 0 {
				fmt.Fprintf(x.stderr, "Extension %q not found.\n\nNo extensions installed.\n", name)
				return 0
			}
			var lines []string
			for _, e := range installed {
				lines = append(lines, fmt.Sprintf("%s (%s)", e.Name, e.Version))
			}
			fmt.Fprintf(x.stderr, "Extension %q not found.\n\nInstalled extensions:\n%s\n\nRun \"gemini extensions list\" for details.\n", name, strings.Join(lines, "\n"))
			return 0
		}
		ext := installed[i]
		if ext.Install.Type == "" {
			fmt.Fprintf(x.stdout, "Unable to install extension %q due to missing install metadata\n", name)
			return 0
		}
		if x.m.CheckUpdate(ctx, ext) != extensions.UpdateAvailable {
			fmt.Fprintf(x.stdout, "Extension %q is already up to date.\n", name)
			return 0
		}
		updated, err := x.m.Update(ctx, ext)
		if err != nil {
			fmt.Fprintln(x.stderr, err)
			return 0
		}
		if updated.Version == ext.Version {
			fmt.Fprintf(x.stdout, "Extension %q is already up to date.\n", name)
			return 0
		}
		fmt.Fprintf(x.stdout, "Extension %q successfully updated: %s → %s.\n", name, ext.Version, updated.Version)
		return 0
	}
	var done []string
	for _, ext := range installed {
		if ext.Install.Type == "" || x.m.CheckUpdate(ctx, ext) != extensions.UpdateAvailable {
			continue
		}
		updated, err := x.m.Update(ctx, ext)
		if err != nil {
			fmt.Fprintln(x.stderr, err)
			continue
		}
		if updated.Version != ext.Version {
			done = append(done, fmt.Sprintf("Extension %q successfully updated: %s → %s.", ext.Name, ext.Version, updated.Version))
		}
	}
	if len(done) == 0 {
		fmt.Fprintln(x.stdout, "No extensions to update.")
		return 0
	}
	fmt.Fprintln(x.stdout, strings.Join(done, "\n"))
	return 0
}

// scopes are the scopes Gemini CLI's enable and disable take.
var scopes = []string{"user", "workspace", "system", "systemdefaults", "session"}

func (x *extensionsCmd) setEnabled(ctx context.Context, args []string, enable bool) int {
	flags, pos, code, ok := x.parseArgs(args, flagSpec{{names: []string{"scope"}, kind: optString, help: "The scope: " + strings.Join(scopes, ", ") + "; enable's default: every scope, disable's: user"}})
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return x.usage(fmt.Sprintf("Not enough non-option arguments: got %d, need at least 1", len(pos)))
	}
	scope, given := flags["scope"]
	if given && !slices.Contains(scopes, strings.ToLower(scope)) {
		return x.usage(fmt.Sprintf("Invalid scope: %s. Please use one of %s.", scope, strings.Join(scopes, ", ")))
	}
	if !given && !enable {
		scope = "User" // disable's default, as its message names it
	}
	name := pos[0]
	var err error
	switch strings.ToLower(scope) {
	case "system", "systemdefaults":
		err = errors.New("System and SystemDefaults scopes are not supported.")
	case "session":
		// For the running session only: a command has none to change.
		if !slices.ContainsFunc(x.m.Installed(), func(e extensions.Extension) bool { return e.Name == name }) {
			err = fmt.Errorf("Extension with name %s does not exist.", name)
		}
	default:
		err = x.m.SetEnabledFor(ctx, name, enable, scope)
	}
	if err != nil {
		fmt.Fprintln(x.stderr, err)
		if enable {
			return exitFatalConfig
		}
		return exitError
	}
	switch {
	case !enable:
		fmt.Fprintf(x.stdout, "Extension %q successfully disabled for scope %q.\n", name, scope)
	case given:
		fmt.Fprintf(x.stdout, "Extension %q successfully enabled for scope %q.\n", name, scope)
	default:
		fmt.Fprintf(x.stdout, "Extension %q successfully enabled in all scopes.\n", name)
	}
	return 0
}

func (x *extensionsCmd) newExtension(args []string) int {
	_, pos, code, ok := x.parseArgs(args, flagSpec{})
	if !ok {
		return code
	}
	if len(pos) == 0 || len(pos) > 2 {
		return x.usage(fmt.Sprintf("Not enough non-option arguments: got %d, need at least 1", len(pos)))
	}
	path, template := pos[0], ""
	if len(pos) == 2 {
		template = pos[1]
		if !slices.Contains(extensions.Templates(), template) {
			return x.usage(fmt.Sprintf("Invalid values: Argument: template, Given: %q, Choices: %s", template, `"`+strings.Join(extensions.Templates(), `", "`)+`"`))
		}
	}
	if err := extensions.New(path, template); err != nil {
		return x.fail(err)
	}
	if template != "" {
		fmt.Fprintf(x.stdout, "Successfully created new extension from template %q at %s.\n", template, path)
	} else {
		fmt.Fprintf(x.stdout, "Successfully created new extension at %s.\n", path)
	}
	fmt.Fprintf(x.stdout, "You can install this using \"gemini extensions link %s\" to test it out.\n", path)
	return 0
}

func (x *extensionsCmd) validate(args []string) int {
	_, pos, code, ok := x.parseArgs(args, flagSpec{})
	if !ok {
		return code
	}
	if len(pos) != 1 {
		return x.usage(fmt.Sprintf("Not enough non-option arguments: got %d, need at least 1", len(pos)))
	}
	v, err := x.m.Validate(pos[0])
	if err != nil {
		return x.fail(err)
	}
	if len(v.Warnings) > 0 {
		fmt.Fprintln(x.stderr, "Validation warnings:")
		for _, w := range v.Warnings {
			fmt.Fprintf(x.stderr, "  - %s\n", w)
		}
	}
	if len(v.Errors) > 0 {
		fmt.Fprintln(x.stderr, "Validation failed with the following errors:")
		for _, e := range v.Errors {
			fmt.Fprintf(x.stderr, "  - %s\n", e)
		}
		return x.fail(extensions.ErrValidation)
	}
	fmt.Fprintf(x.stdout, "Extension %s has been successfully validated.\n", pos[0])
	return 0
}
