package main

// figure is one number bench-check follows: which benchmark reports it,
// under which unit, and what it is. Every figure is better lower.
type figure struct {
	Name   string // its key in figures.json
	Bench  string // the benchmark's name, without the -GOMAXPROCS suffix
	Metric string // the unit b.ReportMetric gave it
	What   string
}

// allowed is the growth f may show before it is flagged: a count of
// tokens does not depend on the machine's load, so it may grow by
// tokenGrowth only; the rest by regressionRatio.
func (f figure) allowed() float64 {
	switch f.Metric {
	case "input-tokens", "cost-tokens":
		return tokenGrowth
	}
	return regressionRatio
}

// tokenGrowth is what a task's tokens may grow (issue 89): they do not
// depend on the machine's load, so 5% is a change of what is sent.
const tokenGrowth = 1.05

// tokenFigures are BenchmarkTokens's, two a task: its raw input tokens
// and its cost with the cache counted, gemini-ls's.
func tokenFigures() []figure {
	var out []figure
	for _, task := range []struct{ name, what string }{
		{"turn8", "one 8-tool turn"},
		{"resume30", "30 prompts in one session, --resume"},
		{"read208", "a 208 KB file read, then 10 prompts"},
		{"read208x2", "two 208 KB reads, then 10 prompts"},
		{"memory-edit", "10 prompts, the model editing GEMINI.md at the fifth"},
		{"compression", "a 208 KB read, then 5 prompts, compressing"},
	} {
		bench := "BenchmarkTokens/" + task.name
		out = append(out,
			figure{"tokens-" + task.name + "-input", bench, "input-tokens", task.what + ": input tokens (request JSON / 4, utility calls included)"},
			figure{"tokens-" + task.name + "-cost", bench, "cost-tokens", task.what + ": input tokens with the cache counted (repeated input at a quarter)"})
	}
	return out
}

// followed are the issue's figures (docs/benchmarks.md, "Guarding the
// figures"). Most are ratios measured within one run (to a trivial
// server, to bare bwrap, to the soak's own earlier sample), which the
// load of a shared machine cancels out of; the times and the RSS are not,
// and a regression of theirs is worth a second run before believing it.
func followed() []figure {
	return append([]figure{
		{"spawn-init-ratio", "BenchmarkSpawnToInitialize", "init-ratio-median",
			"spawn → initialize, ÷ a trivial Go LSP server's (median of per-iteration ratios)"},
		{"turn8-overhead-ms-per-call", "BenchmarkTurn8ToolCalls", "overhead/call-median-ms",
			"8-tool-call turn: non-model time per call, ms (median)"},
		{"turn8-cpu-ms-per-call", "BenchmarkTurn8ToolCalls", "server-cpu/call-ms",
			"8-tool-call turn: the server's CPU per tool call, ms"},
		{"turn8-peak-rss-mb", "BenchmarkTurn8ToolCallsFreshProcess", "rss-median-MB",
			"peak RSS of a fresh process's 8-call turn, MB (median)"},
		{"saved-sessions-wall-ratio", "BenchmarkHeadlessAmongSavedSessions", "wall-ratio",
			"headless 8-call run among 1,000 saved sessions ÷ among none, wall (median of pair ratios)"},
		{"saved-sessions-cpu-ratio", "BenchmarkHeadlessAmongSavedSessions", "cpu-ratio",
			"headless 8-call run among 1,000 saved sessions ÷ among none, CPU (median of pair ratios)"},
		{"quick-succession-cpu-ratio", "BenchmarkHeadlessInQuickSuccession", "cpu-ratio",
			"headless run in a loop keeping its sessions ÷ in an empty home, CPU (median of pair ratios)"},
		{"sandbox-extra-ratio", "BenchmarkSandboxVsBareBwrap", "extra-ratio-median",
			"echo in the session's sandbox ÷ in a bare bwrap (median of per-iteration ratios)"},
		{"soak-lsp-rss-growth", "BenchmarkSoakLSP", "rss-growth",
			"LSP soak: RSS after 2,000 prompts ÷ after 100"},
		{"soak-lsp-heap-growth", "BenchmarkSoakLSP", "heap-growth",
			"LSP soak: live heap after 2,000 prompts ÷ after 100 (gctrace, 1 MB steps)"},
		{"soak-lsp-fds-growth", "BenchmarkSoakLSP", "fds-growth",
			"LSP soak: open files after 2,000 prompts ÷ after 100"},
		{"soak-lsp-threads-growth", "BenchmarkSoakLSP", "threads-growth",
			"LSP soak: threads after 2,000 prompts ÷ after 100"},
		{"soak-lsp-cpu-growth", "BenchmarkSoakLSP", "cpu-growth",
			"LSP soak: CPU per prompt, prompts 1951–2000 ÷ 51–100"},
		{"soak-lsp-goroutines", "BenchmarkSoakLSP", "goroutines",
			"LSP soak: goroutines after 2,000 prompts (SIGQUIT dump)"},
		{"soak-acp-rss-growth", "BenchmarkSoakACP", "rss-growth",
			"ACP soak: RSS after 50 sessions opened and closed ÷ after 10"},
		{"soak-acp-fds-growth", "BenchmarkSoakACP", "fds-growth",
			"ACP soak: open files after 50 sessions ÷ after 10"},
		{"soak-acp-settled-fds-growth", "BenchmarkSoakACP", "settled-fds-growth",
			"ACP soak: open files after 50 sessions and 95 s idle ÷ after 10"},
		{"soak-acp-goroutines", "BenchmarkSoakACP", "goroutines",
			"ACP soak: goroutines after 50 sessions and 95 s idle (SIGQUIT dump)"},
		{"soak-acp-open-rss-growth", "BenchmarkSoakACPLeftOpen", "rss-growth",
			"ACP soak, sessions left open: RSS after 200 sessions ÷ after 40"},
		{"soak-acp-open-fds-growth", "BenchmarkSoakACPLeftOpen", "fds-growth",
			"ACP soak, sessions left open: open files after 200 sessions ÷ after 40"},
	}, tokenFigures()...)
}
