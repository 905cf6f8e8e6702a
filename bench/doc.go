// Package bench measures gemini-ls end to end, the way an editor meets it:
// the real binary spawned over stdio, a scripted editor (lsptest) and the
// fake Gemini API (geminitest) in the benchmark process.
//
// The package holds only benchmarks (and tests of their measuring code);
// run them with bench/run.sh or
//
//	go test -run '^$' -bench . -benchtime 40x ./bench/
//
// Each benchmark reports its own distribution (median, p90, max over the
// iterations) with b.ReportMetric; docs/benchmarks.md records the figures
// and what each one includes. Nothing here passes or fails on time.
// BenchmarkTokens counts tokens, not time: what a scripted session sends
// the model, against Gemini CLI 0.61 on the same script.
package bench
