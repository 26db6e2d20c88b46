//go:build !linux

package clients

import "syscall"

// sysProcAttr leaves the probe in kbf's process group: elsewhere than on
// Linux nothing would signal it should kbf die, and a Ctrl-C at the
// terminal at least reaches it.
func sysProcAttr() *syscall.SysProcAttr { return nil }
