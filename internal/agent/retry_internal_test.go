package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/dialog"
)

// classify reads errors as Gemini CLI's classifyGoogleError and
// isRetryableError do.
func TestClassify(t *testing.T) {
	quotaFailure := func(id string) map[string]any {
		return map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{"quotaId": id}}}
	}
	errorInfo := func(reason string) map[string]any {
		return map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": "cloudcode-pa.googleapis.com"}
	}
	retryInfo := func(d string) map[string]any {
		return map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": d}
	}
	for _, tc := range []struct {
		name string
		err  error
		want failure
	}{
		{"429", genai.APIError{Code: 429, Message: "slow down"}, failTransient},
		{"499", genai.APIError{Code: 499}, failTransient},
		{"500", genai.APIError{Code: 500}, failTransient},
		{"503", genai.APIError{Code: 503}, failTransient},
		{"400", genai.APIError{Code: 400}, failFinal},
		{"404", genai.APIError{Code: 404}, failFinal},
		{"per-minute quota", genai.APIError{Code: 429, Details: []map[string]any{quotaFailure("GenerateRequestsPerMinutePerProjectPerModel")}}, failTransient},
		{"daily quota", genai.APIError{Code: 429, Details: []map[string]any{quotaFailure("GenerateRequestsPerDayPerProjectPerModel-FreeTier")}}, failQuota},
		{"Daily quota id", genai.APIError{Code: 429, Details: []map[string]any{quotaFailure("DailyRequests")}}, failQuota},
		{"limit 0", genai.APIError{Code: 429, Message: "Quota exceeded for metric: x, limit: 0, model: gemini-2.5-pro"}, failQuota},
		{"limit 0 at the end", genai.APIError{Code: 429, Message: "quota exceeded, limit: 0."}, failQuota},
		{"limit 0.5", genai.APIError{Code: 429, Message: "limit: 0.5 per second"}, failTransient},
		{"limit 05", genai.APIError{Code: 429, Message: "limit: 05"}, failTransient},
		{"Pro quota message", genai.APIError{Code: 429, Message: "Quota exceeded for quota metric 'Gemini 2.5 Pro Requests' and limit 'Gemini 2.5 Pro Requests per day'"}, failQuota},
		{"Code Assist quota exhausted", genai.APIError{Code: 429, Details: []map[string]any{errorInfo("QUOTA_EXHAUSTED")}}, failQuota},
		{"Code Assist rate limit", genai.APIError{Code: 429, Details: []map[string]any{errorInfo("RATE_LIMIT_EXCEEDED"), retryInfo("10s")}}, failTransient},
		{"wait of 6 minutes", genai.APIError{Code: 429, Details: []map[string]any{retryInfo("360s")}}, failQuota},
		{"wait of 5 minutes", genai.APIError{Code: 429, Details: []map[string]any{retryInfo("300s")}}, failTransient},
		{"wrapped", fmt.Errorf("calling: %w", genai.APIError{Code: 503}), failTransient},
		{"unexpected EOF", fmt.Errorf("reading: %w", io.ErrUnexpectedEOF), failBroken},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, failBroken},
		{"torn chunk", fmt.Errorf("iterateResponseStream: %w", jsonSyntaxError()), failBroken},
		{"refused", dialError(syscall.ECONNREFUSED), failUnreachable},
		{"unknown host", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}}, failUnreachable},
		{"proxy refused", &url.Error{Op: "Post", URL: "https://x.example/v1", Err: &net.OpError{Op: "proxyconnect", Net: "tcp", Err: dialError(syscall.ECONNREFUSED)}}, failUnreachable},
		{"missing credentials", errors.New("no API key"), failFinal},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("%s: classify(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

// The backoff that paces rate limits and server errors (5 s doubling to
// 30 s, ten attempts: minutes) does not retry a connection that could not
// be made: only the chat request retries that, quickly and each time
// told. A broken connection and a 503 it still retries.
func TestBackoffLeavesUnreachableToTheChat(t *testing.T) {
	for _, tc := range []struct {
		name  string
		err   error
		retry bool
	}{
		{"refused", dialError(syscall.ECONNREFUSED), false},
		{"refused, as the client returns it", fmt.Errorf("doRequest: %w", &url.Error{Op: "Post", URL: "http://127.0.0.1:9/v1beta/models/m:generateContent", Err: dialError(syscall.ECONNREFUSED)}), false},
		{"refused, as retrying passes it on", unreachable(dialError(syscall.ECONNREFUSED)), false},
		{"no route", dialError(syscall.EHOSTUNREACH), false},
		{"unknown host", &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}}, false},
		{"proxy refused", &url.Error{Op: "Post", URL: "https://x.example/v1", Err: &net.OpError{Op: "proxyconnect", Net: "tcp", Err: dialError(syscall.ECONNREFUSED)}}, false},
		{"reset", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"503", genai.APIError{Code: 503}, true},
	} {
		b := newBackoff(dialog.RetryPolicy{Rand: func() float64 { return 0.5 }}) // no jitter
		wait, retry := b.next(tc.err)
		if retry != tc.retry || retry && wait != 5*time.Second {
			t.Errorf("%s: next(%v) = %v, %v; want a retry: %v", tc.name, tc.err, wait, retry, tc.retry)
		}
	}
}

// dialError is the transport's error when dialling 127.0.0.1:9 fails with errno.
func dialError(errno syscall.Errno) *net.OpError {
	return &net.OpError{Op: "dial", Net: "tcp", Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 9}, Err: os.NewSyscallError("connect", errno)}
}

// An *UnreachableError says where the request could not go, and why, in
// the system's words.
func TestUnreachableError(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"with the URL", fmt.Errorf("doRequest: %w", &url.Error{Op: "Post", URL: "http://127.0.0.1:9/v1beta/models/m:streamGenerateContent?alt=sse", Err: dialError(syscall.ECONNREFUSED)}),
			"could not connect to http://127.0.0.1:9: connection refused"},
		{"the address only", dialError(syscall.EHOSTUNREACH), "could not connect to 127.0.0.1:9: no route to host"},
		{"unknown host", &url.Error{Op: "Post", URL: "https://nowhere.invalid/v1", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}}},
			"could not connect to https://nowhere.invalid: lookup nowhere.invalid: no such host"},
		{"through a proxy", &url.Error{Op: "Post", URL: "https://x.example/v1", Err: &net.OpError{Op: "proxyconnect", Net: "tcp", Err: dialError(syscall.ECONNREFUSED)}},
			"could not connect to the proxy 127.0.0.1:9 (for https://x.example): connection refused"},
	} {
		down := unreachable(tc.err)
		if down == nil || down.Error() != tc.want || !errors.Is(down, tc.err) {
			t.Errorf("%s: unreachable(%v) = %v, want %q wrapping the error", tc.name, tc.err, down, tc.want)
		}
	}
	if down := unreachable(&net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}); down != nil {
		t.Errorf("a connection reset is unreachable: %v", down)
	}
}

func jsonSyntaxError() error {
	var v any
	return json.Unmarshal([]byte(`{"candidates": [`), &v)
}

// The attempts' retry decisions need no turn: the policy and the
// fallback offer are passed in. Rate limits that persist offer another
// model once, unless a hook chose the model; a fallback taken starts the
// attempts afresh.
func TestStreamRetriesOnTheirOwn(t *testing.T) {
	limited := genai.APIError{Code: 429, Status: "RESOURCE_EXHAUSTED"}
	policy := dialog.RetryPolicy{Rand: func() float64 { return 0.5 }}
	var offered []string
	take := true
	r := &streamRetries{policy: policy, backoff: newBackoff(policy), fallBack: func(model, why string, _ error) (bool, error) {
		offered = append(offered, model)
		return take, nil
	}}
	if step, wait, _ := r.afterFailure("pro", false, limited); step != retryAfterWait || wait <= 0 {
		t.Fatalf("the first 429: step %v, wait %v; want a wait", step, wait)
	}
	if step, _, _ := r.afterFailure("pro", false, limited); step != retrySwitched || len(offered) != 1 {
		t.Fatalf("the second 429 in a row: step %v, offered %v; want the fallback taken", step, offered)
	}
	if r.rateLimited != 0 || !r.offered {
		t.Errorf("after the switch: rateLimited %d, offered %v; want counted afresh, offered once", r.rateLimited, r.offered)
	}

	offered = nil
	hooked := &streamRetries{policy: policy, backoff: newBackoff(policy), fallBack: r.fallBack}
	for range 3 {
		if step, _, _ := hooked.afterFailure("pro", true, limited); step != retryAfterWait {
			t.Fatalf("a hook's model rate-limited: step %v, want a wait", step)
		}
	}
	if len(offered) != 0 {
		t.Errorf("offered %v for a model a hook chose", offered)
	}
}
