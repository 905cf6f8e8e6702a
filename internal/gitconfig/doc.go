// Package gitconfig reads git's configuration files as git does, without
// running git: what a caller needs of a repository's configuration (the
// sandbox, which keeps what makes git run a program read-only; the
// workspace, which reads core.excludesFile and core.ignorecase) is read
// from the files, never asked of a git the repository configures.
//
// Parse is linear in its input and stops where git would refuse the
// file. It reads one file: following include.path, and which files git
// reads in which order, is the caller's.
package gitconfig
