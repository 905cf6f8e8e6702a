package bench

import (
	"encoding/json"
	"slices"
	"testing"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/agent/geminitest"
)

// cachedRate is what the Gemini API's implicit caching bills of input a
// request repeats from an earlier request of the session to the same
// model: a quarter of the full rate (docs/benchmarks.md, "What a session
// costs in tokens").
const cachedRate = 0.25

// requestCost is one model request's share of a task's bill.
type requestCost struct {
	Model string
	// Tokens is the request's raw input: its JSON body's characters / 4.
	Tokens float64
	// Share is the part of the request, in the model's order (system
	// instruction, tools, then the contents), that an earlier request of
	// the session to the same model began with: what the implicit cache
	// can serve.
	Share float64
	// First: no earlier request of the session went to its model, so
	// nothing could be cached for it.
	First bool
	// System, Tools and Contents are the request's parts in tokens
	// (characters / 4 of each as the model reads it), for the report.
	System, Tools, Contents float64
	// Turns is the number of contents.
	Turns int
}

// Billed is the request's input with the repeated part at cachedRate.
func (r requestCost) Billed() float64 { return r.Tokens * (1 - (1-cachedRate)*r.Share) }

// tokenBill is what a task's requests cost, in order.
type tokenBill []requestCost

// billOf measures the generate requests of reqs (a count of tokens asks
// no answer and is not billed as input).
func billOf(reqs []geminitest.Request) tokenBill {
	var bill tokenBill
	var seen []modelOrder
	for _, r := range reqs {
		if r.Method != "generateContent" && r.Method != "streamGenerateContent" {
			continue
		}
		order := modelOrderOf(r)
		first := !slices.ContainsFunc(seen, func(o modelOrder) bool { return o.model == r.Model })
		bill = append(bill, requestCost{Model: r.Model, Tokens: float64(len(r.Body)) / 4, Share: order.shareWith(seen), First: first,
			System: jsonTokens(r.SystemInstruction), Tools: jsonTokens(r.Tools), Contents: jsonTokens(r.Contents), Turns: len(r.Contents)})
		seen = append(seen, order)
	}
	return bill
}

// modelOrder is a request as the model reads it: the system instruction,
// the tools, then each content, encoded alike whichever client sent it,
// so that two clients' field orders do not count.
type modelOrder struct {
	model string
	bytes []byte
}

func modelOrderOf(r geminitest.Request) modelOrder {
	var b []byte
	add := func(v any) {
		enc, _ := json.Marshal(v)
		b = append(b, enc...)
	}
	add(r.SystemInstruction)
	add(r.Tools)
	for _, c := range r.Contents {
		add(c)
	}
	return modelOrder{model: r.Model, bytes: b}
}

// shareWith is the longest start o has in common with an earlier request
// to its model, as a share of o.
func (o modelOrder) shareWith(earlier []modelOrder) float64 {
	if len(o.bytes) == 0 {
		return 0
	}
	longest := 0
	for _, e := range earlier {
		if e.model == o.model {
			longest = max(longest, commonPrefix(o.bytes, e.bytes))
		}
	}
	return float64(longest) / float64(len(o.bytes))
}

// jsonTokens is v's JSON in characters / 4.
func jsonTokens(v any) float64 {
	enc, _ := json.Marshal(v)
	return float64(len(enc)) / 4
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// Input is the task's raw input tokens, every request's.
func (b tokenBill) Input() float64 {
	sum := 0.0
	for _, r := range b {
		sum += r.Tokens
	}
	return sum
}

// Cost is the task's input tokens with the cache counted.
func (b tokenBill) Cost() float64 {
	sum := 0.0
	for _, r := range b {
		sum += r.Billed()
	}
	return sum
}

// Shares are the requests' cached-prefix shares, sorted, but for each
// model's first request, which nothing could be cached for.
func (b tokenBill) Shares() []float64 {
	var out []float64
	for _, r := range b {
		if !r.First {
			out = append(out, r.Share)
		}
	}
	slices.Sort(out)
	return out
}

func request(model, system string, contents ...string) geminitest.Request {
	r := geminitest.Request{Method: "streamGenerateContent", Model: model, SystemInstruction: genai.NewContentFromText(system, genai.RoleUser)}
	for _, c := range contents {
		r.Contents = append(r.Contents, genai.NewContentFromText(c, genai.RoleUser))
	}
	r.Body, _ = json.Marshal(r.Contents)
	return r
}

// A request that repeats the one before and adds a turn is billed the
// repeated part at a quarter; a request to another model shares nothing
// (each model has its own cache); a count of tokens is no request.
func TestBillCountsTheRepeatedPrefix(t *testing.T) {
	first := request("pro", "system", "one")
	second := request("pro", "system", "one", "two")
	router := request("flash", "system", "one", "two")
	count := request("pro", "system", "one")
	count.Method = "countTokens"
	bill := billOf([]geminitest.Request{first, second, router, count})
	if len(bill) != 3 {
		t.Fatalf("%d requests billed, want 3 (no countTokens)", len(bill))
	}
	if bill[0].Share != 0 || bill[2].Share != 0 || !bill[0].First || bill[1].First || !bill[2].First {
		t.Errorf("shares %v: the first request and another model's share nothing", bill)
	}
	if s := bill.Shares(); len(s) != 1 || s[0] != bill[1].Share {
		t.Errorf("shares %v, want the second request's alone: each model's first is left out", s)
	}
	secondOrder := modelOrderOf(second)
	want := float64(len(modelOrderOf(first).bytes)) / float64(len(secondOrder.bytes)) // the whole first request
	if bill[1].Share != want {
		t.Errorf("the second request's share = %.3f, want about %.3f", bill[1].Share, want)
	}
	if got, wantCost := bill[1].Billed(), bill[1].Tokens*(1-0.75*bill[1].Share); got != wantCost {
		t.Errorf("billed %.1f, want %.1f", got, wantCost)
	}
	if bill.Input() != bill[0].Tokens+bill[1].Tokens+bill[2].Tokens || bill.Cost() >= bill.Input() {
		t.Errorf("input %.1f, cost %.1f", bill.Input(), bill.Cost())
	}
}

// The cached part of a request is what it repeats of ANY earlier request
// of the session to its model, not only the one just before: a request
// that goes back to a long history after a short detour (another
// prompt's short request, a utility call between) is billed its repeat
// of the long one at a quarter.
func TestBillCountsTheRepeatOfAnyEarlierRequest(t *testing.T) {
	long := request("pro", "system", "one", "two", "three")
	detour := request("pro", "system", "other")
	router := request("flash", "router", "one")
	back := request("pro", "system", "one", "two", "three", "four")
	routerAgain := request("flash", "router", "one", "two")
	bill := billOf([]geminitest.Request{long, detour, router, back, routerAgain})
	want := float64(len(modelOrderOf(long).bytes)) / float64(len(modelOrderOf(back).bytes))
	if bill[3].Share != want {
		t.Errorf("the request back to the long history repeats %.3f of it, want %.3f (all of the long request)", bill[3].Share, want)
	}
	if bill[1].Share >= bill[3].Share || bill[1].Share == 0 {
		t.Errorf("the detour's share %.3f: it repeats the system instruction alone", bill[1].Share)
	}
	routerWant := float64(len(modelOrderOf(router).bytes)) / float64(len(modelOrderOf(routerAgain).bytes))
	if bill[4].Share != routerWant {
		t.Errorf("the second utility call repeats %.3f of the first, want %.3f: a utility model's prefix is its own", bill[4].Share, routerWant)
	}
	if got, want := bill.Cost(), bill[0].Tokens+bill[1].Billed()+bill[2].Tokens+bill[3].Tokens*(1-0.75*want)+bill[4].Billed(); got != want {
		t.Errorf("cost %.2f, want %.2f", got, want)
	}
}
