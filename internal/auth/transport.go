package auth

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gemini-ls/gemini-ls/internal/origin"
)

// newTransport is the transport under every backend: the proxy a names,
// Retry-After made a RetryInfo detail, and no credential on a request a
// redirect brought from another origin, whichever layer above added it
// (genai's API key, Code Assist's token, the Vertex AI client's); a
// request that would carry one over plain http to another machine fails
// unsent (origin.RefuseCleartext: an Auth not made by Resolve, a base URL
// genai read from the process itself); a request body's parts encoded
// before are spliced in (splice.go). base is the transport at the
// bottom, which holds the connections.
func newTransport(a Auth) (rt http.RoundTripper, base *http.Transport) {
	base = http.DefaultTransport.(*http.Transport).Clone()
	base.Proxy = a.Proxy
	if base.Proxy == nil {
		base.Proxy = http.ProxyFromEnvironment
	}
	if a.rootCAs != nil {
		base.TLSClientConfig = &tls.Config{RootCAs: a.rootCAs}
	}
	return spliceTransport{origin.DropCredentials(origin.RefuseCleartext(&retryAfterTransport{base: base, now: time.Now}))}, base
}

// maxErrorBody bounds the error body read to add the detail; a larger one
// is passed on untouched.
const maxErrorBody = 1 << 20

// retryAfterTransport gives an error answer's HTTP Retry-After header (on
// a 429 or 5xx) to the agent's retry, which reads the server's delay from
// a google.rpc.RetryInfo detail of the error: the detail is added to the
// error JSON, unless the server already sent one (its own word wins).
// Doing it here serves both backends, whose errors become genai.APIErrors
// with the body's details.
type retryAfterTransport struct {
	base http.RoundTripper
	now  func() time.Time
}

func (t *retryAfterTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(req)
	if err != nil || !(resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 && resp.StatusCode <= 599) {
		return resp, err
	}
	delay, ok := parseRetryAfter(resp.Header.Get("Retry-After"), t.now())
	if !ok {
		return resp, nil
	}
	body, readErr := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody+1))
	if readErr != nil || len(body) > maxErrorBody {
		// Pass on what was read and the rest (or the read error) as it was.
		rest := resp.Body
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(body), errorReader{readErr, rest}), rest}
		return resp, nil
	}
	resp.Body.Close()
	body = withRetryInfo(body, resp, delay)
	resp.Body = io.NopCloser(bytes.NewReader(body))
	resp.ContentLength = int64(len(body))
	resp.Header.Set("Content-Length", strconv.Itoa(len(body)))
	return resp, nil
}

// errorReader returns err, or reads r when err is nil.
type errorReader struct {
	err error
	r   io.Reader
}

func (e errorReader) Read(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	return e.r.Read(p)
}

// parseRetryAfter reads a Retry-After value: delay-seconds or an HTTP-date.
func parseRetryAfter(v string, now time.Time) (time.Duration, bool) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, false
	}
	if secs, err := strconv.ParseInt(v, 10, 64); err == nil {
		if secs < 0 || secs > int64(24*time.Hour/time.Second) {
			return 0, false
		}
		return time.Duration(secs) * time.Second, true
	}
	if at, err := http.ParseTime(v); err == nil {
		return max(0, at.Sub(now).Truncate(time.Second)), true
	}
	return 0, false
}

// withRetryInfo adds a RetryInfo detail of delay to the error body. A
// Gemini error JSON keeps everything else it had; any other body becomes
// the message of one, as the genai SDK would have reported it.
func withRetryInfo(body []byte, resp *http.Response, delay time.Duration) []byte {
	detail, _ := json.Marshal(map[string]string{
		"@type":      "type.googleapis.com/google.rpc.RetryInfo",
		"retryDelay": strconv.FormatFloat(delay.Seconds(), 'f', -1, 64) + "s",
	})
	var top map[string]json.RawMessage
	var errObj map[string]json.RawMessage
	if json.Unmarshal(body, &top) == nil && json.Unmarshal(top["error"], &errObj) == nil && errObj != nil {
		var details []json.RawMessage
		if raw, ok := errObj["details"]; ok && json.Unmarshal(raw, &details) != nil {
			return body // details of a shape we do not know: leave them be
		}
		for _, d := range details {
			var typed struct {
				Type string `json:"@type"`
			}
			if json.Unmarshal(d, &typed) == nil && strings.HasSuffix(typed.Type, "google.rpc.RetryInfo") {
				return body
			}
		}
		errObj["details"], _ = json.Marshal(append(details, detail))
		top["error"], _ = json.Marshal(errObj)
		out, err := json.Marshal(top)
		if err != nil {
			return body
		}
		return out
	}
	out, err := json.Marshal(map[string]any{"error": map[string]any{
		"code":    resp.StatusCode,
		"message": string(body),
		"status":  resp.Status,
		"details": []json.RawMessage{detail},
	}})
	if err != nil {
		return body
	}
	return out
}
