//go:build !unix

package procgroup

import (
	"os"
	"syscall"
)

// Attr: without process groups, nothing to set.
func Attr() *syscall.SysProcAttr { return nil }

// Term kills p: without signals, there is no asking.
func Term(p *os.Process) { _ = p.Kill() }

// Kill kills p.
func Kill(p *os.Process) error { return p.Kill() }
