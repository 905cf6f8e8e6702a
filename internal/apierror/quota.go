package apierror

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"google.golang.org/genai"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
)

// MaxServerDelay is the longest server-given wait still worth waiting
// (Gemini CLI's MAX_RETRYABLE_DELAY_SECONDS); a longer one is a quota that
// is used up.
const MaxServerDelay = 5 * time.Minute

// limitZero matches "limit: 0" (and not "limit: 0.5" or "limit: 05"): a
// quota this project does not have at all.
var limitZero = lazyregexp.New(`(?i)limit:\s*0(?:$|[^0-9.]|\.(?:$|[^0-9]))`)

// QuotaExhausted reports whether a 429/499/503 says the quota is used up
// for long, as Gemini CLI's classifyGoogleError reads it
// (TerminalQuotaError): retrying is pointless.
func QuotaExhausted(apiErr genai.APIError) bool {
	if limitZero.MatchString(apiErr.Message) {
		return true
	}
	// Gemini CLI's Pro quota message ("Quota exceeded for quota metric
	// 'Gemini 2.5 Pro Requests'").
	if strings.Contains(apiErr.Message, "Quota exceeded for quota metric 'Gemini") && strings.Contains(apiErr.Message, "Pro Requests'") {
		return true
	}
	for _, d := range apiErr.Details {
		typ, _ := d["@type"].(string)
		switch {
		case strings.HasSuffix(typ, "google.rpc.QuotaFailure"):
			violations, _ := d["violations"].([]any)
			for _, v := range violations {
				m, _ := v.(map[string]any)
				id, _ := m["quotaId"].(string)
				if strings.Contains(id, "PerDay") || strings.Contains(id, "Daily") {
					return true
				}
			}
		case strings.HasSuffix(typ, "google.rpc.ErrorInfo"):
			switch reason, _ := d["reason"].(string); reason {
			case "QUOTA_EXHAUSTED", "INSUFFICIENT_G1_CREDITS_BALANCE":
				return true
			}
		}
	}
	if d, ok := RetryDelay(apiErr); ok && d > MaxServerDelay {
		return true
	}
	return false
}

// retryInMessage matches Gemini's "Please retry in 12.5s." hint.
var retryInMessage = lazyregexp.New(`(?i)retry (?:in|after) ([0-9]+(?:\.[0-9]+)?)\s*(ms|s)\b`)

// RetryDelay is how long the server asked us to wait, on any status: a
// RetryInfo retryDelay in the error details (where the transport also puts
// a Retry-After header), else a "retry in" hint in the message.
func RetryDelay(err error) (time.Duration, bool) {
	var apiErr genai.APIError
	if !errors.As(err, &apiErr) {
		return 0, false
	}
	for _, d := range apiErr.Details {
		typ, _ := d["@type"].(string)
		if !strings.HasSuffix(typ, "google.rpc.RetryInfo") {
			continue
		}
		if s, ok := d["retryDelay"].(string); ok {
			if v, err := time.ParseDuration(s); err == nil && v >= 0 {
				return v, true
			}
		}
	}
	if m := retryInMessage.FindStringSubmatch(apiErr.Message); m != nil {
		v, err := strconv.ParseFloat(m[1], 64)
		if err == nil {
			unit := time.Second
			if strings.EqualFold(m[2], "ms") {
				unit = time.Millisecond
			}
			return time.Duration(v * float64(unit)), true
		}
	}
	return 0, false
}
