package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"google.golang.org/genai"
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
		{"missing credentials", errors.New("no API key"), failFinal},
	} {
		if got := classify(tc.err); got != tc.want {
			t.Errorf("%s: classify(%v) = %d, want %d", tc.name, tc.err, got, tc.want)
		}
	}
}

func jsonSyntaxError() error {
	var v any
	return json.Unmarshal([]byte(`{"candidates": [`), &v)
}
