//go:build linux

package bench

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gemini-ls/gemini-ls/internal/acp/acptest"
)

// BenchmarkSoakACP is one `gemini-ls acp` opening and closing 50
// sessions, each taking one prompt of two tool calls before session/close;
// every 5 sessions the server is sampled as BenchmarkSoakLSP samples it
// (the time is a whole session's: new, prompt, close, less the fake
// model's). With every session closed, nothing should stay: the server is
// then left idle for 95 s (not with -short) and sampled once more, and its
// goroutines are dumped and compared with those of a server that ran one
// session.
//
// Metrics: {rss,heap,fds,threads,time,cpu}-growth, the last sample over
// the one after 10 sessions (4 with -short); settled-{rss,fds,threads}-growth,
// the idle server's over the same; goroutines and control-goroutines.
func BenchmarkSoakACP(b *testing.B) {
	requireSoak(b)
	plan := acpSoakPlan()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	root := tempRoot(b)
	writeFiles(b, root, smallWorkspace())

	samples, settled, soakDump := runACPSoak(ctx, b, root, plan)
	_, _, controlDump := runACPSoak(ctx, b, root, soakPlan{units: 1, sampleEvery: 1})

	var rep soakReport
	rep.printf("ACP soak: %d sessions opened, prompted once (2 tool calls) and closed\n\n%s\n", plan.units, soakTable("sessions", samples))
	reportGrowth(b, &rep, samples, 2)
	if settled != nil {
		reportSettled(b, &rep, *settled, samples[2], plan.settle)
	}
	b.ReportMetric(float64(soakDump.total), "goroutines")
	b.ReportMetric(float64(controlDump.total), "control-goroutines")
	rep.printf("goroutines after %d sessions: %d; after 1 session in a fresh server: %d%s\n", plan.units, soakDump.total, controlDump.total, grownText(soakDump, controlDump))
	rep.write(b, "acp")
}

// BenchmarkSoakACPLeftOpen is BenchmarkSoakACP with no session closed:
// a client that keeps every thread's session (Zed's archived threads),
// 200 sessions each prompted once, sampled every 20. Each session has a
// build of its own; past the few idle ones kept built, the least
// recently used are parked (internal/acp, park.go), so the server
// should stay flat however many the client leaves open.
//
// Metrics: {rss,heap,fds,threads,time,cpu}-growth, the last sample over
// the one after 40 sessions (8 with -short).
func BenchmarkSoakACPLeftOpen(b *testing.B) {
	requireSoak(b)
	plan := acpLeftOpenPlan()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	root := tempRoot(b)
	writeFiles(b, root, smallWorkspace())

	samples, _, _ := runACPSoak(ctx, b, root, plan)
	var rep soakReport
	rep.printf("ACP soak, sessions left open: %d sessions opened and prompted once (2 tool calls), none closed\n\n%s\n", plan.units, soakTable("sessions", samples))
	reportGrowth(b, &rep, samples, 2)
	rep.write(b, "acp-left-open")
}

// acpSoak is one ACP server and its client.
type acpSoak struct {
	soakProcess
	client *acptest.Client
	model  *soakModel
	root   string
}

// session opens a session, prompts it once (prompt i) and closes it
// unless leaveOpen, and returns its wall time less the fake model's.
func (s *acpSoak) session(ctx context.Context, i int, leaveOpen bool) (time.Duration, error) {
	s.model.push(soakTurn(i)...)
	spentBefore, callsBefore := s.model.Spent()
	start := time.Now()
	res, err := s.client.Conn.NewSession(ctx, sdk.NewSessionRequest{Cwd: s.root, McpServers: []sdk.McpServer{}})
	if err != nil {
		return 0, fmt.Errorf("session %d: session/new: %w", i, err)
	}
	answer, err := s.client.Conn.Prompt(ctx, sdk.PromptRequest{SessionId: res.SessionId,
		Prompt: []sdk.ContentBlock{sdk.TextBlock(fmt.Sprintf("Where are the handlers of batch %d?", i))}})
	if err != nil {
		return 0, fmt.Errorf("session %d: session/prompt: %w", i, err)
	}
	if answer.StopReason != sdk.StopReasonEndTurn {
		return 0, fmt.Errorf("session %d: the prompt stopped %q", i, answer.StopReason)
	}
	if !leaveOpen { // else the client keeps it
		if _, err := s.client.Conn.CloseSession(ctx, sdk.CloseSessionRequest{SessionId: res.SessionId}); err != nil {
			return 0, fmt.Errorf("session %d: session/close: %w", i, err)
		}
	}

	took := time.Since(start)
	if left := s.model.remaining(); left != 0 {
		return 0, fmt.Errorf("session %d ended with %d scripted model turns unused", i, left)
	}
	spent, err := s.model.WaitSpent(ctx, callsBefore+soakRequests)
	if err != nil {
		return 0, err
	}
	if err := s.callsCompleted(res.SessionId, 2); err != nil {
		return 0, fmt.Errorf("session %d: %w", i, err)
	}
	return took - (spent - spentBefore), nil
}

// callsCompleted checks that want tool calls of session completed.
func (s *acpSoak) callsCompleted(session sdk.SessionId, want int) error {
	done := 0
	for _, n := range s.client.Updates() {
		if u := n.Update.ToolCallUpdate; n.SessionId == session && u != nil && u.Status != nil {
			if *u.Status == sdk.ToolCallStatusFailed {
				return fmt.Errorf("a tool call failed: %+v", u)
			}
			if *u.Status == sdk.ToolCallStatusCompleted {
				done++
			}
		}
	}
	if done != want {
		return fmt.Errorf("%d tool calls completed, want %d", done, want)
	}
	return nil
}

// runACPSoak opens, prompts and closes plan's sessions in one server and
// returns its samples (the first right after initialize) and its
// goroutines at the end.
func runACPSoak(ctx context.Context, b *testing.B, root string, plan soakPlan) ([]soakSample, *soakSample, goroutineDump) {
	model := newSoakModel(b)
	p := startSoakProcess(b, model.URL, "acp")
	s := &acpSoak{soakProcess: p, model: model, root: root,
		client: acptest.New(b, p.proc, p.proc, acptest.Config{Trust: func(sdk.RequestPermissionRequest) acptest.Answer { return acptest.TrustFolder }})}
	if _, err := s.client.Initialize(ctx); err != nil {
		b.Fatalf("initialize: %v", err)
	}
	smp, err := newSampler(p)
	if err != nil {
		b.Fatal(err)
	}
	first, err := smp.take(0, 0, nil)
	if err != nil {
		b.Fatal(err)
	}
	samples := []soakSample{first}
	var times []time.Duration
	for i := range plan.units {
		took, err := s.session(ctx, i, plan.leaveOpen)
		if err != nil {
			b.Fatal(err)
		}
		times = append(times, took)
		if (i+1)%plan.sampleEvery == 0 {
			sample, err := smp.take(i+1, i+1, times)
			if err != nil {
				b.Fatal(err)
			}
			samples = append(samples, sample)
			times = times[:0]
		}
	}
	var settled *soakSample
	if plan.settle > 0 {
		select {
		case <-time.After(plan.settle):
		case <-ctx.Done():
			b.Fatalf("waiting for the server to settle: %v", ctx.Err())
		}
		sample, err := smp.take(plan.units, plan.units, nil)
		if err != nil {
			b.Fatal(err)
		}
		settled = &sample
	}
	dump, err := s.dumpGoroutines(ctx)
	if err != nil {
		b.Fatal(err)
	}
	return samples, settled, dump
}

// reportSettled reports the server left idle for settle after its last
// session against the sample at base: RSS, fds and threads (the times
// have nothing to measure).
func reportSettled(b *testing.B, rep *soakReport, settled, base soakSample, settle time.Duration) {
	rep.printf("after %v idle: %s\n", settle, strings.TrimPrefix(soakTable("sessions", []soakSample{settled}), soakTable("sessions", nil)))
	verdicts := ""
	for _, f := range []struct {
		name      string
		now, then int64
	}{{"rss", settled.rss, base.rss}, {"fds", int64(settled.fds), int64(base.fds)}, {"threads", int64(settled.threads), int64(base.threads)}} {
		g := float64(f.now) / float64(f.then)
		b.ReportMetric(g, "settled-"+f.name+"-growth")
		verdicts += fmt.Sprintf(" %s %.2f (%s);", f.name, g, flatWithin(g))
	}
	rep.printf("settled / sample at %d:%s\n", base.done, verdicts)
	if grown := grownFiles(settled.files, base.files); len(grown) > 0 {
		rep.printf("open files since the sample at %d: %s\n", base.done, strings.Join(grown, ", "))
	}
}
