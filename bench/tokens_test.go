package bench

import (
	"encoding/json"
	"math"
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

// What an explicit cache (the Gemini API's cachedContents) costs to keep:
// storageRate is a token kept an hour, in input tokens at the full rate
// (Gemini 2.5 Pro's published $4.50 per million tokens an hour against
// its $1.25 per million of input; 2.5 Flash's $1.00 against $0.30 is
// 3.3), and cacheTTLHours the API's default time to live, an hour.
const (
	storageRate   = 3.6
	cacheTTLHours = 1.0
)

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
	// Repeats is the part of the previous request to the same model that
	// this one begins with, byte for byte: 1 when it only appended to it
	// (0 for a model's first request).
	Repeats float64
	// Agent: a request of the agent's loop (streamed), not a utility
	// call (the router, the loop check, compression).
	Agent bool
	// System, Tools and Contents are the request's parts in tokens
	// (characters / 4 of each as the model reads it), for the report.
	System, Tools, Contents float64
	// Turns is the number of contents.
	Turns int
	// Fixed is the share of the request that is its system instruction
	// and tools, what an explicit cache would hold, and fixedKey those
	// bytes, to tell when they change.
	Fixed    float64
	fixedKey string
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
		repeats := 0.0
		for i := len(seen) - 1; i >= 0; i-- {
			if prev := seen[i]; prev.model == r.Model {
				repeats = float64(commonPrefix(order.bytes, prev.bytes)) / float64(max(len(prev.bytes), 1))
				break
			}
		}
		bill = append(bill, requestCost{Model: r.Model, Tokens: float64(len(r.Body)) / 4, Share: order.shareWith(seen), First: first,
			Repeats: repeats, Agent: r.Method == "streamGenerateContent",
			System: jsonTokens(r.SystemInstruction), Tools: jsonTokens(r.Tools), Contents: jsonTokens(r.Contents), Turns: len(r.Contents),
			Fixed: float64(order.fixed) / float64(max(len(order.bytes), 1)), fixedKey: string(order.bytes[:order.fixed])})
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
	// fixed is how many of bytes are the system instruction and tools.
	fixed int
}

func modelOrderOf(r geminitest.Request) modelOrder {
	var b []byte
	add := func(v any) {
		enc, _ := json.Marshal(v)
		b = append(b, enc...)
	}
	add(r.SystemInstruction)
	add(r.Tools)
	fixed := len(b)
	for _, c := range r.Contents {
		add(c)
	}
	return modelOrder{model: r.Model, bytes: b, fixed: fixed}
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

// ExplicitCost is the task's cost had each model's system instruction
// and tools been put in an explicit cache (cachedContents) by its first
// request and kept hours: the cache made at the full rate (as Vertex AI
// documents a cache's creation) and stored at storageRate, each request
// then billed that part at cachedRate and the rest as implicit caching
// bills it (the most explicit caching could give: the API may not serve
// both). A request whose system instruction or tools differ from its
// model's cache makes another.
func (b tokenBill) ExplicitCost(hours float64) float64 {
	sum := 0.0
	cached := map[string]string{} // model → the fixed part its cache holds
	for _, r := range b {
		fixed := r.Tokens * r.Fixed
		rest := r.Tokens - fixed
		restShare := 0.0
		if rest > 0 {
			restShare = max(0, r.Tokens*r.Share-fixed) / rest
		}
		sum += rest * (1 - (1-cachedRate)*restShare)
		if cached[r.Model] == r.fixedKey {
			sum += fixed * cachedRate
			continue
		}
		cached[r.Model] = r.fixedKey
		sum += fixed + fixed*storageRate*hours
	}
	return sum
}

// AgentRepeats are, sorted, the part of its previous request each of the
// agent's requests but its first begins with.
func (b tokenBill) AgentRepeats() []float64 {
	var out []float64
	for _, r := range b {
		if r.Agent && !r.First {
			out = append(out, r.Repeats)
		}
	}
	slices.Sort(out)
	return out
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
	if bill[1].Repeats != 1 || bill[0].Repeats != 0 || bill[2].Repeats != 0 {
		t.Errorf("repeats %v: the second request appends to the first whole; a model's first repeats nothing", bill)
	}
	if r := bill.AgentRepeats(); len(r) != 1 || r[0] != 1 {
		t.Errorf("agent repeats %v, want the second request's alone", r)
	}
	if changed := billOf([]geminitest.Request{first, request("pro", "system", "two")}); changed[1].Repeats >= 1 {
		t.Errorf("a request that changed the one before repeats %.3f of it", changed[1].Repeats)
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

// An explicit cache of the system instruction and tools bills them at
// the cached rate on every request of its model after the one that made
// it, as implicit caching already does for a request that repeats them,
// and adds its storage: with nothing else between them, it costs what
// implicit caching costs plus the hours kept. A request whose system
// instruction changed makes a second cache.
func TestExplicitCacheCostsImplicitsPlusItsStorage(t *testing.T) {
	first := request("pro", "system", "one")
	second := request("pro", "system", "one", "two")
	changed := request("pro", "another system", "one", "two", "three")
	bill := billOf([]geminitest.Request{first, second})
	if got, want := bill.ExplicitCost(0), bill.Cost(); math.Abs(got-want) > 1e-9 {
		t.Errorf("explicit cost kept no time = %.3f, want implicit's %.3f", got, want)
	}
	fixed := bill[0].Tokens * bill[0].Fixed
	if fixed <= 0 || fixed >= bill[0].Tokens {
		t.Fatalf("the first request's fixed part is %.1f of %.1f tokens", fixed, bill[0].Tokens)
	}
	if got, want := bill.ExplicitCost(2), bill.Cost()+fixed*storageRate*2; math.Abs(got-want) > 1e-9 {
		t.Errorf("explicit cost kept two hours = %.3f, want %.3f", got, want)
	}
	remade := billOf([]geminitest.Request{first, second, changed})
	twoCaches := fixed + remade[2].Tokens*remade[2].Fixed
	if got, want := remade.ExplicitCost(1)-remade.ExplicitCost(0), twoCaches*storageRate; math.Abs(got-want) > 1e-9 {
		t.Errorf("storage of an hour = %.3f, want two caches' %.3f", got, want)
	}
}
