//go:build !windows

package protected

// longPath is path as it is: only Windows resolves short (8.3) names,
// and no component is known to be a long name (a share that Windows
// serves may resolve one the client cannot ask about).
func longPath(path string) (long string, known int) {
	return path, 0
}
