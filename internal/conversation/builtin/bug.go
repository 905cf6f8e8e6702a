package builtin

import (
	"context"
	"fmt"
	"net/url"
	"runtime"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/models"
)

// bugURLTemplate is where /bug files a report unless advanced.bugCommand
// names another: gemini-ls's issues, not Gemini CLI's (0.61's default).
const bugURLTemplate = "https://github.com/gemini-ls/gemini-ls/issues/new?title={title}&body={problem}%0A%0A{info}"

// bug is Gemini CLI 0.61's /bug: the URL of a new issue titled with what
// followed the command, with what runs (never a secret) in it, made from
// advanced.bugCommand.urlTemplate as 0.61 makes it. 0.61 also opens it in
// a browser; a front end here may run where no browser is, so the URL is
// the answer.
func bug(_ context.Context, env Env, args string) (Reply, error) {
	description := strings.TrimSpace(args)
	template := bugURLTemplate
	if t := env.Built.Settings.Advanced.BugCommand.URLTemplate; t != "" {
		template = t
	}
	// One of each, as 0.61's String.replace with a string replaces the
	// first.
	link := strings.Replace(template, "{title}", encodeURIComponent(description), 1)
	link = strings.Replace(link, "{info}", encodeURIComponent(bugInfo(env)), 1)
	link = strings.Replace(link, "{problem}", encodeURIComponent(description), 1)
	return Reply{Text: "To submit your bug report, please open the following URL in your browser:\n" + link}, nil
}

// bugInfo is what runs, as 0.61's report lists it, in its Markdown.
func bugInfo(env Env) string {
	var mem runtime.MemStats
	runtime.ReadMemStats(&mem)
	var b strings.Builder
	fmt.Fprintf(&b, "\n* **gemini-ls Version:** %s\n", orUnknown(env.Version))
	fmt.Fprintf(&b, "* **Session ID:** %s\n", env.Session.ID())
	fmt.Fprintf(&b, "* **Operating System:** %s/%s %s\n", runtime.GOOS, runtime.GOARCH, runtime.Version())
	fmt.Fprintf(&b, "* **Model Version:** %s\n", models.Display(env.Built.Agent.ModelSetting()))
	fmt.Fprintf(&b, "* **Auth Type:** %s\n", orUnknown(env.Built.AuthStatus().Type))
	fmt.Fprintf(&b, "* **Memory Usage:** %.1f MB\n", float64(mem.Sys)/(1<<20))
	return b.String()
}

// encodeURIComponent is s as JavaScript's encodeURIComponent encodes it,
// for any place in a URL: a space is %20, as in a path, not "+".
func encodeURIComponent(s string) string {
	// QueryEscape writes every "+" of s as %2B: each left is a space.
	return strings.ReplaceAll(url.QueryEscape(s), "+", "%20")
}
