package settings

import (
	"runtime"
	"strings"
)

// Home is the user's home as Gemini CLI 0.61's homedir() finds it:
// $GEMINI_CLI_HOME, else the system's (SystemHome); "" when neither is
// known. ~/.gemini, ~/.env and a ~ in a setting or a command's argument
// are in it.
func Home(getenv Getenv) string {
	if home := getenv("GEMINI_CLI_HOME"); home != "" {
		return home
	}
	return SystemHome(getenv)
}

// SystemHome is the home the system gives the user, as Node's
// os.homedir() reads it: what the sandbox keeps the user's credentials
// in, and where gemini-ls keeps its own state.
func SystemHome(getenv Getenv) string { return systemHome(runtime.GOOS, getenv) }

// systemHome is SystemHome on goos. On Windows it is %USERPROFILE%, else
// %HOMEDRIVE%%HOMEPATH% (where Node asks the system for the profile
// directory, which HOMEDRIVE and HOMEPATH name); HOME is ignored there as
// Node ignores it, since a HOME set by MSYS or Cygwin is a Unix path.
// Elsewhere it is $HOME, "" when unset.
func systemHome(goos string, getenv Getenv) string {
	if goos != "windows" {
		return getenv("HOME")
	}
	if profile := getenv("USERPROFILE"); profile != "" {
		return profile
	}
	if drive, path := getenv("HOMEDRIVE"), getenv("HOMEPATH"); drive != "" && path != "" {
		return drive + path
	}
	return ""
}

// ExpandHome is p with its leading home (see expandHome) replaced by
// Home, not cleaned: callers clean or join it. ok is false when p starts
// at the home and there is no home, p then as given.
func ExpandHome(getenv Getenv, p string) (expanded string, ok bool) {
	return expandHome(runtime.GOOS, Home(getenv), p)
}

// expandHome is ExpandHome on goos, for a user whose home is home: "~"
// alone, "~/…" and, on Windows, "~\…" start in home, as does
// "%USERPROFILE%…" (any case), as 0.61's resolvePath has it on every
// system. 0.61 leaves "~\…" as written; a Windows user writes it as
// naturally as "~/…", so both are expanded there. "~user" is left alone:
// neither Gemini CLI nor gemini-ls looks up other users' homes.
func expandHome(goos, home, p string) (string, bool) {
	rest, found := cutHome(goos, p)
	switch {
	case !found:
		return p, true
	case home == "":
		return p, false
	}
	return home + rest, true
}

// cutHome is what follows the home p starts at, if it starts at one.
func cutHome(goos, p string) (rest string, found bool) {
	const profile = "%userprofile%"
	if len(p) >= len(profile) && strings.EqualFold(p[:len(profile)], profile) {
		return p[len(profile):], true
	}
	if p == "~" || strings.HasPrefix(p, "~/") || goos == "windows" && strings.HasPrefix(p, `~\`) {
		return p[1:], true
	}
	return "", false
}
