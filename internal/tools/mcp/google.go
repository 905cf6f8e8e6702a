package mcp

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/gemini-ls/gemini-ls/internal/origin"
)

// googleHosts says where authProviderType "google_credentials" may send
// the user's Application Default Credentials token, as Gemini CLI 0.61's
// GoogleCredentialProvider does (packages/core/src/mcp/google-auth-provider.ts,
// ALLOWED_HOSTS = [/^.+\.googleapis\.com$/, /^(.*\.)?luci\.app$/], tested
// against the URL's hostname): a subdomain of googleapis.com, never
// googleapis.com itself; luci.app or a subdomain of it.
const googleHosts = "*.googleapis.com, luci.app and *.luci.app"

// googleHost reports whether host, a URL's host name without its port,
// may have the token. It is compared lower-case, as a WHATWG URL's
// hostname is; a trailing dot is no match, as in 0.61.
func googleHost(host string) bool {
	host = strings.ToLower(host)
	const apis, luci = ".googleapis.com", "luci.app"
	return len(host) > len(apis) && strings.HasSuffix(host, apis) ||
		host == luci || strings.HasSuffix(host, "."+luci)
}

// checkGoogleURL refuses the token to endpoint unless it is a Google host
// reached over https. 0.61 checks the host alone; gemini-ls refuses plain
// http as well, where the token could be read on the way.
func checkGoogleURL(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf(`authProviderType "google_credentials": the server's URL does not parse: %w`, err)
	}
	if !googleHost(u.Hostname()) {
		return fmt.Errorf(`authProviderType "google_credentials" sends your Google credentials only to Google's hosts (%s), and %q is not one of them: the server was not connected, and no token was sent`, googleHosts, u.Hostname())
	}
	if !strings.EqualFold(u.Scheme, "https") {
		return fmt.Errorf(`authProviderType "google_credentials" sends your Google credentials only over https, and %s is %s: the server was not connected, and no token was sent`, origin.Of(u), u.Scheme)
	}
	return nil
}
