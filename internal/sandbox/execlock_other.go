//go:build !linux

package sandbox

// execLocks: bubblewrap, whose mounts lock the denied programs, is
// Linux's; a container's files are the image's (doc.go).
func (s *Sandbox) execLocks([]string) ([]mount, []string) { return nil, nil }
