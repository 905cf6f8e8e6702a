package main

import (
	"cmp"
	"runtime/debug"
	"strings"
)

// nextVersion is the release this source is heading for. A build of a
// commit no release tag names is nextVersion+devSuffix, so no build names
// itself by a bare commit hash nor by the last release it is past.
const (
	nextVersion = "0.1.0"
	devSuffix   = "-dev"
)

// shortCommit is how many hex digits of a commit --version shows: as many
// as a Go pseudo-version carries, so `go install …@<commit>` and a build of
// a checkout print the same.
const shortCommit = 12

// readBuildInfo is what Go recorded of this build, nil when nothing.
func readBuildInfo() *debug.BuildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return nil
	}
	return info
}

// versionLine is what --version prints: "gemini-ls VERSION (commit
// HASH)", HASH ending in -dirty when the checkout had changes not committed.
// stampedVersion and stampedCommit are what the linker was given (make
// dist: -X main.version, -X main.commit; version's default otherwise, and
// ""); what Go recorded (info) fills in the rest, as `go build` of a git
// checkout and `go install …@version` record it.
func versionLine(stampedVersion, stampedCommit string, info *debug.BuildInfo) string {
	recorded := recordedBuild(info)
	v := stampedVersion
	if v == nextVersion+devSuffix && recorded.release != "" {
		// go install …@vX.Y.Z, or go build of a checkout at that tag.
		v = recorded.release
	}
	c := recorded.commit
	if stampedCommit != "" {
		c = abbreviate(stampedCommit)
	}
	switch {
	case c != "":
		return "gemini-ls " + v + " (commit " + c + ")"
	case strings.HasSuffix(v, devSuffix):
		// A development build nobody can tell apart from another: say so
		// rather than pass it off as the release.
		return "gemini-ls " + v + " (commit unknown: built without version control information)"
	default:
		return "gemini-ls " + v
	}
}

// build is what Go recorded of the build: the release its module version
// names ("" for none) and the commit, abbreviated, with "-dirty" when the
// checkout had changes.
type build struct {
	release, commit string
}

// recordedBuild reads info. `go build` in a git checkout records the
// commit (vcs.revision), whether the tree was modified (vcs.modified) and,
// since Go 1.24, a module version: the tag at that commit, else a
// pseudo-version, "+dirty" appended when modified. `go install
// module@version` records only the module version, whose pseudo-version
// ends with the commit.
func recordedBuild(info *debug.BuildInfo) build {
	if info == nil {
		return build{}
	}
	var b build
	var revision string
	dirty := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			revision = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	mod, plus, _ := strings.Cut(info.Main.Version, "+")
	dirty = dirty || plus == "dirty"
	if rev, ok := pseudoRevision(mod); ok {
		revision = cmp.Or(revision, rev)
	} else if strings.HasPrefix(mod, "v") {
		b.release = mod[1:] // "(devel)" and "" name nothing
	}
	if revision != "" {
		b.commit = abbreviate(revision)
		if dirty && !strings.HasSuffix(b.commit, "-dirty") {
			b.commit += "-dirty"
		}
	}
	return b
}

// abbreviate shortens a commit hash to shortCommit digits, keeping a
// "-dirty" suffix.
func abbreviate(commit string) string {
	hash, dirty := strings.CutSuffix(commit, "-dirty")
	if len(hash) > shortCommit {
		hash = hash[:shortCommit]
	}
	if dirty {
		return hash + "-dirty"
	}
	return hash
}

// pseudoRevision is the commit a Go pseudo-version names
// (v0.0.0-20261125114500-f59a18b4abcd, and vX.Y.Z-0.… or vX.Y.Z-pre.0.…
// past a tag: a 14-digit time, then 12 hex digits), and whether v is one.
func pseudoRevision(v string) (string, bool) {
	rest, rev, ok := cutLast(v, "-")
	if !ok || len(rev) != shortCommit || strings.Trim(rev, "0123456789abcdef") != "" {
		return "", false
	}
	i := strings.LastIndexAny(rest, "-.")
	if stamp := rest[i+1:]; i < 0 || len(stamp) != 14 || strings.Trim(stamp, "0123456789") != "" {
		return "", false
	}
	return rev, true
}

// cutLast is strings.Cut at the last sep.
func cutLast(s, sep string) (before, after string, found bool) {
	i := strings.LastIndex(s, sep)
	if i < 0 {
		return s, "", false
	}
	return s[:i], s[i+len(sep):], true
}
