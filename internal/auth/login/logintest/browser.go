package logintest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
)

// Browse plays the user's browser: it opens authURL and follows the
// redirects that stay on this machine (the fake's sign-in, then the
// loopback server's callback), and returns where the last answer sends
// the browser off this machine (Gemini CLI's success or failure page), or
// the status and body of an answer that is not a redirect.
func Browse(ctx context.Context, authURL string) (Visit, error) {
	client := &http.Client{CheckRedirect: func(req *http.Request, _ []*http.Request) error {
		if !isLoopback(req.URL) {
			return http.ErrUseLastResponse
		}
		return nil
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, authURL, nil)
	if err != nil {
		return Visit{}, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return Visit{}, fmt.Errorf("browsing %s: %w", authURL, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<16))
	v := Visit{Status: resp.StatusCode, Body: string(body)}
	if loc, err := resp.Location(); err == nil {
		v.Location = loc.String()
	} else if !errors.Is(err, http.ErrNoLocation) {
		return v, err
	}
	return v, nil
}

// Visit is where the browser ended up.
type Visit struct {
	// Location is where the last answer redirected, off this machine.
	Location string
	Status   int
	Body     string
}

// WithParams is u with its query's key set to value (a tampered
// redirect).
func WithParams(u string, set url.Values) string {
	parsed, err := url.Parse(u)
	if err != nil {
		return u
	}
	q := parsed.Query()
	for k, v := range set {
		q[k] = v
	}
	parsed.RawQuery = q.Encode()
	return parsed.String()
}
