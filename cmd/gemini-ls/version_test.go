package main

import (
	"runtime/debug"
	"testing"
)

// What --version says of each kind of build: make dist's stamp wins, then
// what Go recorded; an untagged build is the next version's -dev, and a
// modified checkout's commit ends in -dirty.
func TestVersionLine(t *testing.T) {
	dev := nextVersion + devSuffix
	const rev = "f59a18b4c0ffee0123456789abcdef0123456789"
	vcs := func(modified string, mod string) *debug.BuildInfo {
		info := &debug.BuildInfo{Main: debug.Module{Version: mod}}
		info.Settings = []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.modified", Value: modified}}
		return info
	}
	for _, tc := range []struct {
		name                   string
		stampedVersion, commit string
		info                   *debug.BuildInfo
		want                   string
	}{
		{"make dist of a tag", "1.2.0", rev, vcs("false", "v1.2.0"), "gemini-ls 1.2.0 (commit f59a18b4c0ff)"},
		{"make dist of an untagged commit", dev, rev, vcs("false", "v0.0.0-20261125114500-f59a18b4c0ff"), "gemini-ls " + dev + " (commit f59a18b4c0ff)"},
		{"make dist of a modified tree", dev, rev + "-dirty", nil, "gemini-ls " + dev + " (commit f59a18b4c0ff-dirty)"},
		{"make dist outside git", "1.2.0", "abc", nil, "gemini-ls 1.2.0 (commit abc)"},
		{"go build of an untagged checkout", dev, "", vcs("false", "v0.0.0-20261125114500-f59a18b4c0ff"), "gemini-ls " + dev + " (commit f59a18b4c0ff)"},
		{"go build of a modified checkout", dev, "", vcs("true", "v0.0.0-20261125114500-f59a18b4c0ff+dirty"), "gemini-ls " + dev + " (commit f59a18b4c0ff-dirty)"},
		{"go build of a tagged checkout", dev, "", vcs("false", "v1.2.0"), "gemini-ls 1.2.0 (commit f59a18b4c0ff)"},
		{"go build past a tag", dev, "", vcs("false", "v1.2.1-0.20261125114500-f59a18b4c0ff"), "gemini-ls " + dev + " (commit f59a18b4c0ff)"},
		{"go build with an older Go", dev, "", vcs("true", "(devel)"), "gemini-ls " + dev + " (commit f59a18b4c0ff-dirty)"},
		{"go install @commit", dev, "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261125114500-f59a18b4c0ff"}}, "gemini-ls " + dev + " (commit f59a18b4c0ff)"},
		{"go install @prerelease commit", dev, "", &debug.BuildInfo{Main: debug.Module{Version: "v1.3.0-rc.1.0.20261125114500-f59a18b4c0ff"}}, "gemini-ls " + dev + " (commit f59a18b4c0ff)"},
		{"go install @tag", dev, "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "gemini-ls 1.2.0"},
		{"nothing recorded", dev, "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "gemini-ls " + dev + " (commit unknown: built without version control information)"},
		{"no build info", dev, "", nil, "gemini-ls " + dev + " (commit unknown: built without version control information)"},
	} {
		if got := versionLine(tc.stampedVersion, tc.commit, tc.info); got != tc.want {
			t.Errorf("%s: versionLine = %q, want %q", tc.name, got, tc.want)
		}
	}
}
