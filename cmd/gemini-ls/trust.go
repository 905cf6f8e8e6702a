package main

import (
	"cmp"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/gemini-ls/gemini-ls/internal/settings"
	"github.com/gemini-ls/gemini-ls/internal/shellquote"
)

// trustFolder runs `gemini-ls trust [DIR]`: it records DIR (the current
// directory when none is given) as trusted in ~/.gemini/trustedFolders.json,
// the file Gemini CLI's trust dialog and /permissions trust write, through
// the one writer of it (settings.RecordTrust): what a headless run
// refused with exit 55 then runs, in gemini-ls, Gemini CLI and every
// editor. Gemini CLI 0.61 has no such command: a shell user there must
// start its interactive UI to be asked.
func trustFolder(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("trust", flag.ContinueOnError)
	parent := fs.Bool("parent", false, "Trust the folder's parent, and so its siblings too (TRUST_PARENT)")
	if code, ok := parseOptions(fs, args, stderr); !ok {
		return code
	}
	if fs.NArg() > 1 {
		fmt.Fprintf(stderr, "gemini-ls trust: one folder at a time, not %q\n", fs.Args())
		return 2
	}
	dir, err := filepath.Abs(cmp.Or(fs.Arg(0), "."))
	if err == nil {
		dir, err = existingDir(dir)
	}
	if err != nil {
		fmt.Fprintf(stderr, "gemini-ls trust: %v\n", err)
		return exitError
	}
	path := settings.TrustedFoldersPath(os.Getenv)
	if path == "" {
		fmt.Fprintln(stderr, "gemini-ls trust: no home directory to record the trust in (HOME and GEMINI_CLI_HOME are unset; GEMINI_CLI_TRUSTED_FOLDERS_PATH names the file otherwise)")
		return exitError
	}
	level, what := settings.TrustFolder, dir
	if *parent {
		level, what = settings.TrustParent, filepath.Dir(dir)+" and the folders in it"
	}
	if err := settings.RecordTrust(ctx, os.Getenv, dir, level); err != nil {
		fmt.Fprintf(stderr, "gemini-ls trust: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "Trusted %s (recorded in %s, which Gemini CLI reads too).\n", what, path)
	// Something above the file may still decide otherwise: say so now,
	// not at the next refusal.
	if t, err := settings.DecideTrust(os.Getenv, []string{dir}); err == nil {
		if why := t.Why(dir); why != nil {
			fmt.Fprintf(stderr, "gemini-ls trust: the folder is still not trusted: %v\n", why)
			return exitError
		}
	}
	return 0
}

// existingDir is dir with its symlinks resolved, as trust is decided for
// the real folder; an error when it is not a directory.
func existingDir(dir string) (string, error) {
	info, err := os.Stat(dir)
	if err != nil {
		return "", err
	}
	if !info.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real, nil
	}
	return dir, nil
}

// untrustedHint is Gemini CLI 0.61's refusal of a headless run in a folder
// that is not trusted, in gemini-ls's words, with the command that trusts
// dir for good. It names gemini-ls already, so it is printed without the
// "gemini-ls: " of other errors.
func untrustedHint(dir string) string {
	return "gemini-ls is not running in a trusted directory. To proceed, either use `--skip-trust`, set the `GEMINI_CLI_TRUST_WORKSPACE=true` environment variable, or trust this directory (`/permissions trust` in your editor or Gemini CLI). " +
		"To trust it for good from this shell, run: gemini-ls trust " + shellquote.Quote(dir)
}
