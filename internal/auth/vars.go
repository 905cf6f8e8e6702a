package auth

import (
	"errors"
	"net/url"

	"github.com/gemini-ls/gemini-ls/internal/lazyregexp"
	"github.com/gemini-ls/gemini-ls/internal/origin"
)

// The values auth variables may take. A location and a project become
// part of an endpoint: the genai SDK makes the Vertex AI host
// {location}-aiplatform.googleapis.com (aiplatform.{location}.rep.googleapis.com
// for a multi-region, aiplatform.googleapis.com for global) and the path
// projects/{project}/locations/{location}/..., and the bearer token of the
// user's Application Default Credentials goes there. An untrusted .env may
// set both, so a value that is not what it claims to be (attacker.example/x
// as a "location") would send that token to another host. Each value is
// held to its form, wherever it came from.
const (
	// maxLocation bounds a location: the longest region is about 25
	// characters.
	maxLocation = 40
	// maxProject bounds a project, a legacy domain-scoped one included.
	maxProject = 128
)

var (
	// regionName is a Google Cloud region or multi-region name
	// (us-central1, europe-west4, us, global): one DNS label of lowercase
	// letters, digits and hyphens, so it cannot leave the googleapis.com
	// host it is put in.
	regionName = lazyregexp.New(`^[a-z](?:[a-z0-9-]*[a-z0-9])?$`)
	// projectID is a project ID as Google allows it (6 to 30 lowercase
	// letters, digits and hyphens, starting with a letter and not ending
	// with a hyphen), optionally in the legacy domain-scoped form
	// example.com:my-project, or a project number, which Vertex AI paths
	// accept too (Code Assist refuses numbers itself, in Gemini CLI's
	// words). None of them holds a slash, so none leaves its path segment.
	projectID = lazyregexp.New(`^(?:` + domainName + `:)?` + bareProjectID + `$|^` + projectNumber + `$`)
)

const (
	bareProjectID = `[a-z][a-z0-9-]{4,28}[a-z0-9]`
	domainLabel   = `[a-z0-9](?:[a-z0-9-]*[a-z0-9])?`
	domainName    = `(?:` + domainLabel + `\.)+` + domainLabel
	projectNumber = `[1-9][0-9]{0,19}`
)

// checkLocation checks that value, the variable name's, is a region name;
// "" (unset) passes. The value itself is not quoted back: it may be
// anything, of any length.
func checkLocation(name, value string) error {
	if value != "" && (len(value) > maxLocation || !regionName.MatchString(value)) {
		return errors.New(name + " is not a Google Cloud region name. Set it to a region such as us-central1 or europe-west4, or to global: lowercase letters, digits and hyphens.")
	}
	return nil
}

// checkProject checks that value, the variable name's, is a project ID;
// "" (unset) passes.
func checkProject(name, value string) error {
	if value != "" && (len(value) > maxProject || !projectID.MatchString(value)) {
		return errors.New(name + " is not a Google Cloud project ID. Set it to your project's ID, such as my-project-123: 6 to 30 lowercase letters, digits and hyphens, starting with a letter and not ending with a hyphen.")
	}
	return nil
}

// checkBaseURL checks that value, the variable name's, is an endpoint: an
// absolute https URL with a host, or http to this machine (localhost, a
// loopback address), since the API key or token goes with every request
// to it (origin.CheckCleartext; Gemini CLI 0.61 holds its two base URLs
// to the same, docs/reference/configuration.md); "" (unset) passes. The
// refusal names the origin (scheme, host, port), never the path or a
// password in the URL.
func checkBaseURL(name, value string) error {
	if value == "" {
		return nil
	}
	u, err := url.Parse(value)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return errors.New(name + " is not an http or https URL, such as https://example.com/gemini.")
	}
	if origin.CheckCleartext(u) != nil {
		return errors.New(name + " names " + origin.Of(u) + ", over plain http: the credential gemini-ls sends with every request there (the API key or Google token) could be read on the way. Use https, or http only to this machine (localhost, 127.0.0.1, ::1).")
	}
	return nil
}
