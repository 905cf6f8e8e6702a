package shellparse

import (
	"cmp"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Word is a word as the program it is passed to receives it.
type Word struct {
	// Text is the word after quote and escape removal when Static; else
	// the word as written.
	Text string
	// Static: the shell passes Text as one word, whatever the line's
	// variables, files and commands hold.
	Static bool
}

// Unknown is a word of which nothing is known, written as nothing: the
// arguments xargs reads, a find -exec's {}.
var unknownWord = Word{}

// Words are a simple command's words (its assignments left out) as the
// program receives them, each static or as written in command.
func Words(command string, words []*syntax.Word) []Word {
	out := make([]Word, len(words))
	for i, w := range words {
		if text, ok := Text(w); ok {
			out[i] = Word{Text: text, Static: true}
			continue
		}
		start, end := int(w.Pos().Offset()), int(w.End().Offset())
		if 0 <= start && start <= end && end <= len(command) {
			out[i].Text = command[start:end]
		}
	}
	return out
}

// Runs is what a command runs through the wrappers at its head: sudo,
// env, timeout, xargs, a shell's -c script and the like.
type Runs struct {
	// Commands are the commands the wrappers at the command's head start,
	// each as its own words (sudo -u x rm y: rm y), and the commands find
	// starts (-exec … ;); the command itself is not among them.
	Commands [][]Word
	// Script is the shell code the last command runs (sh -c S, eval S),
	// in ScriptShell's language; nil when none.
	Script *Word
	// ScriptShell names the shell that reads Script ("bash" for every
	// POSIX shell; "cmd", "powershell").
	ScriptShell string
	// Stdin: the last command is a shell reading its script from its
	// standard input.
	Stdin bool
	// Unknown is why what the last command runs cannot be known from the
	// line; "" when it can.
	Unknown string
}

// maxWrappers bounds how many wrappers Through looks through: sudo sudo
// sudo … is no reason to spend more.
const maxWrappers = 16

// Through is what the command of words runs through the wrappers at its
// head, as bash runs it. The wrappers: builtin, command, exec, env,
// nohup, nice, timeout, setsid, stdbuf, time, sudo, doas, busybox and
// xargs (its arguments from input unknown), find's -exec, -execdir, -ok
// and -okdir, eval and trap's code, and the shells sh, bash, dash, ksh,
// mksh, ash, yash, posh and zsh with -c. An option Through does not know,
// or a word it cannot read where one may be, makes what follows Unknown.
func Through(words []Word) Runs {
	var runs Runs
	for range maxWrappers {
		next, done := runs.unwrap(words)
		if done || len(next) == 0 {
			return runs
		}
		runs.Commands = append(runs.Commands, next)
		words = next
	}
	runs.Unknown = "it nests wrappers too deep"
	return runs
}

// unwrap is the command words's wrapper starts; done when there is none
// (or Unknown, Script or Stdin say what it runs).
func (r *Runs) unwrap(words []Word) (next []Word, done bool) {
	if len(words) == 0 || !words[0].Static {
		return nil, true
	}
	name := path.Base(words[0].Text)
	args := words[1:]
	if wrap := wrapperOptions(name); wrap != nil {
		return r.afterOptions(name, args, *wrap)
	}
	switch name {
	case "builtin", "busybox":
		return args, false
	case "xargs":
		return r.xargs(args)
	case "find":
		r.find(args)
		return nil, true
	case "su", "runuser":
		return r.su(name, args)
	case "watch":
		r.watch(args)
		return nil, true
	case "parallel":
		return r.parallel(args)
	case "firejail":
		return r.firejail(args)
	case "eval":
		r.code(args, "bash")
		return nil, true
	case "trap":
		if len(args) > 0 && !isTrapOption(args[0]) {
			r.code(args[:1], "bash")
		}
		return nil, true
	}
	if isPOSIXShell(name) {
		r.shell(args)
	}
	return nil, true
}

// code records args, joined by spaces as eval joins them, as a script.
func (r *Runs) code(args []Word, shell string) {
	texts := make([]string, len(args))
	for i, a := range args {
		if !a.Static {
			r.Unknown = "it runs code that is not known before it runs"
			return
		}
		texts[i] = a.Text
	}
	r.Script, r.ScriptShell = &Word{Text: strings.Join(texts, " "), Static: true}, shell
}

// isTrapOption reports whether a trap's first argument is an option
// (trap -l, trap -p), not code.
func isTrapOption(w Word) bool { return w.Static && strings.HasPrefix(w.Text, "-") }

// options is how a wrapper's options are written, GNU style: single
// letters that may be bundled (-ab), some taking a value (-n 5, -n5),
// long ones (--name, --name=value, --name value), -- ending them.
type options struct {
	flags, valued    string
	long, longValued []string
	// notRun are the letters that make the wrapper run nothing
	// (command -v only looks the name up).
	notRun string
	// splitString is the letter that splits a string into the command to
	// run (env -S): what it runs cannot be read here.
	splitString string
	// assignments: NAME=VALUE words may follow the options (env, sudo).
	assignments bool
	// digits: -5 is an option (nice).
	digits bool
	// leading is how many words come between the options and the
	// command (timeout's duration, flock's file, chroot's root).
	leading int
	// shellWhenEmpty: with no command, the wrapper starts a shell,
	// which reads its commands from input (sudo -s, chroot /, nsenter).
	shellWhenEmpty bool
	// script is the letter whose value is shell code the wrapper runs
	// (flock -c, script -c); its long form is --command.
	script string
}

// runsNothing is skip's count when an option makes the wrapper run
// nothing.
const runsNothing = -1

// wrapperOptions is how the wrapper name's options are written; nil when
// name is none of these.
func wrapperOptions(name string) *options {
	switch name {
	case "command":
		return &options{flags: "p", notRun: "vV"}
	case "exec":
		return &options{flags: "cl", valued: "a"}
	case "env":
		return &options{flags: "i0v", valued: "uCP", assignments: true, splitString: "S",
			long:       []string{"ignore-environment", "null", "debug", "default-signal", "ignore-signal", "block-signal", "list-signal-handling"},
			longValued: []string{"unset", "chdir", "split-string"}}
	case "nohup":
		return &options{}
	case "nice":
		return &options{valued: "n", digits: true, longValued: []string{"adjustment"}}
	case "timeout":
		return &options{flags: "v", valued: "sk", leading: 1,
			long: []string{"preserve-status", "foreground", "verbose"}, longValued: []string{"signal", "kill-after"}}
	case "setsid":
		return &options{flags: "cfw", long: []string{"ctty", "fork", "wait"}}
	case "stdbuf":
		return &options{valued: "ioe", longValued: []string{"input", "output", "error"}}
	case "time":
		return &options{flags: "pvaq", valued: "fo", long: []string{"append", "verbose", "portability", "quiet"}, longValued: []string{"format", "output"}}
	case "sudo":
		return &options{flags: "AbEHKknPSsi", valued: "CDgpRrTtUu", assignments: true, notRun: "elVv", shellWhenEmpty: true,
			long:       []string{"askpass", "background", "preserve-env", "set-home", "login", "remove-timestamp", "reset-timestamp", "non-interactive", "preserve-groups", "stdin", "shell"},
			longValued: []string{"close-from", "chdir", "group", "prompt", "chroot", "role", "type", "command-timeout", "other-user", "user"}}
	case "doas":
		return &options{flags: "ns", valued: "uC", shellWhenEmpty: true}
	case "flock":
		return &options{flags: "sxunoFe", valued: "wEc", script: "c", leading: 1,
			long: []string{"shared", "exclusive", "unlock", "nonblock", "nb", "close", "no-fork", "verbose"}, longValued: []string{"timeout", "wait", "conflict-exit-code", "command"}}
	case "script":
		return &options{flags: "aefqkm", valued: "ctTBIOE", script: "c", shellWhenEmpty: true,
			long: []string{"append", "return", "flush", "force", "quiet", "echo-never"}, longValued: []string{"command", "timing", "log-timing", "log-in", "log-out", "log-io", "echo", "logging-format", "output-limit"}}
	case "nsenter":
		return &options{flags: "amuinpUCTrwWFZe", valued: "tGSN", shellWhenEmpty: true,
			long:       []string{"all", "mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "root", "wd", "no-fork", "preserve-credentials", "follow-context", "env", "join-cgroup", "keep-caps", "user-parent"},
			longValued: []string{"target", "setgid", "setuid", "wdns", "net-socket"}}
	case "unshare":
		return &options{flags: "mUuinpCTfrcV", valued: "SGRwl", shellWhenEmpty: true,
			long:       []string{"mount", "uts", "ipc", "net", "pid", "user", "cgroup", "time", "fork", "map-root-user", "map-current-user", "kill-child", "mount-proc", "mount-binfmt", "keep-caps", "map-auto"},
			longValued: []string{"propagation", "setgroups", "root", "wd", "map-user", "map-group", "map-users", "map-groups", "setuid", "setgid", "monotonic", "boottime", "load-interp"}}
	case "chroot":
		return &options{leading: 1, shellWhenEmpty: true, long: []string{"skip-chdir"}, longValued: []string{"userspec", "groups"}}
	case "systemd-run":
		return &options{flags: "rtGPqSd", valued: "pEuHM", shellWhenEmpty: false, notRun: "h",
			long: []string{"user", "system", "scope", "remain-after-exit", "wait", "pipe", "pty", "quiet", "collect", "same-dir", "no-block", "no-ask-password", "send-sighup", "ignore-failure", "background", "expand-environment", "json", "verbose"},
			longValued: []string{"unit", "property", "description", "slice", "slice-inherit", "uid", "gid", "nice", "working-directory", "setenv", "on-active", "on-boot", "on-startup", "on-unit-active", "on-unit-inactive",
				"on-calendar", "on-clock-change", "on-timezone-change", "timer-property", "path-property", "socket-property", "service-type", "host", "machine", "capsule"}}
	}
	return nil
}

// bashScript records script, which the wrapper name hands bash to run;
// one not known before the line runs cannot be judged.
func (r *Runs) bashScript(name string, script *Word) {
	r.Script, r.ScriptShell = script, "bash"
	if !script.Static {
		r.Unknown = name + " runs a shell script that is not known before it runs"
	}
}

// afterOptions is the command a wrapper of opts starts, args its
// arguments.
func (r *Runs) afterOptions(name string, args []Word, opts options) ([]Word, bool) {
	i, why, script := opts.skip(args)
	switch {
	case why != "":
		r.Unknown = name + " " + why
		return nil, true
	case i == runsNothing:
		return nil, true
	case script != nil:
		r.bashScript(name, script)
		return nil, true
	}
	// env and sudo take every word holding = as an assignment, whatever
	// its name (env 'BASH_FUNC_ls%%=() { …; }' exports a function).
	for ; opts.assignments && i < len(args) && args[i].Static && strings.Contains(args[i].Text, "="); i++ {
		if name, _, _ := strings.Cut(args[i].Text, "="); IsCodeVariable(name) {
			r.Unknown = name + " sets " + name + ", which bash runs as code"
			return nil, true
		}
	}
	if i+opts.leading >= len(args) && opts.shellWhenEmpty {
		r.Stdin = true // a shell reading its input
		return nil, true
	}
	if i+opts.leading > len(args) {
		return nil, true // nothing to run
	}
	for _, w := range args[i : i+opts.leading] {
		if !w.Static {
			r.Unknown = name + " takes a word that is not known before it runs"
			return nil, true
		}
	}
	return args[i+opts.leading:], false
}

// skip is how many of args are options (runsNothing when one makes the
// wrapper run nothing); why says why they cannot be read; script is the
// shell code an option gives (flock -c), nil when none does.
func (o options) skip(args []Word) (int, string, *Word) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		var takes int
		var why string
		switch {
		case !w.Static:
			return 0, "takes a word that is not known before it runs", nil
		case w.Text == "--":
			return i + 1, "", nil
		case w.Text == "-" || !strings.HasPrefix(w.Text, "-"):
			return i, "", nil
		case o.script != "" && (w.Text == "--command" || strings.HasPrefix(w.Text, "--command=")):
			return o.scriptValue(args, i, strings.TrimPrefix(strings.TrimPrefix(w.Text, "--command"), "="), strings.Contains(w.Text, "="))
		case strings.HasPrefix(w.Text, "--"):
			takes, why = o.longOption(w.Text[2:])
		case o.script != "" && strings.Contains(w.Text, o.script) && strings.IndexAny(w.Text[1:], o.valued) == strings.Index(w.Text[1:], o.script):
			// The first letter taking a value is the script's: -qc S, -cS.
			at := strings.Index(w.Text, o.script)
			return o.scriptValue(args, i, w.Text[at+1:], at+1 < len(w.Text))
		default:
			takes, why = o.shortOptions(w.Text[1:])
		}
		if why != "" || takes == runsNothing {
			return takes, why, nil
		}
		i += takes
	}
	return len(args), "", nil
}

// scriptValue is skip's answer for the option at args[i] giving shell
// code: glued to it (glued), or the next word.
func (o options) scriptValue(args []Word, i int, value string, glued bool) (int, string, *Word) {
	switch {
	case glued:
		return len(args), "", &Word{Text: value, Static: true}
	case i+1 < len(args):
		return len(args), "", &args[i+1]
	}
	return runsNothing, "", nil
}

// longOption judges --name or --name=value: how many words it takes after
// itself, or why it cannot be read.
func (o options) longOption(opt string) (int, string) {
	name, _, valued := strings.Cut(opt, "=")
	switch {
	case name == "split-string" && o.splitString != "":
		return 0, "splits a string into the command it runs"
	case slices.Contains(o.longValued, name) && !valued:
		return 1, ""
	case slices.Contains(o.longValued, name), slices.Contains(o.long, name):
		return 0, ""
	}
	return 0, "has an option gemini-ls does not know (--" + name + ")"
}

// shortOptions judges a bundle of single-letter options (without its
// -): how many words it takes after itself, or why it cannot be read.
func (o options) shortOptions(bundle string) (int, string) {
	if o.digits && strings.Trim(bundle, "0123456789") == "" {
		return 0, ""
	}
	for j := 0; j < len(bundle); j++ {
		c := bundle[j]
		switch {
		case strings.IndexByte(o.splitString, c) >= 0:
			return 0, "splits a string into the command it runs"
		case strings.IndexByte(o.notRun, c) >= 0:
			return runsNothing, ""
		case strings.IndexByte(o.valued, c) >= 0:
			if j+1 < len(bundle) {
				return 0, "" // the value is the rest: -n5
			}
			return 1, ""
		case strings.IndexByte(o.flags, c) < 0:
			return 0, "has an option gemini-ls does not know (-" + string(c) + ")"
		}
	}
	return 0, ""
}

// xargs is the command xargs starts: args after its options, then the
// words it reads from its input, unknown here. With -I (-i) the words
// holding the replacement string are those read instead.
func (r *Runs) xargs(args []Word) ([]Word, bool) {
	opts := options{flags: "0oprtx", valued: "adELnPs",
		long:       []string{"null", "interactive", "verbose", "exit", "no-run-if-empty", "open-tty", "show-limits"},
		longValued: []string{"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"}}
	replace := ""
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		var takes int
		var why string
		switch {
		case !w.Static:
			why = "takes a word that is not known before it runs"
		case w.Text == "--":
			return xargsCommand(args[i+1:], replace), false
		case w.Text == "-" || !strings.HasPrefix(w.Text, "-"):
			return xargsCommand(args[i:], replace), false
		case w.Text == "-I":
			if i+1 < len(args) {
				replace = args[i+1].Text
			}
			takes = 1
		case strings.HasPrefix(w.Text, "-I"):
			replace = w.Text[2:]
		case isXargsReplace(w.Text):
			replace = xargsReplaceString(w.Text)
		case isXargsOptionalValue(w.Text):
		case strings.HasPrefix(w.Text, "--"):
			takes, why = opts.longOption(w.Text[2:])
		default:
			takes, why = opts.shortOptions(w.Text[1:])
		}
		if why != "" {
			r.Unknown = "xargs " + why
			return nil, true
		}
		i += takes
	}
	return xargsCommand(nil, replace), false
}

// isXargsReplace reports whether opt is xargs's -i[R] or --replace[=R].
func isXargsReplace(opt string) bool {
	return strings.HasPrefix(opt, "-i") || opt == "--replace" || strings.HasPrefix(opt, "--replace=")
}

// xargsReplaceString is the replacement string of -i[R] or
// --replace[=R]: {} when R is left out.
func xargsReplaceString(opt string) string {
	if strings.HasPrefix(opt, "--") {
		_, value, _ := strings.Cut(opt, "=")
		return cmp.Or(value, "{}")
	}
	return cmp.Or(opt[2:], "{}")
}

// isXargsOptionalValue reports whether opt is one of xargs's other
// options whose value is optional and glued: -e[EOF], -l[N], --eof[=EOF],
// --max-lines[=N].
func isXargsOptionalValue(opt string) bool {
	for _, long := range []string{"--eof", "--max-lines"} {
		if opt == long || strings.HasPrefix(opt, long+"=") {
			return true
		}
	}
	return strings.HasPrefix(opt, "-e") || strings.HasPrefix(opt, "-l")
}

// xargsCommand is the command xargs runs of words: echo when none; the
// words holding replace unknown, or unknown words after them.
func xargsCommand(words []Word, replace string) []Word {
	if len(words) == 0 {
		words = []Word{{Text: "echo", Static: true}}
	}
	out := make([]Word, 0, len(words)+1)
	for _, w := range words {
		if replace != "" && strings.Contains(w.Text, replace) {
			w = unknownWord
		}
		out = append(out, w)
	}
	if replace == "" {
		out = append(out, unknownWord)
	}
	return out
}

// find records the commands find's -exec, -execdir, -ok and -okdir
// start: their words up to ; or +, each {} unknown. A word find's
// arguments hold that is not static may be one of these.
func (r *Runs) find(args []Word) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		switch {
		case !w.Static:
			r.Unknown = "find takes a word that is not known before it runs, which may make it run a command"
			return
		case w.Text == "-exec" || w.Text == "-execdir" || w.Text == "-ok" || w.Text == "-okdir":
			end := i + 1
			for end < len(args) && !(args[end].Static && (args[end].Text == ";" || args[end].Text == "+")) {
				end++
			}
			run := make([]Word, 0, end-i-1)
			for _, a := range args[i+1 : end] {
				if strings.Contains(a.Text, "{}") {
					a = unknownWord
				}
				run = append(run, a)
			}
			if len(run) > 0 {
				r.through(run)
			}
			i = end
		}
	}
}

// isPOSIXShell reports whether name is a shell that reads -c as bash
// does.
func isPOSIXShell(name string) bool {
	switch name {
	case "sh", "bash", "dash", "ksh", "mksh", "ash", "yash", "posh", "zsh", "ksh93", "lksh", "rbash":
		return true
	}
	return false
}

// shell records what a shell called with args runs: its -c script, or
// the script it reads from its input (Stdin); a script file it runs is
// a program's business, as any other program's files are.
func (r *Runs) shell(args []Word) {
	command, stdin := false, false
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		if !w.Static {
			r.Unknown = "a shell takes a word that is not known before it runs"
			return
		}
		if w.Text == "--" || w.Text == "-" {
			i++
			break
		}
		if len(w.Text) < 2 || w.Text[0] != '-' && w.Text[0] != '+' {
			break
		}
		takes, why := shellOption(w.Text)
		if why != "" {
			r.Unknown = why
			return
		}
		command = command || w.Text[0] == '-' && w.Text[1] != '-' && strings.Contains(w.Text, "c")
		stdin = stdin || w.Text[0] == '-' && w.Text[1] != '-' && strings.Contains(w.Text, "s")
		i += takes
	}
	switch {
	case !command && i < len(args) && !args[i].Static:
		r.Unknown = "a shell runs a script file that is not known before it runs"
	case !command && i < len(args) && (args[i].Text == "/dev/stdin" || args[i].Text == "/dev/fd/0" || args[i].Text == "/proc/self/fd/0"):
		r.Stdin = true
	case !command && i < len(args) && readsInput(args[i].Text):
		r.Unknown = "a shell runs a script from an open file, which the line does not show"
	case command && i < len(args):
		r.Script, r.ScriptShell = &args[i], "bash"
		if !args[i].Static {
			r.Unknown = "it runs a shell script that is not known before it runs"
		}
	case command:
	case stdin || i >= len(args):
		r.Stdin = true
	}
}

// shellOption judges a shell's option word (-abc, +o name, --login): how
// many words it takes after itself, or why it cannot be read.
func shellOption(opt string) (int, string) {
	if strings.HasPrefix(opt, "--") {
		switch opt {
		case "--login", "--norc", "--noprofile", "--posix", "--restricted", "--verbose", "--noediting", "--debugger", "--pretty-print":
			return 0, ""
		case "--rcfile", "--init-file":
			return 1, ""
		}
		return 0, "a shell has an option gemini-ls does not know (" + opt + ")"
	}
	takes := strings.Count(opt, "o") + strings.Count(opt, "O")
	return takes, ""
}

// through records run, a command a wrapper starts beside its own (find
// -exec's), and what it runs through the wrappers at its head in turn
// (find . -exec env rm {} ;): a script or input it runs is one more
// than Runs can hold, and is unknown.
func (r *Runs) through(run []Word) {
	r.Commands = append(r.Commands, run)
	inner := Through(run)
	r.Commands = append(r.Commands, inner.Commands...)
	switch {
	case inner.Unknown != "":
		r.Unknown = cmp.Or(r.Unknown, inner.Unknown)
	case inner.Script != nil && r.Script == nil:
		r.Script, r.ScriptShell = inner.Script, inner.ScriptShell
	case inner.Script != nil, inner.Stdin:
		r.Unknown = cmp.Or(r.Unknown, "find runs a shell whose script the line does not show")
	}
}

// IsCodeVariable reports whether bash runs the value of the variable
// name as code, or reads from it a file or options that do (PS0…PS4 and
// PROMPT_COMMAND are expanded with their command substitutions, PS4 for
// set -x; BASH_ENV and ENV are sourced by the shells a line starts;
// SHELLOPTS and BASHOPTS set their options; BASH_FUNC_x%% exports a
// function): an assignment to one cannot be judged.
func IsCodeVariable(name string) bool {
	switch name {
	case "PS0", "PS1", "PS2", "PS3", "PS4", "PROMPT_COMMAND", "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "BASH_XTRACEFD", "BASH_LOADABLES_PATH", "EXECIGNORE", "PROMPT_DIRTRIM", "INPUTRC", "HISTFILE", "BASH_COMPAT":
		return true
	}
	return strings.HasPrefix(name, "BASH_FUNC_")
}

// su records what su or runuser runs: with runuser -u, the command after
// the options; else the shell started as the user, which takes -c code,
// and after the user's name the shell's own arguments (su root -c S); a
// shell reading its input when there is neither.
func (r *Runs) su(name string, args []Word) ([]Word, bool) {
	opts := options{flags: "lmpfP", valued: "gGswc", script: "c",
		long:       []string{"login", "preserve-environment", "pty", "no-pty", "fast"},
		longValued: []string{"group", "supp-group", "shell", "session-command", "whitelist-environment"}}
	if name == "runuser" {
		for i, w := range args {
			if w.Static && (w.Text == "-u" || w.Text == "--user" || strings.HasPrefix(w.Text, "--user=")) {
				opts.valued += "u"
				opts.longValued = append(opts.longValued, "user")
				return r.afterOptions(name, append(args[:i:i], args[i:]...), opts)
			}
		}
	}
	for i := 0; i < len(args); i++ {
		w := args[i]
		if w.Static && (w.Text == "-" || w.Text == "--session-command" || strings.HasPrefix(w.Text, "--session-command=")) {
			if w.Text != "-" {
				r.Unknown = name + " --session-command runs a command gemini-ls does not read"
				return nil, true
			}
			continue
		}
		if w.Static && !strings.HasPrefix(w.Text, "-") { // the user: the rest is the shell's
			r.shell(args[i+1:])
			return nil, true
		}
		n, why, script := opts.skip(args[i:])
		switch {
		case why != "":
			r.Unknown = name + " " + why
			return nil, true
		case script != nil:
			r.bashScript(name, script)
			return nil, true
		case n == runsNothing:
			return nil, true
		case n == 0:
			r.Unknown = name + " takes a word that is not known before it runs"
			return nil, true
		}
		i += n - 1
	}
	r.Stdin = true
	return nil, true
}

// watch records what watch runs: its arguments joined by spaces as sh
// -c's script, or, with -x, as a command.
func (r *Runs) watch(args []Word) {
	opts := options{flags: "bcCeglprtwxq", valued: "dn", long: []string{"beep", "color", "no-color", "errexit", "chgexit", "no-linewrap", "precise", "no-rerun", "no-title", "no-wrap", "exec", "equexit", "differences"},
		longValued: []string{"interval", "shotsdir"}}
	i, why, _ := opts.skip(args)
	switch {
	case why != "":
		r.Unknown = "watch " + why
		return
	case i == runsNothing, i >= len(args):
		return
	}
	exec := slices.ContainsFunc(args[:i], func(w Word) bool {
		return w.Text == "--exec" || !strings.HasPrefix(w.Text, "--") && strings.Contains(w.Text, "x")
	})
	if exec {
		r.through(args[i:])
		return
	}
	r.code(args[i:], "bash")
}

// parallel records what GNU parallel runs: its command, through a
// shell, with the inputs after ::: (or read from its input) in place of
// {} or after it. A command before ::: whose words are known is read as
// xargs's; one that a shell would read otherwise than as those words, or
// none at all (the inputs are then the commands), is unknown.
func (r *Runs) parallel(args []Word) ([]Word, bool) {
	opts := options{flags: "0kqvuegrX", valued: "jNnSadIEPLsC",
		long:       []string{"keep-order", "quote", "verbose", "ungroup", "group", "null", "no-run-if-empty", "dry-run", "halt-on-error", "bar", "progress", "eta", "tag", "line-buffer", "pipe", "xargs", "will-cite", "shuf", "lb"},
		longValued: []string{"jobs", "max-args", "sshlogin", "arg-file", "delimiter", "eof", "max-procs", "max-lines", "max-chars", "colsep", "tmpdir", "workdir", "results", "joblog", "timeout", "memfree", "load", "nice", "tagstring", "basefile", "halt", "delay", "retries", "block"}}
	i, why, _ := opts.skip(args)
	if why != "" {
		r.Unknown = "parallel " + why
		return nil, true
	}
	end := i
	for end < len(args) && !(args[end].Static && strings.HasPrefix(args[end].Text, ":::")) {
		end++
	}
	command := args[i:end]
	if len(command) == 0 || slices.ContainsFunc(command, func(w Word) bool { return !w.Static || strings.ContainsAny(w.Text, shellSpecial) }) {
		r.Unknown = "parallel runs its inputs, or a command a shell reads, which the line does not show"
		return nil, true
	}
	out := make([]Word, 0, len(command)+1)
	for _, w := range command {
		if strings.Contains(w.Text, "{") { // a replacement string: {}, {.}, {1}…
			w = unknownWord
		}
		out = append(out, w)
	}
	return append(out, unknownWord), false
}

// shellSpecial are the bytes that make a shell read a word otherwise
// than as one word of that text.
const shellSpecial = " \t\n;&|<>()$`'\"\\*?[]~#=%!"

// firejail records what firejail runs: the command after its options
// (--name or --name=value), or a shell reading its input.
func (r *Runs) firejail(args []Word) ([]Word, bool) {
	for i, w := range args {
		switch {
		case !w.Static:
			r.Unknown = "firejail takes a word that is not known before it runs"
			return nil, true
		case w.Text == "--":
			return r.firejailCommand(args[i+1:])
		case strings.HasPrefix(w.Text, "--"):
		case strings.HasPrefix(w.Text, "-"):
			r.Unknown = "firejail has an option gemini-ls does not know (" + w.Text + ")"
			return nil, true
		default:
			return r.firejailCommand(args[i:])
		}
	}
	r.Stdin = true
	return nil, true
}

func (r *Runs) firejailCommand(args []Word) ([]Word, bool) {
	if len(args) == 0 {
		r.Stdin = true
		return nil, true
	}
	return args, false
}

// readsInput reports whether a shell's script file is its input or
// another open file rather than a file the line names (/dev/stdin,
// /dev/fd/N, /proc/self/fd/N): what it runs is not in any file.
func readsInput(file string) bool {
	return strings.HasPrefix(file, "/dev/") || strings.HasPrefix(file, "/proc/")
}
