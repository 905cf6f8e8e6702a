package shellparse

import (
	"path"
	"strings"
)

// ReadsThrough reports whether Through knows the program name as one
// that starts another command or runs code, and reads what it runs.
func ReadsThrough(name string) bool {
	name = path.Base(name)
	if wrapperOptions(name) != nil || isPOSIXShell(name) {
		return true
	}
	switch name {
	case "builtin", "busybox", "xargs", "find", "eval", "trap", "su", "runuser", "watch", "parallel", "firejail":
		return true
	}
	return false
}

// RunsNoArgument reports whether the command of words is one gemini-ls
// knows never runs a program or code its arguments name: a program
// that reads, prints, compares or moves files and text (ls, cat, grep,
// cp …), or git with a subcommand that runs nothing its arguments name
// and none of the options that make git run a command (-c, --exec-path,
// --upload-pack …). `ls rm` lists a file named rm; `sort
// --compress-program=rm`, `sed 'e rm x'`, `awk 'BEGIN{system("rm x")}'`
// and `git -c core.pager=rm log` run rm, so sort, sed, awk and those
// lines of git are not among them.
func RunsNoArgument(words []Word) bool {
	if len(words) == 0 || !words[0].Static {
		return false
	}
	name := path.Base(words[0].Text)
	switch name {
	case "ls", "cat", "echo", "printf", "grep", "egrep", "fgrep", "rg", "head", "tail", "wc", "uniq", "cut", "tr",
		"mkdir", "rmdir", "touch", "cp", "mv", "ln", "chmod", "chown", "chgrp", "stat", "file", "diff", "cmp", "basename", "dirname",
		"realpath", "readlink", "pwd", "true", "false", "test", "[", "which", "du", "df", "date", "sleep", "tee", "od", "hexdump",
		"base64", "sha1sum", "sha256sum", "sha512sum", "md5sum", "cksum", "comm", "paste", "join", "fold", "nl", "rev", "tac", "seq",
		"id", "whoami", "uname", "hostname", "printenv", "column", "expand", "unexpand", "tree", "jq", "cd", "pushd", "popd", "dirs",
		"set", "shift", "exit", "return", "break", "continue", "wait", "kill", "umask", "type", "ulimit", "shopt", "history", ":":
		return true
	case "git":
		return gitRunsNoArgument(words[1:])
	}
	return false
}

// gitRunsNoArgument reports whether git, called with args, runs nothing
// they name: its global options are only -C, --no-pager, -P and
// --git-dir/--work-tree, its subcommand one that starts no command, and
// no argument asks it to start one (--exec, --upload-pack,
// --receive-pack, --extcmd, -x of rebase …).
func gitRunsNoArgument(args []Word) bool {
	i := 0
	for ; i < len(args); i++ {
		w := args[i]
		switch {
		case !w.Static:
			return false
		case w.Text == "-C":
			i++
		case w.Text == "--no-pager" || w.Text == "-P" || strings.HasPrefix(w.Text, "--git-dir=") || strings.HasPrefix(w.Text, "--work-tree="):
		case strings.HasPrefix(w.Text, "-"):
			return false
		default:
			return gitSubcommandRunsNothing(w.Text, args[i+1:])
		}
	}
	return true
}

// gitSubcommandRunsNothing reports whether git's subcommand, with args,
// starts no command its arguments name.
func gitSubcommandRunsNothing(sub string, args []Word) bool {
	switch sub {
	case "status", "log", "diff", "show", "add", "rm", "mv", "commit", "branch", "checkout", "switch", "restore", "reset",
		"stash", "tag", "init", "blame", "grep", "ls-files", "rev-parse", "describe", "shortlog", "reflog", "merge",
		"cherry-pick", "revert", "apply", "fetch", "pull", "push", "clone", "remote", "show-ref", "cat-file", "ls-tree", "rev-list", "merge-base":
	default:
		return false
	}
	for _, w := range args {
		if !w.Static {
			return false // it may expand to such an option
		}
		for _, runs := range []string{"--exec", "-x", "--upload-pack", "-u", "--receive-pack", "--extcmd", "--ext-diff", "--config", "-c", "--template", "--strategy", "-s"} {
			if w.Text == runs || strings.HasPrefix(w.Text, runs+"=") {
				return false
			}
		}
	}
	return true
}
