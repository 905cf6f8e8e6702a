package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
	"github.com/gemini-ls/gemini-ls/internal/completion"
)

// abortBudget is the bound on the time from the superseding
// message to the upstream request's end.
const abortBudget = 10 * time.Millisecond

// crossing is how soon after the didChange that outdated it a stale
// answer is read for it to count as having crossed that didChange on the
// wire: written by the server before it could read the change.
const crossing = time.Millisecond

// clientDebounce is how long the editor waits after a key before it asks
// for a completion: VS Code's InlineCompletionsSource debounce (its
// 'InlineCompletionsDebounce', 50 ms).
const clientDebounce = 50 * time.Millisecond

// editorModel is how the replaying editor asks.
type editorModel struct {
	name string
	// cancel: on each key, the request in flight is cancelled with
	// $/cancelRequest (VS Code cancels its previous fetch's token as a
	// new fetch starts, and vscode-languageclient sends the cancel).
	// Without it, only the next request supersedes it, server-side.
	cancel bool
	// quiet: no completion request at all, the keys' didChanges only:
	// what typing alone adds to the server's RSS.
	quiet bool
}

var editorModels = []editorModel{
	{name: "vscode", cancel: true},
	{name: "no-cancel", cancel: false},
	{name: "typing-only", quiet: true},
}

// sentRequest is one inlineCompletion request of the replay.
type sentRequest struct {
	id      int64
	version int
	typed   string // what the document held after "// Typed here." then
	sent    time.Time
	// superseded is when the editor sent what ends the request: its
	// $/cancelRequest, or the next request; zero when nothing did.
	superseded time.Time
	// supersededBy is the request that did, when it was not a cancel.
	supersededBy *sentRequest

	replied bool
	reply   reply
	items   int
	stale   bool // items for a version no longer current when read
}

// replayResult is what one replay measured.
type replayResult struct {
	keys, requests, modelCalls        int
	answered, cancelled, empty, stale int
	fromCache                         int
	aborts                            []time.Duration // superseding message sent → fake saw the close
	notAborted, abortedUnsuperseded   int
	raced                             int      // answered within abortBudget of being superseded
	slowAborts                        []string // those aborted later than abortBudget
	unmapped                          int
	rssBefore, rssAfter, rssPeak      int64
	problems                          []string
	crossed                           int // stale answers read within crossing of the outdating didChange
}

// BenchmarkTypingReplay (REPLAY_SERVER_DEBOUNCE_MS sets the server's
// inlineCompletion.debounceMs, 50 by default, in the user's settings)
// replays a typing session of 330 keys (typos and
// their backspaces included) at human speed (session_test.go, seed
// sessionSeed) into the 10,000-line file, against the real server and the
// fake model answering after its fixed latency, as an editor with VS
// Code's own debounce: each key is a didChange at once; 50 ms after the
// last key, an Automatic inlineCompletion at the cursor. Two editors:
//   - editor=vscode: a key also cancels the request in flight with
//     $/cancelRequest, as VS Code does;
//   - editor=no-cancel: nothing is cancelled; the next request supersedes
//     the one before it at the server.
//
// The fake model foresees three lines in four (the rest of the line being
// typed), and the user types on whatever is shown, so the typing-through
// cache can answer the keys that follow a shown suggestion.
//
// Metrics, per replay (means over the iterations):
//   - calls/100keys: model requests the fake received per 100 keys.
//   - stale: answers with an item for a document version that was no
//     longer the editor's when the answer was read. stale-crossed: of
//     them, those read within 1 ms of the didChange that outdated them,
//     which crossed it on the wire (the server answered before it could
//     read the change; an editor drops them by their version or its
//     cancelled request). The benchmark fails on any other.
//   - from-cache, cache-%-of-requests: requests answered with an item and
//     no model request of their own, and their share of all requests
//     sent. A model request is the request's whose text its prompt shows
//     (what follows "// Typed here."), the latest such sent before it
//     arrived.
//   - superseded-upstream, abort-{p50,max}-ms, aborts-over-10ms: each
//     model request still open when the editor superseded its request
//     ($/cancelRequest, or the next request), from that message's write
//     to the fake seeing the connection close (geminitest's Aborts, or
//     the end of a request body the client stopped sending).
//     answered-before-abort-budget: answered within 10 ms of being
//     superseded, before it could be aborted; not-aborted: answered to
//     the end later than that (must be 0; the benchmark fails otherwise).
//   - rss-added-MB: the server's VmRSS after the replay (every answer
//     read, the fake idle) minus before its first key; rss-peak-MB its
//     VmHWM then.
func BenchmarkTypingReplay(b *testing.B) {
	for _, em := range editorModels {
		b.Run("editor="+em.name, func(b *testing.B) {
			var results []replayResult
			for b.Loop() {
				r, err := replay(b, em)
				if err != nil {
					b.Fatal(err)
				}
				results = append(results, r)
			}
			reportReplay(b, results)
		})
	}
}

func replay(b *testing.B, em editorModel) (replayResult, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	latency := modelLatency(b)
	predictable := predictableLines(sessionSeed, sessionTarget)
	model := newCompletionModel(b, func(prompt string) geminitest.Turn {
		typed, ok := typedIn(prompt)
		answer := ""
		if ok {
			answer = foresee(typed, sessionTarget, predictable)
		}
		t := geminitest.TextTurn(answer)
		t.Delay = latency
		return t
	})
	text, _ := bigGoFile()
	root := tempRoot(b)
	files := relatedBuffers()
	files["big.go"] = text
	writeFiles(b, root, files)
	settingsJSON := ""
	if d := os.Getenv("REPLAY_SERVER_DEBOUNCE_MS"); d != "" {
		// The server's debounce, in the user's settings (a workspace's
		// apply only in a trusted folder).
		settingsJSON = `{"inlineCompletion": {"debounceMs": ` + d + `}}`
	}
	e, s := startTypistWith(ctx, b, model.URL, root, files, settingsJSON)
	big := filepath.Join(root, "big.go")
	pid := s.proc.Cmd.Process.Pid
	// The server has taken in the buffers once it answers a request.
	if err := e.call(ctx, "gemini/authStatus", map[string]any{}, nil); err != nil {
		return replayResult{}, err
	}
	var res replayResult
	var err error
	if res.rssBefore, err = currentRSS(pid); err != nil {
		return res, err
	}

	keys := typingSession(sessionSeed, sessionTarget)
	var (
		mu      sync.Mutex
		version = 1
		typed   string
		reqs    []*sentRequest
		answers []<-chan reply
		// changeSent is when the didChange making each version was sent.
		changeSent = map[int]time.Time{}
		byID       = map[int64]*sentRequest{}
	)
	e.mu.Lock()
	e.onReply = func(id int64, r reply) {
		mu.Lock()
		defer mu.Unlock()
		q, ok := byID[id]
		if !ok {
			return
		}
		q.replied, q.reply = true, r
		if r.Error == nil {
			var got inlineItems
			if json.Unmarshal(r.Result, &got) == nil {
				q.items = len(got.Items)
			}
			q.stale = q.items > 0 && q.version != version
		}
	}
	e.mu.Unlock()

	line := typeAt + 1
	col := 0 // UTF-16 units; the session is ASCII
	start := time.Now()
	var last *sentRequest
	for i, k := range keys {
		time.Sleep(time.Until(start.Add(k.At)))
		mu.Lock()
		var change map[string]any
		if k.Del > 0 {
			change = map[string]any{"range": lspRange(line, col-k.Del, line, col), "text": ""}
			col -= k.Del
			typed = typed[:len(typed)-k.Del]
		} else {
			change = map[string]any{"range": lspRange(line, col, line, col), "text": k.Text}
			typed += k.Text
			if nl := strings.LastIndexByte(k.Text, '\n'); nl >= 0 {
				line += strings.Count(k.Text, "\n")
				col = len(k.Text) - nl - 1
			} else {
				col += len(k.Text)
			}
		}
		version++
		v := version
		pending := last != nil && !last.replied && last.superseded.IsZero()
		mu.Unlock()
		changed, err := e.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": fileURI(big), "version": v},
			"contentChanges": []map[string]any{change},
		})
		if err != nil {
			return res, err
		}
		mu.Lock()
		changeSent[v] = changed
		mu.Unlock()
		if em.cancel && pending {
			at, err := e.cancel(last.id)
			if err != nil {
				return res, err
			}
			mu.Lock()
			last.superseded = at
			mu.Unlock()
		}
		askAt := start.Add(k.At + clientDebounce)
		if em.quiet {
			continue
		}
		if i+1 < len(keys) && !start.Add(keys[i+1].At).After(askAt) {
			continue // the next key comes first: this one is never asked about
		}
		time.Sleep(time.Until(askAt))
		mu.Lock()
		q := &sentRequest{version: version, typed: typed}
		mu.Unlock()
		_, sent, ch, err := e.sendAs("textDocument/inlineCompletion", inlineParams(big, line, col, int(completion.Automatic)), func(id int64) {
			mu.Lock()
			q.id = id
			byID[id] = q
			mu.Unlock()
		})
		if err != nil {
			return res, err
		}
		answers = append(answers, ch)
		mu.Lock()
		q.sent = sent
		// Whether or not its answer was read meanwhile: the server may
		// have answered it (superseded) as soon as it read this one.
		if last != nil && last.superseded.IsZero() {
			last.superseded, last.supersededBy = sent, q
		}
		reqs = append(reqs, q)
		last = q
		mu.Unlock()
	}
	// Every request answered, every model request ended.
	for _, ch := range answers {
		if _, err := wait(ctx, "textDocument/inlineCompletion", ch); err != nil {
			return res, err
		}
	}
	calls, err := model.settled(ctx)
	if err != nil {
		return res, err
	}
	if res.rssAfter, err = currentRSS(pid); err != nil {
		return res, err
	}
	if rss, ok, err := peakRSS(pid); err == nil && ok {
		res.rssPeak = rss
	}
	if err := stopTypist(ctx, e, s); err != nil {
		return res, err
	}

	mu.Lock()
	defer mu.Unlock()
	res.keys, res.requests, res.modelCalls = len(keys), len(reqs), len(calls)
	// Each model request's LSP request.
	owner := map[int]*sentRequest{} // by the fake's Seq
	called := map[*sentRequest]int{}
	for _, c := range calls {
		var match *sentRequest
		for _, q := range reqs {
			// A request the fake could not read (the client went
			// away while sending it) is the latest one's before it.
			if (c.unread || q.typed == c.Typed) && !q.sent.After(c.Start) {
				match = q
			}
		}
		if (!c.TypedOK && !c.unread) || match == nil {
			res.unmapped++
			continue
		}
		owner[c.Seq] = match
		called[match]++
	}
	aborted := map[int]time.Time{}
	for _, a := range model.fake.Aborts() {
		aborted[a.Seq] = a.At
	}
	for _, c := range calls {
		q := owner[c.Seq]
		if q == nil {
			continue
		}
		at, wasAborted := aborted[c.Seq]
		if c.unread {
			// The client went away before its body was all sent.
			at, wasAborted = c.End, true
		}
		switch {
		case !q.superseded.IsZero() && c.End.After(q.superseded):
			// Open when the editor superseded its request.
			switch {
			case wasAborted:
				res.aborts = append(res.aborts, at.Sub(q.superseded))
				if d := at.Sub(q.superseded); d > abortBudget {
					res.slowAborts = append(res.slowAborts, fmt.Sprintf("model request %d (request %d, body unread %v): aborted %v after the editor superseded it", c.Seq, q.id, c.unread, d))
				}
			case c.End.Sub(q.superseded) <= abortBudget:
				// The answer went out before the budget for aborting
				// it was spent.
				res.raced++
			default:
				res.notAborted++
				by := "its $/cancelRequest"
				if n := q.supersededBy; n != nil {
					by = fmt.Sprintf("request %d (answered with %d items, %d model calls of its own)", n.id, n.items, called[n])
				}
				res.problem("model request %d (typed %q) answered to its end %v after request %d was superseded by %s", c.Seq, c.Typed, c.End.Sub(q.superseded), q.id, by)
			}
		case wasAborted:
			res.abortedUnsuperseded++
		}
	}
	for _, q := range reqs {
		switch {
		case q.reply.Error != nil && q.reply.Error.Code == codeRequestCancelled:
			res.cancelled++
		case q.reply.Error != nil:
			res.problem("request %d: %v", q.id, q.reply.Error)
		case q.items == 0:
			res.empty++
		default:
			res.answered++
			if called[q] == 0 {
				res.fromCache++
			}
		}
		if q.stale {
			res.stale++
			if q.reply.At.Sub(changeSent[q.version+1]) <= crossing {
				res.crossed++
			}
			res.problem("request %d (version %d, sent %v after its didChange) answered an item %v after it was sent, read %v after the didChange of version %d; model calls of its own: %d",
				q.id, q.version, q.sent.Sub(changeSent[q.version]), q.reply.At.Sub(q.sent), q.reply.At.Sub(changeSent[q.version+1]), q.version+1, called[q])
		}
	}
	return res, nil
}

// problem notes what went wrong, the first ten things.
func (r *replayResult) problem(format string, args ...any) {
	if len(r.problems) < 10 {
		r.problems = append(r.problems, fmt.Sprintf(format, args...))
	}
}

func reportReplay(b *testing.B, results []replayResult) {
	var keys, reqs, calls, answered, cancelled, empty, stale, cache, notAborted, unsuperseded, unmapped, raced int
	var aborts []time.Duration
	var added, peak []int64
	slow, crossed := 0, 0
	for _, r := range results {
		keys += r.keys
		reqs += r.requests
		calls += r.modelCalls
		answered += r.answered
		cancelled += r.cancelled
		empty += r.empty
		stale += r.stale
		cache += r.fromCache
		notAborted += r.notAborted
		unsuperseded += r.abortedUnsuperseded
		unmapped += r.unmapped
		raced += r.raced
		aborts = append(aborts, r.aborts...)
		added = append(added, r.rssAfter-r.rssBefore)
		peak = append(peak, r.rssPeak)
		for _, p := range r.problems {
			b.Log(p)
		}
		for _, s := range r.slowAborts {
			b.Log(s)
		}
		slow += len(r.slowAborts)
		crossed += r.crossed
	}
	n := float64(len(results))
	b.ReportMetric(float64(keys)/n, "keys")
	b.ReportMetric(float64(reqs)/n, "requests")
	b.ReportMetric(float64(calls)/n, "model-calls")
	b.ReportMetric(100*float64(calls)/float64(keys), "calls/100keys")
	b.ReportMetric(float64(stale)/n, "stale")
	b.ReportMetric(float64(crossed)/n, "stale-crossed")
	b.ReportMetric(float64(answered)/n, "answered-with-item")
	b.ReportMetric(float64(empty)/n, "answered-empty")
	b.ReportMetric(float64(cancelled)/n, "answered-cancelled")
	b.ReportMetric(float64(cache)/n, "from-cache")
	b.ReportMetric(100*float64(cache)/float64(max(reqs, 1)), "cache-%-of-requests")
	b.ReportMetric(float64(len(aborts))/n, "superseded-upstream")
	b.ReportMetric(float64(notAborted)/n, "not-aborted")
	b.ReportMetric(float64(unsuperseded)/n, "aborted-unsuperseded")
	b.ReportMetric(float64(raced)/n, "answered-before-abort-budget")
	b.ReportMetric(float64(unmapped)/n, "unmapped-model-calls")
	if len(aborts) > 0 {
		d := distributionOf(aborts)
		b.ReportMetric(ms(d.median()), "abort-p50-ms")
		b.ReportMetric(ms(d.max()), "abort-max-ms")
	}
	b.ReportMetric(float64(slow)/n, "aborts-over-10ms")
	b.ReportMetric(mb(distributionOf(added).median()), "rss-added-MB")
	b.ReportMetric(mb(distributionOf(peak).max()), "rss-peak-MB")
	b.Logf("%d replays: %d keys, %d requests, %d model calls (%.1f per 100 keys), %d stale (%d crossed the next didChange), %d answered with an item (%d from the cache: %.0f%% of requests), %d empty, %d cancelled; %d superseded upstream requests aborted (p50 %.2f ms, max %.2f ms, %d over 10 ms), %d answered within the budget, %d not aborted; RSS added %.1f MiB (median)",
		len(results), keys, reqs, calls, 100*float64(calls)/float64(keys), stale, crossed,
		answered, cache, 100*float64(cache)/float64(max(reqs, 1)), empty, cancelled,
		len(aborts), ms(distributionOf(aborts).median()), ms(distributionOf(aborts).max()), slow, raced, notAborted,
		mb(distributionOf(added).median()))
	if stale > crossed {
		b.Errorf("%d stale suggestions, %d of them read more than %v after the didChange that outdated them", stale, stale-crossed, crossing)
	}
	if notAborted > 0 {
		b.Errorf("%d superseded model requests were not aborted", notAborted)
	}
}
