package geminitest

import (
	"fmt"
	"time"
)

// The error answers below are the Gemini API's own, body for body, as it
// sends them (google.rpc.Status with its details): what a test needs to
// see the user told what to do, rather than the SDK's dump of them.

// errorInfo is a google.rpc.ErrorInfo detail of the Generative Language
// API.
func errorInfo(reason string, metadata map[string]any) map[string]any {
	return map[string]any{
		"@type":    "type.googleapis.com/google.rpc.ErrorInfo",
		"reason":   reason,
		"domain":   "googleapis.com",
		"metadata": metadata,
	}
}

// localized is a google.rpc.LocalizedMessage detail.
func localized(msg string) map[string]any {
	return map[string]any{"@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US", "message": msg}
}

// InvalidAPIKey is the API's answer to a key that is not one: 400
// INVALID_ARGUMENT, reason API_KEY_INVALID.
func InvalidAPIKey() Turn {
	const msg = "API key not valid. Please pass a valid API key."
	return Turn{Err: &APIError{Code: 400, Status: "INVALID_ARGUMENT", Message: msg, Details: []map[string]any{
		errorInfo("API_KEY_INVALID", map[string]any{"service": "generativelanguage.googleapis.com"}),
		localized(msg),
	}}}
}

// ExpiredAPIKey is the API's answer to a key that expired: 400
// INVALID_ARGUMENT, reason API_KEY_EXPIRED.
func ExpiredAPIKey() Turn {
	const msg = "API key expired. Please renew the API key."
	return Turn{Err: &APIError{Code: 400, Status: "INVALID_ARGUMENT", Message: msg, Details: []map[string]any{
		errorInfo("API_KEY_EXPIRED", map[string]any{"service": "generativelanguage.googleapis.com"}),
		localized(msg),
	}}}
}

// ModelNotFound is the API's answer to a model it does not serve: 404
// NOT_FOUND, with its advice to call ListModels.
func ModelNotFound(model string) Turn {
	return Turn{Err: &APIError{Code: 404, Status: "NOT_FOUND", Message: fmt.Sprintf(
		"models/%s is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.", model)}}
}

// RateLimited is the API's answer to too many requests a minute: 429
// RESOURCE_EXHAUSTED with a per-minute QuotaFailure, a Help link and a
// RetryInfo of wait.
func RateLimited(model string, wait time.Duration) Turn {
	return Turn{Err: &APIError{Code: 429, Status: "RESOURCE_EXHAUSTED", RetryDelay: wait, Message: fmt.Sprintf(
		"You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n"+
			"* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: %s\nPlease retry in %s.", model, wait),
		Details: []map[string]any{
			{"@type": "type.googleapis.com/google.rpc.Help", "links": []any{map[string]any{"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}}},
			quotaFailure("GenerateRequestsPerMinutePerProjectPerModel-FreeTier", model, "10"),
		}}}
}

// DailyQuotaExhausted is the API's answer once a day's quota is used up:
// 429 RESOURCE_EXHAUSTED with a per-day QuotaFailure.
func DailyQuotaExhausted(model string, wait time.Duration) Turn {
	t := RateLimited(model, wait)
	t.Err.Details[1] = quotaFailure("GenerateRequestsPerDayPerProjectPerModel-FreeTier", model, "250")
	return t
}

func quotaFailure(id, model, value string) map[string]any {
	return map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": []any{map[string]any{
		"quotaMetric":     "generativelanguage.googleapis.com/generate_content_free_tier_requests",
		"quotaId":         id,
		"quotaDimensions": map[string]any{"location": "global", "model": model},
		"quotaValue":      value,
	}}}
}

// PermissionDenied is the API's answer to a project that has the
// Generative Language API turned off: 403 PERMISSION_DENIED, reason
// SERVICE_DISABLED, with the page that turns it on.
func PermissionDenied() Turn {
	const url = "https://console.developers.google.com/apis/api/generativelanguage.googleapis.com/overview?project=123456789"
	return Turn{Err: &APIError{Code: 403, Status: "PERMISSION_DENIED", Message: "Generative Language API has not been used in project 123456789 before or it is disabled. Enable it by visiting " + url + " then retry. If you enabled this API recently, wait a few minutes for the action to propagate to our systems and retry.",
		Details: []map[string]any{errorInfo("SERVICE_DISABLED", map[string]any{
			"service": "generativelanguage.googleapis.com", "consumer": "projects/123456789", "activationUrl": url, "containerInfo": "123456789", "serviceTitle": "Generative Language API",
		})}}}
}

// LocationUnsupported is the API's answer where it is not offered: 400
// FAILED_PRECONDITION.
func LocationUnsupported() Turn {
	return Turn{Err: &APIError{Code: 400, Status: "FAILED_PRECONDITION", Message: "User location is not supported for the API use."}}
}
